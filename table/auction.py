"""The auction, Laws 17-39, as data: each call is applied to an ``Auction`` and any irregularity is
returned as an ``Irregularity`` (flag, don't block).

How irregular calls are carried: an irregular call that the laws let the offender's LHO accept by
calling (27A, 29A) is kept *tentatively standing*, so that when LHO calls over it nothing needs
rewinding. It is marked pending; a ``ruling`` (the LHO's or the director's choice) can cancel it and
install the rectification the law prescribes (forced passes with their exact scope, Law 26 lead
penalties, the Law 31A/32B follow-ups that depend on RHO's next call).

Calls that can never be accepted (inadmissible X/XX, 36; a call by a barred player, 37; a bid above
seven, 38) are also flagged at once. When the table nevertheless goes on and LHO calls over them the
seed's Law 35 settles them: an inadmissible X/XX and LHO's call over it are cancelled and the auction
reverts to the player whose turn it was (35A); a barred player's call stands (35B); a bid above seven
becomes a pass and LHO's call over it is cancelled, so LHO calls again (35C). Calls after the final
pass are cancelled (39); LHO calling over one removes its Law 26 lead penalty (35D).

The law book is the auction's ``edition`` (table/editions.py): the seed's 1997 rules above, or the 2017
Laws, where a withdrawn call replaced by a *comparable* call (Law 23) carries no rectification. There the
engine records the withdrawn call and the replacement and opens a ``COMPARABLE_CALL_RULING`` for the
director (comparable / not comparable, with the law's text); the auction goes on meanwhile, and the answer
installs the edition's consequences (none; or the partner's forced pass and the Law 26B prohibition).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from .calls import DOUBLE, PASS, REDOUBLE, STRAINS, bid_key, bid_level, bid_strain, is_bid
from .cards import SEATS, Seat
from .codes import IrregularityCode
from .editions import NEXT_TURN, P1, REST_OF_AUCTION, Edition, edition
from .errors import BridgeError
from .irregularity import Irregularity, LeadPenalty, Option
from .texts import Text

LAW23_TEXT = Text("auction.law23", "Law 23A: a call is comparable to a withdrawn call if it has the same or similar "
                  "meaning, defines a subset of the meanings of the withdrawn call, or has the same purpose (e.g. an "
                  "asking bid or a relay). 23B: replaced by a comparable call, the auction and play continue without "
                  "further rectification and the withdrawn call is not unauthorized information (16C2 does not "
                  "apply).")

# The fast path's view of a call, one dict hit per call: Pass -> 0, X -> -1, XX -> -2, a bid 1C..7NT -> its
# rank 1..35 (a higher rank is a sufficient bid, Law 18B/C). Bids above seven are absent on purpose: Law 38
# and every other irregular case go through the checked path.
_CALL_RANK: dict[str, int] = {PASS: 0, DOUBLE: -1, REDOUBLE: -2,
                              **{f"{level}{s}": 5 * (level - 1) + i + 1 for level in range(1, 8)
                                 for i, s in enumerate(STRAINS)}}
_LHO = {s: s.lho for s in SEATS}       # a dict hit instead of a property call


class AuctionRulingError(BridgeError, ValueError):
    """A ruling that does not apply to the auction as it stands."""


@dataclass(slots=True)
class CallEntry:
    index: int                 # position among all calls made (cancelled ones included)
    seat: Seat
    call: str                  # as made
    alert: bool = False
    effective: str = ""        # what it counts as: the call, or Pass (35C), or "" when it has no effect (35A)
    stands: bool = True        # False once cancelled
    skipped: tuple[Seat, ...] = ()   # seats whose turn this (accepted) out-of-rotation call skipped (Law 34)
    deemed: bool = False       # a compulsory pass deemed made (28A)
    explanation: str = ""      # the caller's written explanation of his alerted call, for the opponents (Law 20F)


@dataclass(slots=True)
class PendingCall:
    irr: Irregularity
    entry: CallEntry
    kind: IrregularityCode
    turn_of: Seat              # whose turn it was when the call was made
    where: str = ""            # "RHO" | "PARTNER" | "LHO" relative to the offender (out of rotation)
    replaced: CallEntry | None = None   # change of call: the first call


@dataclass(slots=True)
class _Watch:
    """A consequence that depends on a later call (31A, 32B, 27B replacement; 2017: the offender's next call
    opens a Law 23 comparable-call ruling)."""
    kind: str
    offender: Seat
    irr: Irregularity
    call: str = ""
    situation: str = ""        # kind "23": the row of the edition's rectification matrix


@dataclass(slots=True)
class _Comparable:
    """A Law 23 comparable-call question waiting for the director (2017)."""
    irr: Irregularity          # the COMPARABLE_CALL_RULING flag
    source: Irregularity       # the irregularity that withdrew the call
    offender: Seat
    withdrawn: int             # index of the withdrawn call
    replacement: int           # index of the replacing call
    situation: str


def _related_suits(call: str) -> frozenset[str]:
    """Suits a natural withdrawn call relates to (Law 26A); NT, X, XX and Pass relate to none."""
    if is_bid(call) and bid_strain(call) != "NT":
        return frozenset(bid_strain(call))
    return frozenset()


class Auction:
    __slots__ = ("dealer", "calls", "stood", "irregularities", "pending", "obligations", "no_double_now",
                 "lead_penalties", "closed", "passed_out", "_turn", "_watches", "_last_bid", "_risk_entry",
                 "_contract_memo", "edition", "comparable", "no_automatic_score")

    def __init__(self, dealer: Seat, laws: Edition | str | None = None) -> None:
        self.dealer = dealer if dealer.__class__ is Seat else Seat(dealer)
        self.edition = edition(laws)
        self.comparable: list[_Comparable] = []         # Law 23 questions (2017), open or answered
        self.no_automatic_score = False                 # 1997: an inadmissible call found after the lead
        self.calls: list[CallEntry] = []
        self.stood: list[CallEntry] = []
        self.irregularities: list[Irregularity] = []
        self.pending: PendingCall | None = None
        self.obligations: dict[Seat, str] = {}
        self.no_double_now: set[Seat] = set()       # Law 30B2b
        self.lead_penalties: list[LeadPenalty] = []
        self.closed = False
        self.passed_out = False
        self._turn: Seat | None = None           # turn override (Law 34 reversion, 29B cancellation)
        self._watches: list[_Watch] = []
        self._last_bid: CallEntry | None = None
        self._risk_entry: CallEntry | None = None   # the X/XX in effect over the last bid
        # (last bid, risk, calls standing, contract)
        self._contract_memo: tuple[CallEntry, CallEntry | None, int, tuple[str, str, Seat]] | None = None

    # ------------------------------------------------------------------ queries
    @property
    def next_seat(self) -> Seat:
        if self._turn is not None:
            return self._turn
        return self.stood[-1].seat.lho if self.stood else self.dealer

    def contract(self) -> tuple[str, str, Seat] | None:
        """(bid, risk, declarer) once closed with a bid; None when open or passed out."""
        if not self.closed or self._last_bid is None:
            return None
        last = self._last_bid
        memo = self._contract_memo                  # read several times a board; changes only with the calls
        if memo is not None and memo[0] is last and memo[1] is self._risk_entry and memo[2] == len(self.stood):
            return memo[3]
        strain, side = bid_strain(last.effective), last.seat.side
        declarer = next(e.seat for e in self.stood
                        if e.effective and is_bid(e.effective) and e.seat.side == side
                        and bid_strain(e.effective) == strain)
        risk = self._risk_entry.effective if self._risk_entry else ""
        value = (last.effective, risk, declarer)
        self._contract_memo = (last, self._risk_entry, len(self.stood), value)
        return value

    def can_double(self, seat: Seat) -> bool:
        """Law 19A1: only the last bid, made by an opponent, with only passes since."""
        last = self._last_effective()
        return last is not None and is_bid(last.effective) and last.seat.side != seat.side

    def can_redouble(self, seat: Seat) -> bool:
        """Law 19B1: only the last double, made by an opponent, with only passes since."""
        last = self._last_effective()
        return last is not None and last.effective == DOUBLE and last.seat.side != seat.side

    def _last_effective(self) -> CallEntry | None:
        for e in reversed(self.stood):
            if e.effective and e.effective != PASS:
                return e
        return None

    # ------------------------------------------------------------------ applying calls
    def call(self, seat: Seat, call: str, alert: bool = False) -> list[Irregularity]:
        if seat.__class__ is not Seat:          # Seat(...) costs an enum call; events already carry Seats
            seat = Seat(seat)
        calls = self.calls
        entry = CallEntry(len(calls), seat, call, alert, call)
        calls.append(entry)
        # Fast path, the common case: the player whose turn it is makes a legal call while nothing is pending,
        # no later-call consequence is watched and the player is under no obligation. It does exactly what
        # _classify + _stand do for such a call (checked in the same order), without their general tests;
        # anything else falls through to the checked path below.
        rank = _CALL_RANK.get(call)
        if (rank is not None and self.pending is None and not self.closed and not self._watches
                and not self.no_double_now and seat not in self.obligations):
            stood = self.stood
            exp = self._turn
            if exp is None:
                exp = _LHO[stood[-1].seat] if stood else self.dealer
            if seat is exp:
                if rank > 0:                                    # a bid: sufficient over the last bid (27)?
                    last = self._last_bid
                    # a last bid above seven (no rank) is left to the checked path
                    if last is None or rank > _CALL_RANK.get(last.effective, 99):
                        self._turn = None
                        stood.append(entry)
                        self._last_bid = entry
                        self._risk_entry = None
                        return []                               # a bid never closes the auction
                elif rank == 0:                                 # a pass is always legal here
                    self._turn = None
                    stood.append(entry)
                    if len(stood) >= 4 and stood[-2].effective == PASS == stood[-3].effective:
                        n0 = len(self.irregularities)
                        self._check_closure()                   # may close, or revert (34) and flag
                        return self.irregularities[n0:]
                    return []
                elif self.can_double(seat) if rank == -1 else self.can_redouble(seat):    # Law 19 (36)
                    self._turn = None
                    stood.append(entry)
                    self._risk_entry = entry
                    return []
        if self.closed:
            return self._after_final_pass(entry)
        flagged: list[Irregularity] = []
        n0 = len(self.irregularities)
        if self.pending is not None:
            done = self._resolve_pending_by_call(entry, flagged)
            if done:
                return self._with_side_flags(flagged, n0)
        if self._watches:
            self._run_watches(entry, flagged)
        self.classify(entry, flagged)
        if len(self.irregularities) - n0 != len(flagged):
            return self._with_side_flags(flagged, n0)
        return flagged

    def _with_side_flags(self, flagged: list[Irregularity], n0: int) -> list[Irregularity]:
        """Add flags raised on the way (Law 34 reversion inside the closure test) to the returned list."""
        seen = {id(i) for i in flagged}
        flagged.extend(i for i in self.irregularities[n0:] if id(i) not in seen)
        return flagged

    def classify(self, entry: CallEntry, flagged: list[Irregularity]) -> None:
        seat, call = entry.seat, entry.call
        exp = self.next_seat
        if seat != exp and seat.rho == exp and self.obligations.get(exp):
            self._deem_pass(exp)              # Law 28A: RHO's compulsory pass is deemed made
            if self.closed:                   # ... and it was the final pass: this call comes after it (39)
                flagged.extend(self._after_final_pass(entry))
                return
            exp = seat
        ed = self.edition
        review, lead_law = ed.damage_review_law, ed.lead_restriction_law
        if is_bid(call) and bid_level(call) > 7:
            self._flag_pending(entry, IrregularityCode.BID_ABOVE_SEVEN, "38", exp, flagged,
                               [Option("cancel", Text("auction.cancel_side_passes", "bid cancelled; both members "
                                                      "of the offending side pass for the rest of the auction (Law "
                                                      "{review}); Law {lead_law} lead penalty", review=review,
                                                      lead_law=lead_law), "director")],
                               detail=Text("auction.above_seven", "no contract above seven may be played"))
            return
        if seat != exp:
            self._out_of_rotation(entry, exp, flagged)
            return
        obligation = self.obligations.get(seat)
        if obligation and call != PASS:
            self._flag_pending(entry, IrregularityCode.CALL_IN_VIOLATION_OF_PASS_OBLIGATION, "37", exp, flagged,
                               [Option("cancel", Text("auction.call_cancel_side_passes", "call cancelled; both "
                                                      "members of the offending side pass for the rest of the "
                                                      "auction (Law {review}); Law {lead_law} lead penalty",
                                                      review=review, lead_law=lead_law), "director")],
                               detail=Text("auction.required_to_pass_next_turn", "{seat} was required to pass "
                                           "(next turn)", seat=seat) if obligation == NEXT_TURN else
                               Text("auction.required_to_pass_rest", "{seat} was required to pass (rest of "
                                    "auction)", seat=seat))
            return
        if call in (DOUBLE, REDOUBLE) and seat in self.no_double_now:
            irr = self._irr(IrregularityCode.FORBIDDEN_DOUBLE_AFTER_30B2, "30B2b", entry,
                            [Option("rule", Text("auction.no_specific_rectification", "the seed gives no specific "
                                                 "rectification: director rules"), "director")],
                            detail=Text("auction.double_barred_30b2", "partner's pass out of rotation barred a double "
                                        "or redouble at this turn"))
            flagged.append(irr)
        if call == DOUBLE and not self.can_double(seat) or call == REDOUBLE and not self.can_redouble(seat):
            code = IrregularityCode.INADMISSIBLE_DOUBLE if call == DOUBLE else IrregularityCode.INADMISSIBLE_REDOUBLE
            self._flag_pending(entry, code, "36", exp, flagged,
                               [Option("cancel", Text("auction.inadmissible_cancel", "cancelled; offender "
                                                      "substitutes a legal call; partner passes for the rest of the "
                                                      "auction (Law {review}); Law {lead_law} lead penalty",
                                                      review=review, lead_law=lead_law), "director")],
                               detail=Text("auction.double_needs_bid", "Law 19: a double needs an opponent's last bid "
                                           "with only passes since") if call == DOUBLE else
                               Text("auction.redouble_needs_double", "Law 19: a redouble needs an opponent's last "
                                    "double with only passes since"))
            return
        if is_bid(call) and self._last_bid is not None and bid_key(call) <= bid_key(self._last_bid.effective):
            refuse = Text("auction.insufficient_refuse_1997", "offender substitutes a sufficient bid or pass (27B1: "
                          "lowest sufficient bid in the same denomination, no penalty; 27B2: otherwise partner passes "
                          "for the rest of the auction; 27B3: X/XX cancelled)") if not ed.comparable_call else Text(
                          "auction.insufficient_refuse_2017", "offender substitutes a legal call (27B1(a): lowest "
                          "sufficient bid in the same denomination, no rectification; 27B1(b): a comparable call (Law "
                          "23, director), no rectification; 27B2/B3: otherwise partner passes for the rest of the "
                          "auction, Law 26B)")
            self._flag_pending(entry, IrregularityCode.INSUFFICIENT_BID, "27", exp, flagged,
                               [Option("accept", Text("auction.insufficient_accept", "accept the insufficient "
                                                      "bid (Law 27A); calling accepts it"), str(seat.lho)),
                                Option("refuse", refuse, str(seat.lho))],
                               detail=Text("auction.insufficient", "{call} does not exceed {call2}", call=call,
                                           call2=self._last_bid.effective))
            return
        self._stand(entry)

    def _stand(self, entry: CallEntry) -> None:
        """Append a call that stands in rotation and close the auction when the laws say so."""
        seat = entry.seat
        self._turn = None
        if self.obligations.get(seat) == NEXT_TURN:
            del self.obligations[seat]
        self.no_double_now.discard(seat)
        self.stood.append(entry)
        eff = entry.effective
        if eff and is_bid(eff):
            self._last_bid = entry
            self._risk_entry = None
        elif eff in (DOUBLE, REDOUBLE):
            self._risk_entry = entry
        self._check_closure()

    def _check_closure(self) -> None:
        st = self.stood
        n = len(st)
        if n < 4 or not (st[-1].effective == st[-2].effective == st[-3].effective == PASS):
            return
        p = self.pending
        if p is not None and p.entry is st[-1] and p.irr.open:
            return    # a tentatively standing pass (out of rotation, or a changed call) ends nothing until accepted
        if n == 4 and st[0].effective == PASS or self._last_bid is not None:
            # Law 34: a pass out of rotation among the three that skipped a player keeps the auction open
            for k in range(n - 3, n):
                if st[k].skipped:
                    self._law34_revert(k)
                    return
            # (four passes standing are four different players: rotation continues from each standing call,
            # so an out-of-rotation first pass deprived nobody -- all four passed, Law 22A)
            self.closed = True
            self.passed_out = self._last_bid is None
            self.obligations.clear()
            if self.lead_penalties and not self.passed_out:
                if self.edition.comparable_call:
                    self._law26b_specified()
                else:
                    self._law26a1()

    def _law26a1(self) -> None:
        """Law 26A1: no lead penalty for a suit the offender later named legally in the auction."""
        def named_later(lp: LeadPenalty) -> bool:
            return any(e.seat == lp.offender and e.index > lp.call_index and e.effective and is_bid(e.effective)
                       and bid_strain(e.effective) in lp.suits for e in self.stood)
        self.lead_penalties = [lp for lp in self.lead_penalties if not (lp.suits and named_later(lp))]

    def specified_suits(self, seat: Seat) -> frozenset[str]:
        """Suits ``seat`` specified in the legal auction by natural bids (2017 Law 26B: declarer may prohibit
        any one suit but these). Suits shown by artificial calls are the director's to add (29C)."""
        return frozenset(bid_strain(e.effective) for e in self.stood
                         if e.seat == seat and e.effective and is_bid(e.effective) and bid_strain(e.effective) != "NT")

    def _law26b_specified(self) -> None:
        """2017 Law 26B: the suits the offender specified legally are not open to the prohibition."""
        self.lead_penalties = [replace(lp, specified=self.specified_suits(Seat(lp.offender)))
                               for lp in self.lead_penalties]

    def after_opening_lead(self) -> list[Irregularity]:
        """The opening lead is faced: an inadmissible X/XX the table went on without noticing is found now.
        2017 36C: the contract is scored as if it had not been made; 1997: no rule (35A would revert an
        auction that is over), so the director decides and no score is computed automatically."""
        out: list[Irregularity] = []
        for irr in list(self.irregularities):
            if irr.code not in (IrregularityCode.INADMISSIBLE_DOUBLE, IrregularityCode.INADMISSIBLE_REDOUBLE) \
                    or irr.disposition != "unnoticed":
                continue
            entry = self.calls[irr.position["call"]]
            if self.edition.law36c_score_without_call:
                entry.effective = ""
                self._recompute_bids()
                irr.dispose("scored_as_if_not_made", "36C")
                new = self._irr(IrregularityCode.INADMISSIBLE_CALL_36C, "36C", entry, [],
                                detail=Text("auction.inadmissible_36c", "{seat}'s {call} was inadmissible and first "
                                            "noticed after the opening lead: the contract is scored as if it had not "
                                            "been made", seat=entry.seat, call=entry.call))
                new.dispose("scored_as_if_not_made", "36C")
            else:
                self.no_automatic_score = True
                irr.dispose("noticed_after_lead", "35A")
                new = self._irr(IrregularityCode.DIRECTOR_REQUIRED, "35A", entry,
                                [Option("rule", Text("auction.no_rule_after_lead", "this edition has no rule once the "
                                                     "opening lead is faced (35A would revert the auction): the "
                                                     "director rules; no automatic score"), "director")],
                                detail=Text("auction.inadmissible_after_lead", "{seat}'s inadmissible {call} first "
                                            "noticed after the lead", seat=entry.seat, call=entry.call))
            out.append(new)
        return out

    def _law34_revert(self, k: int) -> None:
        oor = self.stood[k]
        irr = self._irr(IrregularityCode.PASS_OOR_DEPRIVED_TURN, "34", oor, [],
                        detail=Text("auction.law34", "{seat} lost his turn; the auction reverts to him and the "
                                    "passes after the pass out of rotation are cancelled", seat=oor.skipped[0]))
        irr.dispose("auction_reverted", "34")
        for later in self.stood[k + 1:]:
            later.stands = False
        del self.stood[k + 1:]
        skipped = oor.skipped[0]
        oor.skipped = ()
        self._turn = skipped

    def _deem_pass(self, seat: Seat) -> None:
        e = CallEntry(len(self.calls), seat, PASS, False, PASS, deemed=True)
        self.calls.append(e)
        self._stand(e)

    # ------------------------------------------------------------------ irregular calls
    def _irr(self, code: IrregularityCode, law: str, entry: CallEntry, options: list[Option],
             detail: str = "") -> Irregularity:
        irr = Irregularity(code, law, str(entry.seat), "auction", {"call": entry.index}, options, detail)
        self.irregularities.append(irr)
        return irr

    def _flag_pending(self, entry: CallEntry, code: IrregularityCode, law: str, turn_of: Seat,
                      flagged: list[Irregularity], options: list[Option], where: str = "", detail: str = "") -> None:
        irr = self._irr(code, law, entry, options, detail)
        flagged.append(irr)
        if self.pending is not None and self.pending.irr.open:
            self.pending.irr.dispose("superseded_by_later_irregularity")
        self.pending = PendingCall(irr, entry, code, turn_of, where)
        if where and entry.seat != turn_of:
            entry.skipped = self._seats_between(turn_of, entry.seat)
        self._stand(entry)          # tentatively standing: LHO accepts simply by calling

    @staticmethod
    def _seats_between(first: Seat, offender: Seat) -> tuple[Seat, ...]:
        out, s = [], first
        while s != offender:
            out.append(s)
            s = s.lho
        return tuple(out)

    def _out_of_rotation(self, entry: CallEntry, exp: Seat, flagged: list[Irregularity]) -> None:
        seat, call = entry.seat, entry.call
        where = "RHO" if exp == seat.rho else "PARTNER" if exp == seat.partner else "LHO"
        if where == "LHO" and any(e.seat == seat for e in self.stood):
            self._change_of_call(entry, exp, flagged)
            return
        any_bid = self._last_bid is not None
        accept = Option("accept", Text("auction.oor_accept", "accept the call out of rotation (Law 29A); calling "
                                       "accepts it"), str(seat.lho))
        kind = "pass" if call == PASS else "bid" if is_bid(call) else "double"
        admissible = kind != "double" or (self.can_double(seat) if call == DOUBLE else self.can_redouble(seat))
        law, rect = self.edition.out_of_rotation(kind, where, any_bid, admissible)
        cancel = Text("auction.oor_cancel", "call cancelled (29B); ") + rect
        options = ([accept] if admissible else []) + [Option("cancel", cancel, str(seat.lho))]
        if kind == "pass":
            code, detail = IrregularityCode.PASS_OUT_OF_ROTATION, Text("auction.passed_oor", "{seat} passed at "
                                                                       "{seat2}'s turn", seat=seat, seat2=exp)
        elif kind == "bid":
            code, detail = IrregularityCode.BID_OUT_OF_ROTATION, Text("auction.bid_oor", "{seat} bid {call} at "
                                                                      "{seat2}'s turn", seat=seat, call=call, seat2=exp)
        else:
            code = (IrregularityCode.DOUBLE_OUT_OF_ROTATION if call == DOUBLE
                    else IrregularityCode.REDOUBLE_OUT_OF_ROTATION)
            detail = (Text("auction.doubled_oor", "{seat} doubled at {seat2}'s turn", seat=seat, seat2=exp)
                      if call == DOUBLE else
                      Text("auction.redoubled_oor", "{seat} redoubled at {seat2}'s turn", seat=seat, seat2=exp))
            if not admissible:
                detail += Text("auction.inadmissible_oor", "; inadmissible (Law 19), cannot be accepted ({law})",
                               law=self.edition.inadmissible_oor_law)
        self._flag_pending(entry, code, law, exp, flagged, options, where, detail=detail)
        if not admissible:
            entry.effective = ""

    def _change_of_call(self, entry: CallEntry, exp: Seat, flagged: list[Irregularity]) -> None:
        """The same player calls again before his LHO (Law 25): the substitute tentatively replaces the first."""
        # his own call: the last one standing, except after a Law 34 reversion (another player's pass is last)
        first = next(e for e in reversed(self.stood) if e.seat == entry.seat)
        accept = Option("accept", Text("auction.change_accept", "LHO accepts the substituted call (25B1); calling "
                                       "accepts it"), str(entry.seat.lho))
        opts = [Option("unintended", Text("auction.change_unintended", "the first call was unintended (a mechanical "
                                          "error or slip of the tongue): the substitute stands, no rectification "
                                          "(25A)"), "director"),
                accept,
                Option("original_stands", Text("auction.change_original_stands", "the original call stands, partner "
                                               "is free; the substitute is unauthorized information to partner "
                                               "(25B2)"), "director"),
                Option("original_stands_26B", Text("auction.change_original_26b", "the original call stands (25B2) "
                                                   "and the director applies Law 26B"), "director"),
                ] if self.edition.comparable_call else [
                Option("inadvertent", Text("auction.change_inadvertent", "the first call was inadvertent and "
                                           "corrected without pause for thought: the substitute stands (25A)"),
                       "director"),
                accept,
                Option("first_stands", Text("auction.change_first_stands", "first call stands; partner passes at "
                                            "his next turn (25B2b1); Law 26"), str(entry.seat)),
                Option("other_call", Text("auction.change_other_call", "substitute stands; offending side scores at "
                                          "most average minus (25B2b2); Law 26"), str(entry.seat))]
        irr = self._irr(IrregularityCode.CHANGE_OF_CALL, "25", entry, opts,
                        detail=Text("auction.changed", "{call} changed to {call2}", call=first.call,
                                    call2=entry.call))
        flagged.append(irr)
        self.stood.remove(first)
        first.stands = False
        self._recompute_bids()
        self.pending = PendingCall(irr, entry, IrregularityCode.CHANGE_OF_CALL, exp, "LHO", replaced=first)
        self._stand(entry)

    def _recompute_bids(self) -> None:
        self._last_bid = self._risk_entry = None
        for e in self.stood:
            if e.effective and is_bid(e.effective):
                self._last_bid, self._risk_entry = e, None
            elif e.effective in (DOUBLE, REDOUBLE):
                self._risk_entry = e

    def _after_final_pass(self, entry: CallEntry) -> list[Irregularity]:
        """Law 39: cancelled; a defender's bid, double or redouble brings Law 26."""
        entry.stands = False
        c = self.contract()
        defender = c is not None and entry.seat.side != c[2].side
        penalised = self.edition.rect("after_final_pass").law          # 1997 39B, 2017 39C
        law = penalised if defender and entry.call != PASS else "39A"
        irr = self._irr(IrregularityCode.CALL_AFTER_FINAL_PASS, law, entry, [],
                        detail=Text("auction.after_final_pass", "{call} after the auction closed", call=entry.call))
        irr.dispose("cancelled", law)
        prev = self.calls[entry.index - 1] if entry.index else None
        if prev is not None and not prev.stands and entry.seat == prev.seat.lho:
            # LHO called over a call made after the final pass: no penalty for it (1997 35D, 2017 39B)
            for old in reversed(self.irregularities):
                if old.code == IrregularityCode.CALL_AFTER_FINAL_PASS and old.position.get("call") == prev.index:
                    if old.disposition_law == penalised:
                        self.lead_penalties = [lp for lp in self.lead_penalties if lp.call_index != prev.index]
                        old.dispose("condoned_no_penalty", "39B" if self.edition.comparable_call else "35D")
                    break
        if law == penalised:
            self.impose_lead_penalty(entry, irr)
        return [irr]

    def impose_lead_penalty(self, entry: CallEntry, irr: Irregularity, call: str | None = None) -> None:
        if self.edition.lead_restriction_law == "26B":
            # 2017 Law 26B: prohibit one suit the offender did not specify legally (known when the auction ends)
            lp = LeadPenalty(str(entry.seat), str(entry.seat.partner), "26B", frozenset(), irr.code, entry.index)
            if self.closed:
                lp = replace(lp, specified=self.specified_suits(entry.seat))
            self.lead_penalties.append(lp)
            irr.options.append(Option("lead_penalty", Text("auction.lead_penalty_2017", "if {seat} defends: at "
                                                           "{partner}'s first turn to lead declarer may prohibit one "
                                                           "suit not specified legally by {seat} (26B)",
                                                           seat=entry.seat, partner=entry.seat.partner), "declarer"))
            return
        suits = _related_suits(call or entry.call)
        self.lead_penalties.append(LeadPenalty(str(entry.seat), str(entry.seat.partner), "26A" if suits else "26B",
                                               suits, irr.code, entry.index))
        irr.options.append(Option("lead_penalty", Text("auction.lead_penalty_26a", "if {seat} defends: at "
                                                       "{partner}'s first lead declarer may require or forbid {suits} "
                                                       "(26A2)", seat=entry.seat, partner=entry.seat.partner,
                                                       suits="/".join(sorted(suits))) if suits else
                                  Text("auction.lead_penalty_26b", "if {seat} defends: at {partner}'s first lead "
                                       "declarer may forbid one suit he names (26B)", seat=entry.seat,
                                       partner=entry.seat.partner), "declarer"))

    # ------------------------------------------------------------------ acceptance by action, 28B, replacements
    def _resolve_pending_by_call(self, entry: CallEntry, flagged: list[Irregularity]) -> bool:
        """Apply what the laws say when a call arrives while an irregularity is pending.
        Returns True when the call has been fully handled."""
        p = self.pending
        assert p is not None
        offender = p.entry.seat
        if not p.irr.open:
            self.pending = None
            return False
        if p.where == "refused":
            if entry.seat != offender:
                return False          # someone else calls first: classified as usual (likely out of rotation)
            self.pending = None
            self._replace_insufficient(p, entry, flagged)
            return True
        if entry.seat == offender.lho or (p.kind == IrregularityCode.CALL_IN_VIOLATION_OF_PASS_OBLIGATION
                                          and self.next_seat == entry.seat):
            self.pending = None
            kind = p.kind
            if kind in (IrregularityCode.INADMISSIBLE_DOUBLE, IrregularityCode.INADMISSIBLE_REDOUBLE) or \
                    kind.endswith(IrregularityCode.DOUBLE_OUT_OF_ROTATION) and not p.entry.effective:
                # 35A: the X/XX and all later calls (LHO's) are cancelled; back to the player whose turn it was
                self._cancel(p.entry)
                entry.stands = False
                self._turn = p.turn_of
                p.irr.dispose("condoned_no_effect", self.edition.rect("inadmissible_condoned").law)
                return True
            elif kind == IrregularityCode.CALL_IN_VIOLATION_OF_PASS_OBLIGATION:
                p.irr.dispose("condoned_stands", self.edition.rect("barred_call_condoned").law)
            elif kind == IrregularityCode.BID_ABOVE_SEVEN:
                # the bid and LHO's call are cancelled, the offender's pass is substituted; LHO calls again
                # (1997 35C, no bar; 2017 38C, both members of the offending side pass for the rest, no 26B)
                p.entry.effective = PASS
                entry.stands = False
                self._recompute_bids()
                rect = self.edition.rect("above_seven_condoned")
                p.irr.dispose("condoned_offender_passes", rect.law)
                if rect.partner_pass:
                    self.obligations[offender] = self.obligations[offender.partner] = REST_OF_AUCTION
                self._check_closure()
                return True
            elif kind == IrregularityCode.CHANGE_OF_CALL:
                p.irr.dispose("accepted_by_action", "25B1")
                self._check_closure()
                if self.closed:            # the accepted substitute was the final pass: LHO's call comes after it
                    flagged.extend(self._after_final_pass(entry))
                    return True
            else:
                p.irr.dispose("accepted_by_action", "27A" if kind == IrregularityCode.INSUFFICIENT_BID else "29A")
            return False
        if p.where and entry.seat == p.turn_of and entry.seat.side != offender.side:
            # Law 28B: the player whose turn it was calls: the call out of rotation is cancelled, no rectification
            self._cancel(p.entry)
            p.irr.dispose("rotation_restored", "28B")
            self.pending = None
            return False
        if p.where == "PARTNER" and entry.seat == p.turn_of:
            # the offender's partner, whose turn it was, calls before the ruling: 28B covers only an opponent
            # of the offender, so LHO keeps his options (29/30-32); the partner's call awaits the director
            entry.stands = False
            irr = self._irr(IrregularityCode.OTHER_CALL_BEFORE_RECTIFICATION, "9B2", entry,
                            [Option("rule", f"{offender}'s call out of rotation is still open for {offender.lho}; "
                                    "Law 28B does not apply to the offender's partner: the director rules "
                                    "(29B, 30-32)", "director")],
                            detail=f"{entry.seat} called {entry.call} before the ruling on {offender}'s "
                                   f"{p.entry.call}")
            flagged.append(irr)
            return True
        if entry.seat == offender and p.kind == IrregularityCode.INSUFFICIENT_BID:
            # replacement without an explicit refusal: LHO did not accept (27B)
            self._cancel(p.entry)
            self.pending = None
            self._replace_insufficient(p, entry, flagged)
            return True
        return False

    def _cancel(self, entry: CallEntry) -> None:
        entry.stands = False
        if entry in self.stood:
            idx = self.stood.index(entry)
            for later in self.stood[idx + 1:]:
                later.stands = False
            del self.stood[idx:]
        self._recompute_bids()
        self.closed = self.passed_out = False

    def _replace_insufficient(self, p: PendingCall, entry: CallEntry, flagged: list[Irregularity]) -> None:
        """27B: the offender's replacement of an insufficient bid (the edition's rule)."""
        self.edition.replace_insufficient(self, p, entry, flagged)

    # ------------------------------------------------------------------ operations the editions' rules use
    def lowest_sufficient_same(self, call: str) -> str | None:
        """The lowest sufficient bid in the denomination of the bid ``call`` (27B1), or None (none, or no bid)."""
        if not is_bid(call) or self._last_bid is None:
            return None
        level = bid_level(call)
        while level <= 7 and bid_key(f"{level}{bid_strain(call)}") <= bid_key(self._last_bid.effective):
            level += 1
        return f"{level}{bid_strain(call)}" if level <= 7 else None

    def give_turn(self, seat: Seat) -> None:
        """The next call is ``seat``'s (an offender who must still call, 27B3)."""
        self._turn = seat

    def watch(self, kind: str, offender: Seat, irr: Irregularity, call: str, situation: str = "") -> None:
        """Settle ``irr`` on a later call (31A, 32B at RHO's call; 2017 ``"23"``: the offender's next call opens
        the comparable-call ruling for ``situation``)."""
        self._watches.append(_Watch(kind, offender, irr, call, situation))

    def ask_comparable(self, offender: Seat, irr: Irregularity, withdrawn: str, situation: str,
                       entry: CallEntry) -> None:
        """2017 23: the offender's replacement ``entry`` is in; ask the director whether it is comparable."""
        self._open_comparable(_Watch("23", offender, irr, withdrawn, situation), entry)

    def _run_watches(self, entry: CallEntry, flagged: list[Irregularity]) -> None:
        keep = []
        for w in self._watches:
            if w.kind == "31A" and entry.seat == w.offender.rho:
                if entry.call == PASS:
                    w.kind = "31A1"                          # the offender must now repeat the bid
                    keep.append(w)
                else:
                    w.kind = "31A2"
                    keep.append(w)
            elif w.kind == "32B" and entry.seat == w.offender.rho:
                if entry.call == PASS:
                    w.kind = "32B1"
                    keep.append(w)
                elif self.edition.comparable_call:
                    keep.append(_Watch("23", w.offender, w.irr, w.call, "double_oor_rho_acts"))
                else:
                    self.obligations[w.offender.partner] = REST_OF_AUCTION
                    w.irr.dispose("rectified", "32B2")
                    self.impose_lead_penalty(self.calls[w.irr.position["call"]], w.irr, w.call)   # Law 26B
            elif w.kind in ("31A1", "32B1") and entry.seat == w.offender:
                law = self.edition.rect("bid_oor_rho_passes" if w.kind == "31A1" else "double_oor_rho_passes").law
                if entry.call != w.call:
                    irr = self._irr(IrregularityCode.CALL_NOT_REPEATED, law, entry,
                                    [Option("rule", Text("auction.had_to_repeat", "{seat} had to repeat {call}",
                                                         seat=w.offender, call=w.call), "director")])
                    flagged.append(irr)
                w.irr.dispose("rectified", law)
            elif w.kind == "23" and entry.seat == w.offender:
                self._open_comparable(w, entry)
            elif w.kind == "31A2" and entry.seat == w.offender and self.edition.comparable_call:
                w.situation = "bid_oor_rho_acts"
                self._open_comparable(w, entry)
            elif w.kind == "31A2" and entry.seat == w.offender:
                if is_bid(entry.call) and bid_strain(entry.call) == bid_strain(w.call):
                    self.obligations[w.offender.partner] = NEXT_TURN
                    w.irr.dispose("rectified", "31A2a")
                else:
                    self.obligations[w.offender.partner] = REST_OF_AUCTION
                    w.irr.dispose("rectified", "31A2b")
                    self.impose_lead_penalty(self.calls[w.irr.position["call"]], w.irr, w.call)
            else:
                keep.append(w)
        self._watches = keep

    # ------------------------------------------------------------------ rulings
    def ruling(self, code: str, option: str) -> list[Irregularity]:
        """Apply the chosen rectification to the pending irregularity ``code``."""
        p = self.pending
        if code == IrregularityCode.COMPARABLE_CALL_RULING:
            return self._rule_comparable(option)
        if option == "conventional" and code == IrregularityCode.INSUFFICIENT_BID and (p is None or p.kind != code):
            return self._rule_27b1_conventional()
        if p is None or p.kind != code or not p.irr.open:
            raise AuctionRulingError(Text("refusal.nothing_pending", "no pending {code} to rule on", code=code))
        if option == "unnoticed" and p.kind in (IrregularityCode.INADMISSIBLE_DOUBLE,
                                                 IrregularityCode.INADMISSIBLE_REDOUBLE):
            # the director's record that the table went on without noticing: the call stands as made until
            # attention is drawn after the opening lead (``after_opening_lead``: 2017 36C; 1997 no rule)
            p.irr.dispose("unnoticed")
            self.pending = None
            return []
        if option == "accept" and any(o.code == "accept" for o in p.irr.options):
            p.irr.dispose("accepted", p.irr.law)
            self.pending = None
            n0 = len(self.irregularities)
            self._check_closure()          # an accepted pass out of rotation may be the third pass (34)
            return self.irregularities[n0:]
        entry, offender = p.entry, p.entry.seat
        if p.kind == IrregularityCode.CHANGE_OF_CALL:
            return self._rule_change_of_call(p, option)
        if option != "cancel" and not (option == "refuse" and p.kind == IrregularityCode.INSUFFICIENT_BID):
            raise AuctionRulingError(Text("refusal.not_an_option", "'{option}' is not an option for {code}",
                                           option=option, code=code))
        self._cancel(entry)
        self.pending = None
        if p.kind == IrregularityCode.INSUFFICIENT_BID:
            self.pending = p                 # still open: the offender's next call is the replacement
            p.where = "refused"
            self._turn = offender
            # the LHO has chosen: what is left is the offender's replacement (a call event, not a ruling)
            p.irr.options = [o for o in p.irr.options if o.code not in ("accept", "refuse")] + [
                Option("replace", Text("auction.insufficient_replace", "refused by LHO: the offender substitutes a "
                                       "sufficient bid or pass (27B)"), str(offender))]
            return []
        p.irr.dispose("cancelled", p.irr.law)
        self._turn = p.turn_of
        partner = offender.partner
        if self.edition.cancel_out_of_rotation(self, p, entry):
            return []
        if p.kind == IrregularityCode.PASS_OUT_OF_ROTATION:
            if p.irr.law in ("30A", "30B1"):
                self.obligations[offender] = NEXT_TURN
            elif p.irr.law == "30B2":
                self.obligations[offender] = REST_OF_AUCTION
                self.no_double_now.add(partner)
        elif p.kind == IrregularityCode.BID_OUT_OF_ROTATION:
            if p.where == "RHO":
                self.watch("31A", offender, p.irr, entry.call)
                p.irr.disposition = None          # finished when RHO and then the offender have called
            else:
                self.obligations[partner] = REST_OF_AUCTION
                self.impose_lead_penalty(entry, p.irr)
        elif p.kind.endswith(IrregularityCode.DOUBLE_OUT_OF_ROTATION):
            if p.where == "RHO":
                self.watch("32B", offender, p.irr, entry.call)
                p.irr.disposition = None
            else:
                self.obligations[partner] = REST_OF_AUCTION
                self.impose_lead_penalty(entry, p.irr)
        elif p.kind in (IrregularityCode.INADMISSIBLE_DOUBLE, IrregularityCode.INADMISSIBLE_REDOUBLE):
            self.obligations[partner] = REST_OF_AUCTION
            self.impose_lead_penalty(entry, p.irr)
            self._turn = offender
        elif p.kind in (IrregularityCode.CALL_IN_VIOLATION_OF_PASS_OBLIGATION, IrregularityCode.BID_ABOVE_SEVEN):
            self.obligations[offender] = REST_OF_AUCTION
            self.obligations[partner] = REST_OF_AUCTION
            self.impose_lead_penalty(entry, p.irr)
            self._turn = offender
        return []

    def watch_comparable(self, p: PendingCall, entry: CallEntry, situation: str) -> None:
        """2017: the offender's next call (at his turn) opens the Law 23 question."""
        self.watch("23", entry.seat, p.irr, entry.call, situation)
        p.irr.detail += Text("auction.law23_watch", "; {partner} may call freely (16C2); Law 23 decides on {seat}'s "
                             "next call", partner=entry.seat.partner, seat=entry.seat)

    def _open_comparable(self, w: _Watch, entry: CallEntry) -> None:
        """The offender's replacement is in: ask the director whether it is comparable (Law 23)."""
        withdrawn = w.irr.position["call"]
        first = self.calls[withdrawn]
        same = entry.call == first.call and not (entry.alert or first.alert)
        rect = self.edition.rect(w.situation)
        irr = self._irr(IrregularityCode.COMPARABLE_CALL_RULING, "23", entry,
                        [Option("comparable", Text("auction.comparable", "comparable: no further rectification; "
                                                   "the withdrawn call is not unauthorized information (23B); the "
                                                   "director may adjust at the end (23C)"), "director"),
                         Option("not_comparable", Text("auction.not_comparable_next", "not comparable ({law}): partner "
                                                       "passes at his next turn; Law 26B; Law {review}", law=rect.law,
                                                       review=self.edition.damage_review_law)
                                if rect.partner_pass.startswith(P1) else
                                Text("auction.not_comparable_rest", "not comparable ({law}): partner passes for the "
                                     "rest of the auction; Law 26B; Law {review}", law=rect.law,
                                     review=self.edition.damage_review_law), "director")],
                        detail=Text("auction.withdrawn_replaced", "{seat}'s {call} was withdrawn ({code}, {law}) and "
                                    "replaced by {call2}", page="{seat}'s {call} was withdrawn (Law {law}) and "
                                    "replaced by {call2}", seat=entry.seat, call=first.call, code=w.irr.code,
                                    law=rect.law, call2=entry.call)
                        + (Text("auction.suggest_comparable", "; suggested: comparable (the same call, neither "
                                "alerted)") if same else "") + ". " + LAW23_TEXT)
        self.comparable.append(_Comparable(irr, w.irr, entry.seat, withdrawn, entry.index, w.situation))
        w.irr.dispose("replaced_awaiting_law23", rect.law)

    def comparable_open(self) -> bool:
        return any(c.irr.open for c in self.comparable)

    def _rule_comparable(self, option: str) -> list[Irregularity]:
        """The director's answer to the oldest open Law 23 question."""
        c = next((c for c in self.comparable if c.irr.open), None)
        if c is None:
            raise AuctionRulingError(Text("refusal.nothing_open", "no open {code} to rule on",
                                           code=IrregularityCode.COMPARABLE_CALL_RULING))
        rect = self.edition.rect(c.situation)
        if option == "comparable":
            c.irr.dispose("comparable", "23B")
            c.source.dispose("replaced_comparable", "23B")
            return []
        if option != "not_comparable":
            raise AuctionRulingError(Text("refusal.not_an_option_of", "'{option}' is not an option for {code} "
                                           "({options})", option=option, code=IrregularityCode.COMPARABLE_CALL_RULING,
                                           options="comparable, not_comparable"))
        c.irr.dispose("not_comparable", rect.law)
        c.source.dispose("replaced_not_comparable", rect.law)
        partner = c.offender.partner
        since = [e for e in self.calls[c.replacement + 1:] if e.seat == partner and e.stands and not e.deemed]
        scope = NEXT_TURN if rect.partner_pass.startswith(P1) else REST_OF_AUCTION
        if since and since[0].call != PASS:
            c.irr.detail += Text("auction.called_before_ruling", "; {seat} had already called {call} before the "
                                 "ruling: the director decides (Law {review})", seat=partner, call=since[0].call,
                                 review=self.edition.damage_review_law)
        if not self.closed and not (scope == NEXT_TURN and since):
            self.obligations[partner] = scope
        withdrawn = self.calls[c.withdrawn]
        if c.situation == "insufficient_double":
            self._undo_27b3(c)
        self.impose_lead_penalty(withdrawn, c.source)
        return []

    def _undo_27b3(self, c: _Comparable) -> None:
        """2017 27B3: a double or redouble replacing an insufficient bid, not comparable, is cancelled and the
        offender calls again; possible while nobody has called over it."""
        entry = self.calls[c.replacement]
        if self.stood and self.stood[-1] is entry:
            self._cancel(entry)
            self._turn = entry.seat
        else:
            c.irr.detail += Text("auction.called_over_double", "; calls were made over the X/XX before the ruling: "
                                 "the director decides (27B3)")

    def _rule_27b1_conventional(self) -> list[Irregularity]:
        """The director finds that the insufficient bid or its lowest-same-denomination replacement could be
        conventional: 27B1 gives way to 27B2 (partner passes for the rest of the auction; Law 26)."""
        irr = next((i for i in reversed(self.irregularities)
                    if i.code == IrregularityCode.INSUFFICIENT_BID and i.disposition_law == "27B1"), None)
        if irr is None:
            raise AuctionRulingError(Text("refusal.no_27b1_replacement", "no insufficient bid replaced under 27B1 "
                                           "to rule conventional"))
        entry = self.calls[irr.position["call"]]
        if not self.closed:
            self.obligations[entry.seat.partner] = REST_OF_AUCTION
        irr.options = [o for o in irr.options if o.code != "conventional"]
        self.impose_lead_penalty(entry, irr)
        irr.dispose("replaced_conventional", "27B2")
        return []

    def _rule_change_of_call(self, p: PendingCall, option: str) -> list[Irregularity]:
        first = p.replaced
        assert first is not None
        if option not in {o.code for o in p.irr.options}:
            raise AuctionRulingError(Text("refusal.not_an_option", "'{option}' is not an option for {code}",
                                           option=option, code=IrregularityCode.CHANGE_OF_CALL))
        self.pending = None
        if option in ("inadvertent", "unintended", "accept"):
            p.irr.dispose(option, "25B1" if option == "accept" else "25A")
            self._check_closure()
        elif option in ("original_stands", "original_stands_26B") and self.edition.comparable_call:
            # 2017 25B2: the original call stands, partner is free; Law 26B only if the director applies it
            self._cancel(p.entry)
            first.stands = True
            self._stand(first)
            if option == "original_stands_26B":
                self.impose_lead_penalty(p.entry, p.irr)
            p.irr.dispose(option, "25B2")
        elif option == "first_stands":
            self._cancel(p.entry)
            first.stands = True
            self._stand(first)
            self.obligations[p.entry.seat.partner] = NEXT_TURN
            self.impose_lead_penalty(p.entry, p.irr)
            p.irr.dispose(option, "25B2b1")
        elif option == "other_call":
            self.impose_lead_penalty(first, p.irr)
            p.irr.dispose(option, "25B2b2")
            self._check_closure()
        else:
            raise AuctionRulingError(Text("refusal.not_an_option", "'{option}' is not an option for {code}",
                                           option=option, code=IrregularityCode.CHANGE_OF_CALL))
        return []

    # ------------------------------------------------------------------ record
    def final_calls(self) -> list[CallEntry]:
        return [e for e in self.stood if not e.deemed]


# ---------------------------------------------------------------------- Law 24: cards exposed during the auction
def card_exposed(auction: Auction | None, seat: Seat, cards: tuple[str, ...]) -> Irregularity:
    """24: cards exposed during the auction stay face up and become penalty cards if the offender defends
    (``defenders_penalty_cards``). 24A: a single card below an honour only that; 24B (a single honour, or a
    premature lead) and 24C (two or more cards): the offender's partner also passes at his next turn."""
    honors = [c for c in cards if c[1] in "AKQJT"]
    law = "24A" if len(cards) == 1 and not honors else ("24B" if len(cards) == 1 else "24C")
    irr = Irregularity(IrregularityCode.CARD_EXPOSED_DURING_AUCTION, law, str(seat), "auction", {},
                       [Option("penalty_card", Text("auction.exposed_penalty_cards", "cards stay face up; penalty "
                                                    "cards if the offender defends"), "director")]
                       + ([] if law == "24A" else [Option("partner_passes", Text("auction.partner_passes_next",
                                                                                 "partner passes at his next turn"),
                                                          "director")]),
                       Text("auction.exposed_in_auction", "{cards} exposed during the auction", cards=" ".join(cards)))
    if law != "24A" and auction is not None and not auction.closed:
        auction.obligations.setdefault(seat.partner, NEXT_TURN)
    return irr


def card_led_early(auction: Auction, seat: Seat, card: str) -> Irregularity:
    """24B: a card faced as an opening lead before the auction closed (a premature lead) stays face up; the
    offender's partner passes at his next turn."""
    irr = Irregularity(IrregularityCode.CARD_EXPOSED_DURING_AUCTION, "24B", str(seat), "auction", {},
                       [Option("leave_face_up", Text("auction.premature_lead_face_up", "card stays face up; penalty "
                                                     "card if the offender defends; partner passes at his next turn "
                                                     "(24B)"), "director")],
                       Text("auction.premature_lead", "{card} led before the auction closed (premature lead)",
                            card=card))
    irr.dispose("rectified")
    auction.obligations.setdefault(seat.partner, NEXT_TURN)
    return irr


def defenders_penalty_cards(exposures: Sequence[tuple[Seat, tuple[str, ...]]],
                            declarer: Seat) -> list[tuple[Seat, tuple[str, ...]]]:
    """24: once the auction has given a declarer, the cards a future defender exposed become penalty cards."""
    return [(seat, cards) for seat, cards in exposures if seat.side != declarer.side]
