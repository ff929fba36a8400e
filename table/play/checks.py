"""Detecting the irregularities in a card: a revoke (44C, 61A), a penalty card not played (50, 52), a chosen
lead or play penalty not complied with (26, 50D2, 57A), a lead or play out of turn (53-57), a card too many
in a trick (45E, 58B). Each check flags what it finds; counting the card into the trick is the caller's."""
from __future__ import annotations

from ..cards import CARD_RANK, HONORS, Seat
from ..codes import IrregularityCode
from ..irregularity import Irregularity, Option
from ..texts import Text
from .position import PARTNER
from .records import Obligation, Pending
from .revokes import establish_by_extra, flag_revoke
from .state import PlayState

ACCEPT_LEAD = Text("play.accept_lead", "53A: accept the lead")


def _rank(card: str) -> int:
    return CARD_RANK[card]


def legal_set(st: PlayState, seat: Seat, lead: bool) -> set[str] | None:
    """Cards ``seat`` may legally play now (44C first, then chosen lead/play penalties, 59), or None
    when his holding is not known well enough to say."""
    held = set(st.holding(seat))
    if not lead:
        ls = st.current_trick[0][1][0]
        h = st.holds_suit(seat, ls)
        if h is None:
            return None
        if h:
            held = {c for c in held if c[0] == ls}
        for ob in st.play_obligations:
            if ob.seat == seat:
                held = apply_play_ob(ob, held, ls)
    else:
        for ob in st.lead_obligations:
            if ob.seat == seat:
                held = apply_lead_ob(ob, held)
    return held


def apply_play_ob(ob: Obligation, held: set[str], ls: str) -> set[str]:
    suit_cards = [c for c in held if c[0] == ls]
    if ob.kind in ("highest", "lowest") and suit_cards:
        pick = max(suit_cards, key=_rank) if ob.kind == "highest" else min(suit_cards, key=_rank)
        return {pick}
    if ob.kind == "forbid":
        rest = {c for c in held if c[0] != ob.suit}
        return rest or held                    # 59: unable to comply -> any legal card
    if ob.kind == "require" and not suit_cards:
        return {c for c in held if c[0] == ob.suit} or held      # 2017 57A3, when void in the suit led
    return held


def apply_lead_ob(ob: Obligation, held: set[str]) -> set[str]:
    if ob.kind == "require":
        sub = {c for c in held if c[0] == ob.suit}
    else:
        sub = {c for c in held if c[0] != ob.suit}
    return sub or held                         # 59


def check_card(st: PlayState, seat: Seat, card: str, idx: int, lead: bool, was_pc: bool,
               out: list[Irregularity]) -> None:
    """The legality of a card about to be counted at place ``idx`` of the current trick."""
    n = len(st.winners) + 1
    trick = st.current_trick
    # 1. follow suit (44C) - overrides every other obligation
    if not lead:
        ls = trick[0][1][0]
        if card[0] != ls and st.holds_suit(seat, ls):
            legal = frozenset(st.held(seat, ls))
            faced = seat == st.dummy or (bool(legal) and all(c in st.face_up(seat) for c in legal))
            flag_revoke(st, out, seat, card, n, idx, ls, legal, faced, was_pc, "follow",
                        Text("play.revoke_follow", "{seat} played {card} on a {suit} lead holding {cards}: failure "
                             "to follow suit (44C)", seat=seat, card=card, suit=ls, cards=" ".join(sorted(legal))))
            return
        # 2. 57A play penalty on this seat
        for ob in list(st.play_obligations):
            if ob.seat != seat or not st.hand_known(seat):
                continue
            allowed = apply_play_ob(ob, set(st.held(seat, ls)) if st.holds_suit(seat, ls)
                                    else set(st.holding(seat)), ls)
            if card not in allowed:
                flag_revoke(st, out, seat, card, n, idx, ob.suit or ls, frozenset(allowed), False, was_pc,
                            "obligation", Text("play.revoke_57a", "{seat} played {card} against declarer's 57A "
                                               "choice '{choice}' while able to comply (61A)", seat=seat, card=card,
                                               choice=f"{ob.kind}{f':{ob.suit}' if ob.kind == 'forbid' else ''}",
                                               page="{seat} played {card} against declarer's 57A choice while able "
                                               "to comply (61A)"), ob=ob)
                return
    else:
        # 3. lead penalties (26, 50D2)
        for ob in list(st.lead_obligations):
            if ob.seat != seat:
                continue
            allowed = apply_lead_ob(ob, set(st.holding(seat)))
            if ob.kind == "require":
                st.lead_complied(ob)       # a requirement binds this lead only
            if st.hand_known(seat) and card not in allowed:
                flag_revoke(st, out, seat, card, n, idx, ob.suit or card[0], frozenset(allowed), False, was_pc,
                            "obligation", Text("play.revoke_lead_choice", "{seat} led {card} although declarer "
                                               "chose '{choice}' ({law}) and he could comply: revoke (61A)",
                                               seat=seat, card=card, choice=f"{ob.kind}:{ob.suit}", law=ob.law,
                                               page="{seat} led {card} although declarer chose a lead restriction "
                                               "({law}) and he could comply: revoke (61A)"), ob=ob)
                return
    # 4. penalty cards (50C, 50D1, 51A; failure -> 52, also a revoke 61A with no transfer 64B3)
    pcs = st.face_up(seat)
    if pcs and not was_pc:
        legal_now = legal_set(st, seat, lead)
        majors = sorted(c for c, k in pcs.items() if k == "major" and legal_now is not None and c in legal_now)
        minor_bar = [c for c, k in pcs.items() if k == "minor" and c[0] == card[0] and card[1] not in HONORS]
        due = majors or minor_bar
        if due:
            why = (Text("play.major_due", "major penalty card(s) {cards} due at the first legal opportunity (50D1)",
                        cards=" ".join(majors))
                   if majors else Text("play.minor_due", "minor penalty card {card} must be played before another "
                                       "small {suit} (50C)", card=minor_bar[0], suit=card[0]))
            opts = [Option("accept", Text("play.penalty_accept", "accept the card played; the penalty card stays a "
                                          "penalty card (52B1)"), "declarer")]
            opts += [Option("substitute" if len(due) == 1 else f"substitute:{c}",
                            Text("play.penalty_substitute", "require {card} instead; {card2} becomes a major penalty "
                                 "card (52B2)", card=c, card2=card), "declarer") for c in due]
            f = st.flag(out, IrregularityCode.FAILURE_TO_PLAY_PENALTY_CARD, "52", seat, n, idx, opts,
                         Text("play.played_instead", "{seat} played {card}: ", seat=seat, card=card) + why
                         + Text("play.must_accept_52b1", "; declarer must accept once he has played on (52B1)"))
            st.await_choice(Pending(f, seat, n, card, due=due))
            flag_revoke(st, out, seat, card, n, idx, due[0][0], frozenset(due), True, was_pc, "penalty_card",
                        Text("play.revoke_penalty_card", "failure to play penalty card {cards} when able (61A; no "
                             "trick transfer, 64B3)", cards=" ".join(due)),
                        linked=f)


def irregular_lead(st: PlayState, seat: Seat, card: str, out: list[Irregularity]) -> bool:
    """A lead by a seat not on lead (53-56, 60B). Returns True when the card sits, provisionally, as the
    trick's lead (the law lets it stand or be withdrawn later); False when it is not counted (60B)."""
    n = len(st.winners) + 1
    correct = st.next_seat
    if st.retracted is not None and st.is_defender(seat):
        # 60B: declarer was required to lead from the correct hand; a defender played first
        st.add_penalty_card(seat, card, major=True)
        establish_by_extra(st, seat, n - 1)
        st.flag(out, IrregularityCode.PLAY_AFTER_IRREGULAR_LEAD, "60B", seat, n, 0, [],
                 Text("play.before_correct_hand", "{seat} played {card} before declarer led from the correct "
                      "hand ({leader}): it becomes a penalty card (60B, 50)", seat=seat, card=card, leader=correct),
                 "penalty_card", "60B")
        return False
    if n == 13 and not st.edition.lead_oot_acceptable_at_trick13:
        # 2017 53A ("prior to the thirteenth trick"): the lead cannot be accepted; each hand holds one card, so
        # the trick is counted with the correct leader's card as its lead
        st.set_trick13_leader(correct)
        st.flag(out, IrregularityCode.LEAD_OUT_OF_TURN_DEFENDER if st.is_defender(seat)
                 else IrregularityCode.LEAD_OUT_OF_TURN_DECLARER, "53A",
                 seat, n, 0, [], Text("play.lead_oot_trick13", "{seat} led {card} to trick 13; {leader} was on lead: "
                                      "at trick 13 a lead out of turn cannot be accepted (53A); the trick is led "
                                      "from {leader}", seat=seat, card=card, leader=correct),
                 "not_acceptable_at_trick13", "53A")
        return True
    note = ""
    if st.winners and st.tricks[n - 2][-1][0] == seat:
        note = Text("play.maybe_fifth_card", "; {seat} played the last card of trick {trick}: the director may deem "
                    "this a fifth card to it (45E)", seat=seat, trick=n - 1)
    if st.is_defender(seat):
        if n == 1:
            code, law = IrregularityCode.OPENING_LEAD_OUT_OF_TURN, "54"
            opts = [Option("spread", Text("play.lead_oot_spread", "54A: declarer spreads his hand and becomes dummy; "
                                          "{partner} becomes declarer and {card} is the opening lead",
                                          partner=PARTNER[st.declarer], card=card), "declarer"),
                    Option("accept", Text("play.opening_lead_oot_accept", "54B: accept the lead (53A); dummy is "
                                          "spread and the second card comes from declarer's own hand (54C: must "
                                          "accept if he may have seen dummy's cards)"), "declarer"),
                    Option("refuse", Text("play.opening_lead_oot_refuse", "54D/56: {card} becomes a major penalty "
                                          "card; {leader} leads and declarer has the 50D2 options", card=card,
                                          leader=correct), "declarer")]
        else:
            code, law = IrregularityCode.LEAD_OUT_OF_TURN_DEFENDER, "56"
            opts = [Option("accept", ACCEPT_LEAD, "declarer"),
                    Option("refuse", Text("play.lead_oot_refuse", "56: {card} becomes a major penalty card; {leader} "
                                          "leads (50D2 options when {partner} leads)", card=card, leader=correct,
                                          partner=PARTNER[seat]), "declarer")]
    elif st.is_defender(correct):
        code, law = IrregularityCode.LEAD_OUT_OF_TURN_DECLARER, "55B1"
        opts = [Option("accept", ACCEPT_LEAD, "defenders"),
                Option("retract", Text("play.declarer_lead_retract", "55B1: declarer restores the card without "
                                       "penalty"), "defenders")]
    else:
        code, law = IrregularityCode.LEAD_FROM_WRONG_HAND, "55B2"
        opts = [Option("accept", ACCEPT_LEAD, "defenders"),
                Option("lead_from_correct_hand", Text("play.lead_from_correct_hand", "55B2: the card is withdrawn and "
                                                      "declarer leads from {seat}; a defender's card played before "
                                                      "that lead becomes a penalty card (60B)", seat=correct),
                       "defenders")]
    irr = st.flag(out, code, law, seat, n, 0, opts, Text("play.led_oot", "{seat} led {card}; {leader} was on lead",
                                                         seat=seat, card=card, leader=correct) + note)
    st.await_choice(Pending(irr, seat, n, card, correct))
    return True


def out_of_turn_play(st: PlayState, seat: Seat, card: str, out: list[Irregularity]) -> bool:
    """A card to a trick by a seat whose turn it is not (49, 57A, 45C); it is counted all the same (returns
    True), except a 2017 57D card that could not legally be played: a major penalty card (returns False)."""
    n = len(st.winners) + 1
    trick = st.current_trick
    played = {s for s, _ in trick}
    idx = len(trick)
    if st.edition.law57d_hold_for_proper_turn and st.is_defender(seat) and PARTNER[seat] in played \
            and st.next_seat == seat.rho:
        ls = trick[0][1][0]
        legal = card[0] == ls or st.holds_suit(seat, ls) is False
        if legal:
            st.flag(out, IrregularityCode.PREMATURE_PLAY_AT_RHO_TURN, "57D", seat, n, idx, [],
                     Text("play.at_rho_turn_held", "{seat} played {card} at his RHO {seat2}'s turn: a legal card, "
                          "held and played at his proper turn (57D; Law 16 may apply)", seat=seat, card=card,
                          seat2=st.next_seat), "held_for_proper_turn", "57D")
            return True
        st.add_penalty_card(seat, card, major=True)
        st.flag(out, IrregularityCode.PREMATURE_PLAY_AT_RHO_TURN, "57D", seat, n, idx, [],
                 Text("play.at_rho_turn_illegal", "{seat} played {card} at his RHO {seat2}'s turn; it could not "
                      "legally be played to the trick: a major penalty card (57D)", seat=seat, card=card,
                      seat2=st.next_seat), "penalty_card", "57D")
        return False
    if st.is_defender(seat) and PARTNER[seat] not in played:
        pard = PARTNER[seat]
        if st.declarer in played and st.dummy in played:
            st.flag(out, IrregularityCode.PREMATURE_PLAY, "57A", seat, n, idx, [],
                     Text("play.premature_no_penalty", "{seat} played {card} before his partner {partner}; declarer "
                          "had played from both hands", seat=seat, card=card, partner=pard),
                     "no_penalty", "57C")
        else:
            ls = trick[0][1][0]
            irr = st.flag(out, IrregularityCode.PREMATURE_PLAY, "57A", seat, n, idx, options_57(st, ls, pard),
                           Text("play.premature", "{seat} played {card} before his partner {partner} ({seat2} was "
                                "due); if declarer chooses, {card} becomes a major penalty card and the choice binds "
                                "{partner}", seat=seat, card=card, partner=pard, seat2=st.next_seat))
            st.await_choice(Pending(irr, seat, n, card, st.next_seat, lead_suit=ls))
    elif st.is_defender(seat):
        irr = st.flag(out, IrregularityCode.PLAY_OUT_OF_TURN, "49", seat, n, idx,
                       [Option("stands", Text("play.oor_stands", "the card stands as played in rotation (60A2)"),
                               "director"),
                        Option("penalty_card", Text("play.oor_withdrawn", "{card} is withdrawn as a major penalty card "
                                                    "(49, 50B)", card=card), "director")],
                       Text("play.oor_defender", "{seat} played {card} out of rotation ({seat2} was due); partner had "
                            "played", seat=seat, card=card, seat2=st.next_seat))
        st.await_choice(Pending(irr, seat, n, card, st.next_seat))
    else:
        st.flag(out, IrregularityCode.PLAY_OUT_OF_TURN, "45C", seat, n, idx, [],
                 Text("play.oor_declarer", "{seat} played {card} out of rotation ({seat2} was due): the card stands "
                      "(45C, 47F); declarer's and dummy's cards never become penalty cards (48A)", seat=seat,
                      card=card, seat2=st.next_seat), "stands", "47F")
    return True


def options_57(st: PlayState, lead_suit: str, pard: Seat) -> list[Option]:
    """Declarer's choices after a premature play or lead, as the edition lists them (2017 adds 57A3)."""
    out = []
    for code, law in st.edition.law57_options(lead_suit):
        kind, _, suit = code.partition(":")
        text = {"highest": Text("play.57_highest", "{law}: {partner} must play his highest {suit}", law=law,
                                partner=pard, suit=lead_suit),
                "lowest": Text("play.57_lowest", "{law}: {partner} must play his lowest {suit}", law=law,
                               partner=pard, suit=lead_suit),
                "require": Text("play.57_require", "{law}: {partner} must play a {one_suit} (if he has none of the "
                                "suit led)", law=law, partner=pard, one_suit=suit),
                "forbid": Text("play.57_forbid", "{law}: {partner} may not play a {one_suit}", law=law,
                               partner=pard, one_suit=suit)}[kind]
        out.append(Option(code, text, "declarer"))
    return out


def extra_card(st: PlayState, seat: Seat, card: str, out: list[Irregularity]) -> None:
    """A second card by a seat that already played to this trick: not counted (45E, 58B, 57A)."""
    n = len(st.winners) + 1
    trick = st.current_trick
    played = {s for s, _ in trick}
    idx = len(trick)
    defender = st.is_defender(seat)
    if defender and PARTNER[seat] not in played and trick[-1][0] != seat:
        if st.declarer in played and st.dummy in played:
            st.flag(out, IrregularityCode.PREMATURE_LEAD, "57A", seat, n, idx, [],
                     Text("play.premature_lead_no_penalty", "{seat} led {card} to the next trick before his partner "
                          "played; declarer had played from both hands: no penalty, the card goes back to his hand",
                          seat=seat, card=card), "no_penalty", "57C")
            return
        st.add_penalty_card(seat, card, major=True)
        ls = trick[0][1][0]
        irr = st.flag(out, IrregularityCode.PREMATURE_LEAD, "57A", seat, n, idx, options_57(st, ls, PARTNER[seat]),
                       Text("play.premature_lead", "{seat} led {card} to the next trick before his partner {partner} "
                            "played to this one: {card} is a major penalty card (57A, 50B)", seat=seat, card=card,
                            partner=PARTNER[seat]))
        st.await_choice(Pending(irr, seat, n, card, None, lead_suit=ls))
        establish_by_extra(st, seat, n)
        return
    code, law = ((IrregularityCode.MULTIPLE_CARDS_PLAYED, "58B") if trick[-1][0] == seat
                 else (IrregularityCode.FIFTH_CARD_TO_TRICK, "45E"))
    first = next(c for s, c in trick if s == seat)
    if defender:
        major = card[1] in HONORS or bool(st.face_up(seat))
        st.add_penalty_card(seat, card, major=major)
        kind = st.face_up(seat)[card]
        st.flag(out, code, law, seat, n, idx, [],
                 (Text("play.extra_card_major", "{seat} played {card} after {card2} to the same trick: not "
                       "counted; {card} becomes a major penalty card", seat=seat, card=card, card2=first)
                  if kind == "major" else
                  Text("play.extra_card_minor", "{seat} played {card} after {card2} to the same trick: not "
                       "counted; {card} becomes a minor penalty card", seat=seat, card=card, card2=first))
                 + (Text("play.extra_card_58b2", " (58B2: the player may designate which card was played; director)")
                    if code == IrregularityCode.MULTIPLE_CARDS_PLAYED
                    else Text("play.extra_card_45e1", " (45E1; the director may deem it a lead, 53/56)")),
                 "penalty_card", "58B2" if code == IrregularityCode.MULTIPLE_CARDS_PLAYED else "45E1")
    else:
        st.flag(out, code, law, seat, n, idx, [],
                 Text("play.extra_card_declarer", "{seat} played {card} after {card2} to the same trick: not "
                      "counted; no penalty for declarer (45E2, 48A); the card goes back to the hand", seat=seat,
                      card=card, card2=first), "no_penalty",
                 "45E2" if code == IrregularityCode.FIFTH_CARD_TO_TRICK else "48A")
