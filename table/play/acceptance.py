"""What a new card does to the choices still waiting: acceptance by action (53A, 54B, 60A1, 52B1), the
correct leader's lead superseding a lead out of turn (53C), choices that lapse or go to the director (60C)."""
from __future__ import annotations

from ..cards import Seat
from ..codes import IrregularityCode
from ..irregularity import Irregularity
from ..texts import Text
from .position import LHO, PARTNER, SIDE
from .rulings import WAITING_55A, apply_waiting_choice
from .state import PlayState

# codes whose pending choice is about an irregular lead that sits, provisionally, as the trick's lead
LEAD_CODES = (IrregularityCode.OPENING_LEAD_OUT_OF_TURN, IrregularityCode.LEAD_OUT_OF_TURN_DEFENDER,
              IrregularityCode.LEAD_OUT_OF_TURN_DECLARER, IrregularityCode.LEAD_FROM_WRONG_HAND)


def resolve_pending(st: PlayState, seat: Seat, card: str, out: list[Irregularity]) -> bool:
    """Apply acceptance by action (53A, 54B, 60A1, 52B1), 53B/53C, and lapses; returns True when this
    card is a play the law lets stand out of rotation (54B2)."""
    suppress = False
    for p in list(st.choices):
        irr = p.irr
        if not irr.open:
            continue
        code = irr.code
        nos = SIDE[seat] != SIDE[p.offender]
        if code in WAITING_55A:
            apply_waiting_choice(st, p, seat, out)
            if not irr.open:
                continue
        if code in LEAD_CODES:
            if not nos or not st.current_trick or st.current_trick[0] != (p.offender, p.card):
                continue                       # 60C: the offending side's card does not affect NOS rights
            off = p.offender
            if code == IrregularityCode.OPENING_LEAD_OUT_OF_TURN:
                if seat == st.declarer:
                    irr.dispose("accepted_by_action", "54B1")
                else:                          # dummy's card played second: it stands (54B2)
                    irr.dispose("accepted_by_action", "54B2")
                    suppress = True
            elif seat == LHO[off]:
                irr.dispose("accepted_by_action", "53A")
            elif seat == p.correct:
                # 53C: the correct leader, an opponent of the offender, leads: his lead stands and the cards
                # played in error to the trick are withdrawn without penalty
                st.withdraw_trick("53C")
                st.give_lead(p.correct)
                irr.dispose("superseded_by_correct_lead", "53C")
                st.recompute_next()
            elif code in (IrregularityCode.LEAD_OUT_OF_TURN_DECLARER, IrregularityCode.LEAD_FROM_WRONG_HAND):
                irr.dispose("accepted_by_action", "53B")   # the defender at the right of the hand that led: 57
            else:
                irr.dispose("accepted_by_action", "60A1")
        elif code in (IrregularityCode.PREMATURE_PLAY, IrregularityCode.PREMATURE_LEAD,
                      IrregularityCode.PLAY_OUT_OF_TURN):
            if p.trick != len(st.winners) + 1:
                continue
            if nos:
                irr.dispose("accepted_by_action", "60A1")
                if code == IrregularityCode.PREMATURE_LEAD and p.card is not None and p.card in st.face_up(p.offender):
                    st.pick_up(p.offender, p.card)      # forfeited: no longer a penalty card
            elif code != IrregularityCode.PLAY_OUT_OF_TURN and seat == PARTNER[p.offender]:
                irr.dispose("referred_to_director", "60C")
                irr.detail += Text("play.60c", "; the offender's partner played before declarer chose (60C: "
                                   "director)")
        elif code == IrregularityCode.FAILURE_TO_PLAY_PENALTY_CARD:
            if not nos:
                continue
            if seat == st.declarer or seat == st.dummy:
                irr.dispose("accepted_by_action", "52B1")
        elif code in (IrregularityCode.LEAD_PENALTY_PENDING, IrregularityCode.PENALTY_CARD):
            if seat == p.offender and not st.current_trick and seat == st.next_seat:
                irr.dispose("lapsed_no_choice", irr.law)
                irr.detail += Text("play.led_before_choice", "; {seat} led {card} before declarer chose: the card "
                                   "stands as the lead (director may rule)", seat=seat, card=card)
    st.drop_settled_choices()
    return suppress
