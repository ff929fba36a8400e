"""The choices the law offers for an open irregularity, applied: one handler per irregularity code, found in
:data:`RULINGS` (revokes, which are not pending choices, go to ``revokes.rule``)."""
from __future__ import annotations

from collections.abc import Callable

from ..cards import Seat
from ..codes import IrregularityCode
from ..irregularity import Irregularity, Option
from ..texts import Text
from .counting import place
from .errors import PlayRulingError
from .lead_choices import check_50d2
from .position import LHO, PARTNER
from .records import Obligation, Pending
from .state import PlayState

Handler = Callable[[PlayState, Pending, str, list[Irregularity]], None]


def check_chooser(st: PlayState, opt: Option, who: Seat | None, code: str) -> None:
    if who is None or opt.chooser == "director":
        return
    ok = {"declarer": who == st.declarer,
          "defenders": st.is_defender(who)}.get(opt.chooser, str(who) == opt.chooser)
    if not ok:
        raise PlayRulingError(Text("refusal.not_the_chooser", "{seat} may not choose '{option}' for {code}: the "
                                   "choice is {chooser}'s", seat=who, option=opt.code, code=code,
                                   chooser=opt.chooser))


def _offender_card(p: Pending) -> str:
    """The card of the offender a choice is about (every choice on a played card has one)."""
    if p.card is None:
        raise PlayRulingError(Text("refusal.names_no_card", "{code} names no card", code=p.irr.code))
    return p.card


def _correct_leader(p: Pending) -> Seat:
    if p.correct is None:
        raise PlayRulingError(Text("refusal.names_no_leader", "{code} names no correct leader", code=p.irr.code))
    return p.correct


def _opening_lead_out_of_turn(st: PlayState, p: Pending, option: str, out: list[Irregularity]) -> None:
    if option == "spread":
        st.declarer = PARTNER[st.declarer]
        st.give_lead(p.offender)
        p.irr.dispose("rectified:spread", "54A")
        st.recompute_next()
    elif option == "accept":
        st.give_lead(p.offender)
        p.irr.dispose("rectified:accept", "54B")
    else:
        p.irr.dispose("rectified:refuse", "54D")
        _refuse_lead(st, p, "56", out)


def _lead_out_of_turn_defender(st: PlayState, p: Pending, option: str, out: list[Irregularity]) -> None:
    if option == "accept":
        st.give_lead(p.offender)
        p.irr.dispose("rectified:accept", "53A")
    else:
        p.irr.dispose("rectified:refuse", "56")
        _refuse_lead(st, p, "56", out)


def _refuse_lead(st: PlayState, p: Pending, law: str, out: list[Irregularity]) -> None:
    """56: the defender's card becomes a major penalty card; the correct leader leads (50D2)."""
    st.withdraw_trick(law)
    st.add_penalty_card(p.offender, _offender_card(p), major=True)
    st.give_lead(_correct_leader(p))
    st.recompute_next()
    check_50d2(st, out)


def _defenders_choice(st: PlayState, p: Pending, option: str) -> str | None:
    """2017 55A: if the defenders choose differently, the one next in turn after the irregular lead prevails.
    Returns the option to apply now, or None while only the other defender has chosen: his choice waits for
    the prevailing defender's (who may choose, or accept by playing to the lead, 53A) and is applied as soon
    as anything else happens at the table (``apply_waiting_choice``)."""
    if not st.edition.law55a_next_in_turn_prevails:
        return option                                  # 1997: the first choice made is applied
    who = p.extra.get("chooser_seat")
    prevails = LHO[p.offender]
    if who is None or who == prevails:
        return option
    p.extra["other_choice"] = option
    p.irr.detail += Text("play.55a_chose", "; {seat} chose {option}: {seat2}, next in turn, prevails if he chooses "
                         "differently (55A)", seat=who, option=option, seat2=prevails)
    return None


WAITING_55A = (IrregularityCode.LEAD_OUT_OF_TURN_DECLARER, IrregularityCode.LEAD_FROM_WRONG_HAND)


def apply_waiting_choice(st: PlayState, p: Pending, seat: Seat, out: list[Irregularity]) -> None:
    """2017 55A: a card from anyone but the prevailing defender while the other defender's choice waits: the
    prevailing defender expressed no other option, so the waiting choice is applied before the card counts."""
    option = p.extra.get("other_choice")
    if option is None or not p.irr.open or seat == LHO[p.offender]:
        return
    del p.extra["other_choice"]
    p.extra["chooser_seat"] = None                     # applied as chosen: nothing waits any more
    p.irr.detail += Text("play.55a_applied", "; {seat} played before {seat2} chose: {option} applied (55A)",
                         seat=seat, seat2=LHO[p.offender], option=option)
    RULINGS[p.irr.code](st, p, option, out)


def _declarer_led_wrongly(st: PlayState, p: Pending, option: str, law: str, retracted_as: str) -> bool:
    """Laws 53A/55B, shared by a lead out of turn and a lead from the wrong hand: the defenders accept it, or
    the trick is withdrawn and the right hand leads. True when it was withdrawn (the caller's law differs)."""
    chosen = _defenders_choice(st, p, option)
    if chosen is None:
        return False
    if chosen == "accept":
        st.give_lead(p.offender)
        p.irr.dispose("rectified:accept", "53A")
        return False
    st.withdraw_trick(law)
    st.give_lead(_correct_leader(p))
    p.irr.dispose(retracted_as, law)
    return True


def _lead_out_of_turn_declarer(st: PlayState, p: Pending, option: str, out: list[Irregularity]) -> None:
    if _declarer_led_wrongly(st, p, option, "55B1", "rectified:retract"):
        st.recompute_next()


def _lead_from_wrong_hand(st: PlayState, p: Pending, option: str, out: list[Irregularity]) -> None:
    if _declarer_led_wrongly(st, p, option, "55B2", "rectified:lead_from_correct_hand"):
        st.open_retraction_window(p)
        st.recompute_next()


def _premature_play(st: PlayState, p: Pending, option: str, out: list[Irregularity]) -> None:
    card = _offender_card(p)
    if (p.offender, card) in st.current_trick:
        st.withdraw(p.offender, card, "57A")
    st.add_penalty_card(p.offender, card, major=True)
    _set_57(st, p, option)


def _premature_lead(st: PlayState, p: Pending, option: str, out: list[Irregularity]) -> None:
    _set_57(st, p, option)


def _set_57(st: PlayState, p: Pending, option: str) -> None:
    kind, _, suit = option.partition(":")
    n = len(st.winners) + 1
    st.restrict_play(Obligation(PARTNER[p.offender], kind, suit or p.extra["lead_suit"], n, p.irr, "57A"))
    p.irr.dispose(f"rectified:{option}", "57A")
    st.recompute_next()


def _play_out_of_turn(st: PlayState, p: Pending, option: str, out: list[Irregularity]) -> None:
    if option == "stands":
        p.irr.dispose("ruled:stands", "60A2")
    else:
        card = _offender_card(p)
        if (p.offender, card) in st.current_trick:
            st.withdraw(p.offender, card, "49")
        st.add_penalty_card(p.offender, card, major=True)
        p.irr.dispose("ruled:penalty_card", "50B")


def _lead_penalty_pending(st: PlayState, p: Pending, option: str, out: list[Irregularity]) -> None:
    law = p.irr.law
    if option != "none":
        kind, _, suit = option.partition(":")
        st.restrict_lead(Obligation(p.offender, kind, suit, len(st.winners) + 1, p.irr, law))
    p.irr.dispose(f"rectified:{option}", law)


def _penalty_card(st: PlayState, p: Pending, option: str, out: list[Irregularity]) -> None:
    pard = PARTNER[p.offender]
    if option == "none":
        p.irr.dispose("rectified:none", "50D2b")
        return
    kind, _, suit = option.partition(":")
    for c in [c for c in st.face_up(pard) if c[0] == suit]:
        st.pick_up(pard, c)                         # picked up: no longer a penalty card (50D2a, 51B)
    law = "50D2a" if p.irr.law == "50D2" else "51B"
    st.restrict_lead(Obligation(p.offender, kind, suit, len(st.winners) + 1, p.irr, law))
    p.irr.dispose(f"rectified:{option}", law)


def _failure_to_play_penalty_card(st: PlayState, p: Pending, option: str, out: list[Irregularity]) -> None:
    if option == "accept":
        p.irr.dispose("rectified:accept", "52B1")
        return
    due = p.extra["due"]
    pc = option.partition(":")[2] or due[0]
    seat, card = p.offender, _offender_card(p)
    if (seat, card) not in st.current_trick or st.complete:
        st.reopen_last_trick()
    if (seat, card) not in st.current_trick:
        raise PlayRulingError(Text("refusal.card_left_trick", "{card} is no longer in the current trick",
                                   card=card))
    if pc not in st.face_up(seat):
        raise PlayRulingError(Text("refusal.no_longer_penalty_card", "{card} is no longer a penalty card",
                                   card=pc))
    idx = st.current_trick.index((seat, card))
    st.current_trick.pop(idx)
    st.unplay(seat, card)
    for rv in st.revokes:
        if rv.linked is p.irr:
            if rv in st.open_revokes:
                st.forget_revoke(rv)
            rv.irr.dispose("corrected", "52B2")
    p.irr.dispose(f"rectified:{option}", "52B2")
    st.add_penalty_card(seat, card, major=True)               # 52B2: the card illegally played is a major penalty card
    place(st, seat, pc, idx, out, checks=False)


# flagged with the director's options only (Laws 1, 13A1, 67B, 68D): the engine has nothing to apply, so
# ``Play.ruling`` refuses them (PlayRulingError: no choice waiting)
DIRECTOR_ONLY = frozenset({IrregularityCode.CARD_ALREADY_PLAYED, IrregularityCode.HAND_RECORD_MISMATCH,
                           IrregularityCode.DEFECTIVE_TRICK, IrregularityCode.PLAY_AFTER_CLAIM})

# irregularity code -> the handler of its options
RULINGS: dict[str, Handler] = {
    IrregularityCode.OPENING_LEAD_OUT_OF_TURN: _opening_lead_out_of_turn,
    IrregularityCode.LEAD_OUT_OF_TURN_DEFENDER: _lead_out_of_turn_defender,
    IrregularityCode.LEAD_OUT_OF_TURN_DECLARER: _lead_out_of_turn_declarer,
    IrregularityCode.LEAD_FROM_WRONG_HAND: _lead_from_wrong_hand,
    IrregularityCode.PREMATURE_PLAY: _premature_play,
    IrregularityCode.PREMATURE_LEAD: _premature_lead,
    IrregularityCode.PLAY_OUT_OF_TURN: _play_out_of_turn,
    IrregularityCode.LEAD_PENALTY_PENDING: _lead_penalty_pending,
    IrregularityCode.PENALTY_CARD: _penalty_card,
    IrregularityCode.FAILURE_TO_PLAY_PENALTY_CARD: _failure_to_play_penalty_card,
}
