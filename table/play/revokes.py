"""Revokes (Laws 61-64): flagging, establishment, correction and the trick transfer at the end.

Policy: revokes are flagged and followed silently, OCCURRED (open) -> ``established`` (63A1 by the
offending side's play to a later trick, 63A3 on a claim) or ``corrected`` (``ruling("REVOKE", "correct")``
followed by the replacement card, 62). :func:`transfers` computes the Law 64 transfers at the end.
"""
from __future__ import annotations

from ..cards import Seat
from ..codes import IrregularityCode
from ..irregularity import Irregularity, Option
from ..texts import Text
from .errors import PlayRulingError
from .position import SIDE
from .records import Obligation, Revoke
from .state import PlayState

REVOKE_CODES = (IrregularityCode.REVOKE, IrregularityCode.REVOKE_TRICK12)


def flag_revoke(st: PlayState, out: list[Irregularity], seat: Seat, card: str, n: int, idx: int, suit: str,
                legal: frozenset[str], faced: bool, was_pc: bool, kind: str, detail: str,
                linked: Irregularity | None = None, ob: Obligation | None = None) -> Revoke:
    """Flag a revoke seen when the card is played (an open one, correctable under 62)."""
    corrector = str(st.declarer if seat == st.dummy else seat)
    if n == 12:
        code, law = IrregularityCode.REVOKE_TRICK12, "62D"
        opts = [Option("correct", Text("play.revoke12_correct", "62D1: must be corrected, even if established, "
                                       "before the hands are returned; no trick transfer (64B6)"), corrector)]
    else:
        code, law = IrregularityCode.REVOKE, "61A"
        opts = [Option("correct", Text("play.revoke_correct", "62A: the offender must correct it before it is "
                                       "established: withdraw the card (a defender's becomes a major penalty card, "
                                       "62B1; declarer/dummy: no penalty, 62B2) and play a legal card"), corrector)]
    opts += [Option("64B4", Text("play.revoke_64b4", "no transfer: attention first drawn after the non-offending "
                                 "side called on the next board"), "director"),
             Option("64B5", Text("play.revoke_64b5", "no transfer: attention first drawn after the round ended"),
                    "director")]
    irr = st.flag(out, code, law, seat, n, idx, opts, detail)
    rv = Revoke(irr, seat, n, card, suit, legal, faced, was_pc, kind, linked, ob)
    if kind == "follow":
        st.note_inferred_revoke(seat, suit)       # never flagged a second time by the no-record inference
    st.record_revoke(rv)
    return rv


def establish(st: PlayState, rv: Revoke, law: str) -> None:
    if rv in st.open_revokes:
        st.forget_revoke(rv)
    if rv.irr.open:
        rv.irr.dispose("established", law)


def establish_by_play(st: PlayState, seat: Seat, n: int) -> None:
    """63A1: a card by the offending side to trick ``n`` establishes its open revokes of earlier tricks."""
    side = SIDE[seat]
    for rv in list(st.open_revokes):
        if rv.side == side and rv.trick < n:
            establish(st, rv, "63A1")


def establish_by_extra(st: PlayState, seat: Seat, n: int) -> None:
    """A card not counted in a trick but led to the trick after ``n`` (a premature lead, a card played
    before declarer's corrected lead) still establishes the side's revokes up to trick ``n`` (63A1)."""
    for rv in list(st.open_revokes):
        if rv.side == SIDE[seat] and rv.trick <= n:
            establish(st, rv, "63A1")


def establish_on_claim(st: PlayState, claimer: Seat, acquiesced: bool) -> None:
    """63A3: a claim by the offending side, or its acquiescence in the opponents' claim."""
    for rv in list(st.open_revokes):
        if rv.side == SIDE[claimer] or acquiesced:
            establish(st, rv, "63A3")


def note_show_out(st: PlayState, seat: Seat, card: str, n: int, idx: int, out: list[Irregularity]) -> None:
    """Without a hand record a revoke shows when a seat plays a suit it failed to follow earlier."""
    trick = st.current_trick
    so = st.shown_out(seat)
    suit = card[0]
    if suit in so and st.infer_revoke_once(seat, suit):
        t, k, rcard = so[suit]
        code = IrregularityCode.REVOKE_TRICK12 if t == 12 else IrregularityCode.REVOKE
        irr = st.flag(out, code, "62D" if t == 12 else "61A", seat, t, k, [],
                       Text("play.revoke_retro", "{seat} played {card} on a {suit} lead at trick {trick} and {card2} "
                            "at trick {trick2}: failure to follow suit (44C), detected afterwards", seat=seat,
                            card=rcard, suit=suit, trick=t, card2=card, trick2=n), "established", "63A1")
        st.record_revoke(Revoke(irr, seat, t, rcard, suit, None, seat == st.dummy, False, "retro"), still_open=False)
    if idx > 0 and trick:
        ls = trick[0][1][0]
        if suit != ls and ls not in so:
            so[ls] = (n, idx, card)


def rule(st: PlayState, code: str, option: str, who: Seat | None) -> None:
    """``ruling("REVOKE" | "REVOKE_TRICK12", option)``: the director's 64B4/64B5 exemption or the
    offender's correction (62)."""
    if option in ("64B4", "64B5"):
        exempt(st, code, option, who)
    elif option == "correct":
        correct(st, code, who)
    else:
        raise PlayRulingError(Text("refusal.not_an_option_among", "'{option}' is not an option for {code}; the "
                                   "options are {options}", option=option, code=code, options="correct, 64B4, 64B5"))


def exempt(st: PlayState, code: str, option: str, who: Seat | None) -> None:
    rv = next((r for r in reversed(st.revokes) if r.irr.code == code and r.irr.disposition == "established"
               and (who is None or r.seat == who)), None)
    if rv is None:
        raise PlayRulingError(Text("refusal.no_revoke_to_exempt", "no established {code} to exempt", code=code))
    rv.exempt = option
    rv.irr.detail += Text("play.revoke_exempt", "; director: {option} (no transfer)", option=option)


def _both_on_one_trick(st: PlayState, rv: Revoke) -> bool:
    """2017 62C3: both sides revoked on this revoke's trick and only one side has played to the next trick:
    both revokes must be corrected, the established one too (then no transfer, 64B8)."""
    if not st.edition.comparable_call or rv.irr.disposition != "established" or len(st.tricks) <= rv.trick:
        return False
    other = any(o is not rv and o.side != rv.side and o.trick == rv.trick and o.irr.open for o in st.revokes)
    return other and all(SIDE[s] == rv.side for s, _ in st.tricks[rv.trick])


def correct(st: PlayState, code: str, who: Seat | None) -> None:
    """62: the revoke card is withdrawn (with every card played after it) and its trick resumes."""
    rv = next((r for r in reversed(st.revokes) if r.irr.code == code and r.kind != "retro" and
               (r.irr.open or (code == IrregularityCode.REVOKE_TRICK12 and r.irr.disposition == "established")
                or _both_on_one_trick(st, r))
               and (who is None or r.seat == who or (r.seat == st.dummy and who == st.declarer))), None)
    if rv is None:
        raise PlayRulingError(Text("refusal.no_revoke_to_correct", "no {code} that can still be corrected",
                                   code=code)
                              + ("" if code == IrregularityCode.REVOKE_TRICK12 else
                                 Text("refusal.established_revoke_stands", " (63C: once established a revoke "
                                      "stands, except on trick 12, 62D)")))
    if st.awaiting_insert is not None:
        raise PlayRulingError(Text("refusal.revoke_awaiting_card", "a revoke correction is still waiting for "
                                   "{seat}'s card", seat=st.awaiting_insert[0]))
    if (rv.seat, rv.card) not in st.tricks[rv.trick - 1]:
        raise PlayRulingError(Text("refusal.card_not_in_trick", "{card} is no longer in trick {trick}",
                                   card=rv.card, trick=rv.trick))
    T = rv.trick
    seat = rv.seat
    withdrawn: list[tuple[Seat, str]] = []
    last_complete = len(st.tricks) > T and len(st.tricks[-1]) == 4
    reopened = len(st.winners) >= T       # the revoke trick was complete: the next trick's start is undone
    for t in st.tricks[T:]:
        withdrawn += t                    # later cards: the non-offending side's (else established), or 62D
    del st.tricks[T:]
    del st.winners[T - 1:]
    for s, c in withdrawn:
        st.unplay(s, c)
    if reopened:
        st.drop_start_flags()
    for other in list(st.open_revokes):          # revokes made with withdrawn cards lapse
        if other is not rv and (other.seat, other.card) in withdrawn:
            st.forget_revoke(other)
            other.irr.dispose("card_withdrawn", "62C1")
    for q in st.choices:                          # choices about later tricks are moot
        if q.trick > T and q.irr.open:
            q.irr.dispose("card_withdrawn", "62C1")
    trick = st.resume_trick(T)
    idx = next(i for i, (s, c) in enumerate(trick) if s == seat and c == rv.card)
    if idx == 0:
        back = list(trick)
        trick.clear()
        for s, c in back:
            st.unplay(s, c)
            if s != seat:
                withdrawn.append((s, c))
        st.give_lead(seat)
    else:
        trick.pop(idx)
        st.unplay(seat, rv.card)
        st.give_lead(trick[0][0])
        st.hold_place(seat, idx)
    if rv.ob is not None:
        if rv.ob.law == "57A":
            st.restrict_play(rv.ob)
        else:
            st.restrict_lead(rv.ob)
    if st.is_defender(seat):
        st.add_penalty_card(seat, rv.card, major=True)
    law = ("62D1" if code == IrregularityCode.REVOKE_TRICK12
           else "62B1" if st.is_defender(seat) and not rv.was_pc else "62B2")
    if rv.irr.disposition == "established" and code == IrregularityCode.REVOKE:
        law = "62C3"                      # both sides revoked on this trick: corrected, no transfer (64B8)
    if rv in st.open_revokes:
        st.forget_revoke(rv)
    rv.irr.dispose("corrected", law)
    if withdrawn:
        rv.irr.detail += Text("play.withdrawn_62c1", "; withdrawn without penalty (62C1): {held}",
                              page="; withdrawn without penalty (62C1): {cards}",
                              held=" ".join(f"{s}:{c}" for s, c in withdrawn), cards=" ".join(c for _, c in withdrawn))
    if T == 12 and last_complete:
        st.expect_forced_last_trick(True)           # the 13th trick is forced: replayed once trick 12 is complete
    st.recompute_next()


def transfers(st: PlayState, claimed_total: int | None) -> int:
    """Declarer side's final total after the Law 64 transfers (see ``Play.finish``); records each established
    revoke as a ``REVOKE_TRICK_TRANSFER`` in ``st.irregularities``, replacing earlier records."""
    st.irregularities = [i for i in st.irregularities if i.code != IrregularityCode.REVOKE_TRICK_TRANSFER
                         and not (i.code == IrregularityCode.BOTH_SIDES_REVOKED and i.open)]
    decl = st.declarer.side
    other = "EW" if decl == "NS" else "NS"
    played = len(st.winners)
    sides: list[str | None] = [SIDE[w] for w in st.winners]
    seats: list[Seat | None] = list(st.winners)
    wcards: list[str | None] = []
    for t, w in enumerate(st.winners):
        wcards.append(next(c for s, c in st.tricks[t] if s == w))
    total = st.declarer_tricks
    if claimed_total is not None:
        unplayed = 13 - played
        dec_more = min(max(int(claimed_total) - total, 0), unplayed)
        sides += [decl] * dec_more + [other] * (unplayed - dec_more)
        seats += [None] * unplayed
        wcards += [None] * unplayed
        total += dec_more
        for rv in list(st.open_revokes):
            establish(st, rv, "63A3")
    for rv in list(st.open_revokes):
        if rv.irr.open:
            rv.irr.dispose("not_established", "63A")
    st.drop_settled_revokes()
    transferred: set[int] = set()
    delta = 0
    seen: list[Revoke] = []
    sides_revoked = {rv.side for rv in st.revokes if rv.irr.disposition == "established"}
    # both sides revoked, both established: no automatic transfer, the director restores equity (2017 64B7 and
    # 64C2(b); under the 1997 Laws the same by the WBF Laws Committee's 2001 minute on 64C)
    both = len(sides_revoked) == 2
    ed = st.edition
    if both and not any(i.code == IrregularityCode.BOTH_SIDES_REVOKED for i in st.irregularities):
        last = [rv for rv in st.revokes if rv.irr.disposition == "established"][-1].irr.position
        st.irregularities.append(Irregularity(
            code=IrregularityCode.BOTH_SIDES_REVOKED, law=ed.both_sides_revoked_law, seat=None, phase="play",
            position={"trick": last["trick"], "card": last["card"]},
            options=[Option("rule", Text("play.both_revoked_rule", "the director assigns the result likely had "
                                         "neither revoke occurred ({law})",
                                         law="64C2(b)" if ed.comparable_call else "64C"), "director")],
            detail=Text("play.both_revoked", "both sides have established revokes on this board: no automatic trick "
                        "transfer")))
    # a revoke is only known from the hand record; once the play contradicts that record (13A1) no
    # transfer is made automatically: the director decides (64C)
    contradicted = any(i.code == IrregularityCode.HAND_RECORD_MISMATCH for i in st.irregularities)
    for rv in st.revokes:
        if rv.irr.disposition != "established":
            continue
        T = rv.trick
        n, law, why = 0, "", ""
        os_tricks = [k for k in range(T, len(sides) + 1) if sides[k - 1] == rv.side and k not in transferred]
        if contradicted:
            law, why = "64C", "the play contradicts the hand record (13A1): transfer left to the director"
        elif both:
            law, why = ed.both_sides_revoked_law, "both sides revoked: no automatic transfer (director)"
        elif rv.exempt:
            law, why = rv.exempt, ("attention first drawn after the non-offending side called on the next board"
                                   if rv.exempt == "64B4" else "attention first drawn after the round ended")
        elif T == 12:
            law, why = "64B6", "revoke on the 12th trick (62D: to be corrected)"
        elif rv.faced:
            law, why = "64B3", (Text("play.why_dummy", "revoke by dummy (a hand faced on the table)")
                                if rv.seat == st.dummy else
                                Text("play.why_faced", "failure to play a card faced on the table"))
        elif any(o.seat == rv.seat and o.suit == rv.suit for o in seen):
            law, why = "64B2", Text("play.why_second", "second revoke by {seat} in {suit}", seat=rv.seat,
                                    suit=rv.suit)
        elif not os_tricks:
            law, why = "64B1", Text("play.why_none_won", "the offending side won neither the revoke trick nor any "
                                    "later trick")
        else:
            chosen: list[int] = []
            won_by = seats[T - 1] if T <= len(seats) else None
            if ed.dummy_win_counts_for_declarer and won_by == st.dummy and rv.seat == st.declarer:
                won_by = rv.seat                 # the 1997 reading that dummy's win is declarer's (switch)
            if won_by == rv.seat and T in os_tricks and rv.kind != "deemed":
                law = "64A1"
                chosen = [T] + [k for k in os_tricks if k > T][:1]
                why = (Text("play.why_won_two", "{seat} won the revoke trick: it and one later trick of the "
                            "offending side", seat=rv.seat) if len(chosen) == 2 else
                       Text("play.why_won_one", "{seat} won the revoke trick; no later trick of the offending side",
                            seat=rv.seat))
            else:
                law = "64A2"
                legal = rv.legal if rv.legal is not None else _known_legal(st, rv)
                extra = [k for k in os_tricks if k > T and seats[k - 1] == rv.seat
                         and wcards[k - 1] is not None and wcards[k - 1] in legal] if ed.revoke_extra_trick else []
                first = [k for k in os_tricks if k not in extra[:1]][:1]
                chosen = first + extra[:1]
                why = Text("play.why_not_won", "{seat} did not win the revoke trick: one trick", seat=rv.seat)
                if extra:
                    why += Text("play.why_extra", ", and trick {trick} won by {seat} with {card}, a card he could "
                                "legally have played to the revoke trick (1997 clause)", trick=extra[0], seat=rv.seat,
                                card=wcards[extra[0] - 1])
                    if not first:
                        why += Text("play.why_capped", "; capped: the offending side won no other trick from the "
                                    "revoke on")
            n = min(len(chosen), len(os_tricks))
            chosen = chosen[:n]
            transferred.update(chosen)
            delta += n if rv.side != decl else -n
        seen.append(rv)
        to = "EW" if rv.side == "NS" else "NS"
        pos = rv.irr.position
        st.irregularities.append(Irregularity(
            code=IrregularityCode.REVOKE_TRICK_TRANSFER, law=law, seat=str(rv.seat), phase="play",
            position={"trick": pos["trick"], "card": pos["card"]}, options=[],
            detail=Text("play.transfer", "tricks_transferred={n}; from {side} to {side2}; ",
                        page="{n} trick(s) transferred from {side} to {side2}; ", n=n, side=rv.side, side2=to) + why,
            disposition="applied" if n else "exempt", disposition_law=law))
    return total + delta


def _known_legal(st: PlayState, rv: Revoke) -> frozenset[str]:
    """Cards of the revoke suit the seat is known to have held at the revoke trick (no hand record)."""
    out = {c for t in st.tricks[rv.trick:] for s, c in t if s == rv.seat and c[0] == rv.suit}
    out |= {c for c in st.holding(rv.seat) if c[0] == rv.suit}
    return frozenset(out)
