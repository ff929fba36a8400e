"""The law books the engine can apply: one engine, two editions.

The rules every edition shares are written once, in ``auction.py`` and ``play/``; an :class:`Edition` holds
the few rules that differ (the way python-chess keeps one board and a few variant classes). The engine asks
its edition, never compares edition names:

* the rectification matrix (:attr:`Edition.rectifications`): for each auction and play situation, the law,
  the options, who chooses, the forced passes (``P1`` = pass at the next turn, ``P∞`` = for the rest of the
  auction, ``S∞`` = both members of the offending side for the rest) and the lead restriction. The engine
  installs the forced passes and lead restrictions from it, and docs/laws.md shows it (``matrix_markdown``);
* switches for the points the sources leave uncertain (named, with the recommended default);
* small edition-specific functions: the Law 26 lead options, the Law 57 options, Law 53A at trick 13, the
  Law 64A2 extra trick, the Law 12C2 session-percentage rule;
* the auction rules whose consequences differ by edition, as methods that act on an ``Auction`` through its
  operations: the replacement of an insufficient bid (27B) and a cancelled call out of rotation (30-32).

``Edition1997`` is the seed (WBF 1997 Laws, 1999 Chinese Bridge Association edition); ``Edition2017`` the
2017 WBF Laws. ``edition("2017")`` finds one by name; ``DEFAULT`` is the 1997 edition.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from .calls import DOUBLE, REDOUBLE
from .codes import IrregularityCode
from .irregularity import Irregularity, Option
from .texts import Text

if TYPE_CHECKING:
    from .auction import Auction, CallEntry, PendingCall

SUITS = ("S", "H", "D", "C")
P1, P_ALL, S_ALL = "P1", "P∞", "S∞"
NEXT_TURN, REST_OF_AUCTION = "next_turn", "rest_of_auction"     # the scopes of a forced pass, as installed


OFFENDER_PASSES_NEXT = Text("oor.offender_passes_next", "offender must pass at his next turn")
PARTNER_FREE = Text("oor.partner_free", "partner may make any legal call (16C2); ")


class EditionError(ValueError):
    """An unknown edition name."""


@dataclass(frozen=True, slots=True)
class Rectification:
    """One row of the rectification matrix: what the law gives in one situation."""
    law: str
    options: str                 # what may be chosen (or "—" when the law gives no choice)
    chooser: str                 # "LHO", "declarer", "defenders", "offender", "director", "—" (mechanical)
    offender_pass: str = ""      # "", P1, P∞ (S∞ is given as the partner's scope)
    partner_pass: str = ""       # "", P1, P∞, S∞
    lead: str = ""               # "", "26A/26B", "26B", "26B (director)" ...
    comparable: bool = False     # the director's Law 23 comparable-call ruling decides the consequences


# Situations shared by both editions' matrices, in the order docs/laws.md lists them.
SITUATIONS: dict[str, str] = {
    "insufficient_lowest_same": "Insufficient bid → lowest sufficient bid, same denomination",
    "insufficient_other": "Insufficient bid → other bid or pass",
    "insufficient_double": "Insufficient bid → double or redouble",
    "pass_oor_rho": "Pass out of rotation at RHO's turn (or before any bid)",
    "pass_oor_partner": "Pass out of rotation at partner's turn",
    "pass_oor_lho": "Pass out of rotation at LHO's turn, offender not yet called",
    "bid_oor_rho_passes": "Bid out of rotation at RHO's turn, RHO passes",
    "bid_oor_rho_acts": "Bid out of rotation at RHO's turn, RHO calls",
    "bid_oor_partner": "Bid out of rotation at partner's (or dealer-LHO's) turn",
    "double_oor_rho_passes": "X/XX out of rotation at RHO's turn, RHO passes",
    "double_oor_rho_acts": "X/XX out of rotation at RHO's turn, RHO calls",
    "double_oor_partner": "X/XX out of rotation at partner's turn",
    "inadmissible": "Inadmissible X/XX in turn",
    "inadmissible_oor": "Inadmissible X/XX out of rotation",
    "inadmissible_condoned": "Inadmissible X/XX, LHO called over it",
    "inadmissible_after_lead": "Inadmissible X/XX first noticed after the opening lead",
    "barred_call": "Call by a player required to pass",
    "barred_call_condoned": "Call by a player required to pass, LHO called over it",
    "above_seven": "Bid above seven",
    "above_seven_condoned": "Bid above seven, LHO called over it",
    "after_final_pass": "Bid, X or XX by a future defender after the final pass",
    "change_of_call": "Intended change of call, LHO does not accept",
    "premature_play": "Defender plays before his partner (premature play)",
    "play_at_rho_turn": "Defender plays at his RHO's turn (partner has played)",
    "lead_oot_trick13": "Lead out of turn at trick 13",
    "declarer_lead_oot": "Declarer's lead out of turn, defenders disagree",
    "revoke_not_won": "Established revoke, offender did not win the revoke trick",
    "both_sides_revoked": "Both sides revoked, both established",
    "defective_trick": "Play omitted to a trick, offender held the suit led",
    "claim_play_on": "Play continued after a claim, all four agreeing",
}


class Edition:
    """The rules one law book adds to the shared engine (see the module docstring). Singletons: compare
    editions with ``is`` or by ``name``."""

    name: ClassVar[str]
    title: ClassVar[str]
    rectifications: ClassVar[dict[str, Rectification]]
    # the Law 26 wording: the 1997 require/forbid of a related suit, or the 2017 prohibition only
    lead_restriction_law: ClassVar[str]
    # the marker for the end-of-board review of a forced pass (1997 Law 23; 2017 Law 72C)
    damage_review_law: ClassVar[str]
    comparable_call: ClassVar[bool] = False            # Law 23 (2017): the director's comparable-call ruling
    play_on_after_claim: ClassVar[bool] = False        # 68D2(b): play may continue when all four agree
    lead_oot_acceptable_at_trick13: ClassVar[bool] = True    # 53A
    revoke_extra_trick: ClassVar[bool] = True         # 1997 64A2: a later trick won with a card that could
                                                      # have been played to the revoke trick
    law57_require_other_suit: ClassVar[bool] = False   # 57A3 (2017)
    law57d_hold_for_proper_turn: ClassVar[bool] = False
    law36c_score_without_call: ClassVar[bool] = False
    law55a_next_in_turn_prevails: ClassVar[bool] = False
    session_percent_symmetrical: ClassVar[bool] = False    # 12C2(c) (2017) vs Law 88 (1997)
    both_sides_revoked_law: ClassVar[str]
    inadmissible_oor_law: ClassVar[str]                # why an inadmissible X/XX out of rotation cannot be accepted

    def out_of_rotation(self, kind: str, where: str, any_bid: bool, admissible: bool) -> tuple[str, str]:
        """The law and the rectification (the cancel option's text) of a call out of rotation: ``kind`` is
        pass, bid or double (a redouble is a double); ``where`` whose turn it was, seen from the offender (RHO,
        PARTNER, LHO); ``any_bid``: a bid has been made; ``admissible``: a double the offender could make."""
        raise NotImplementedError

    # switches for the points the sources leave open: each edition's default is its class attribute of the
    # same name with a leading underscore; an instance may override them (``with_switches``)
    SWITCHES: ClassVar[tuple[str, ...]] = ("law67B1a_deemed_revoke", "law26_require_option", "auto_27B1a_natural",
                                           "dummy_win_counts_for_declarer")
    law67B1a_deemed_revoke: bool
    law26_require_option: bool
    auto_27B1a_natural: bool
    dummy_win_counts_for_declarer: bool

    def __init__(self, **switches: bool) -> None:
        for name in self.SWITCHES:
            object.__setattr__(self, name, bool(switches.pop(name, getattr(type(self), "_" + name))))
        if switches:
            raise EditionError(f"unknown switch(es) for the {self.name} edition: {', '.join(sorted(switches))}")

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("an edition is immutable; build another with with_switches()")

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    def switches(self) -> dict[str, bool]:
        return {name: getattr(self, name) for name in self.SWITCHES}

    def with_switches(self, **switches: bool) -> Edition:
        return type(self)(**{**self.switches(), **switches})

    def rect(self, situation: str) -> Rectification:
        return self.rectifications[situation]

    # ------------------------------------------------------------------ Laws 27B, 30-32 in the auction
    def replace_insufficient(self, auction: Auction, p: PendingCall, entry: CallEntry,
                             flagged: list[Irregularity]) -> None:
        """27B: ``entry`` replaces the insufficient bid pending in ``p`` (after LHO refused it, or at once)."""
        raise NotImplementedError

    def cancel_out_of_rotation(self, auction: Auction, p: PendingCall, entry: CallEntry) -> bool:
        """The consequences of a call out of rotation that LHO cancelled, where this edition's differ from the
        shared rules in ``Auction.ruling``; True when handled here."""
        return False

    # ------------------------------------------------------------------ Law 26
    def lead_options(self, related: frozenset[str], specified: frozenset[str]) -> list[tuple[str, str]]:
        """Declarer's choices at the restricted player's first lead: (option code, law) pairs.
        ``related``: suits the withdrawn call related to (1997 26A); ``specified``: suits the offender
        specified in the legal auction (2017 26B)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ Law 57A
    def law57_options(self, lead_suit: str) -> list[tuple[str, str]]:
        """(option code, law) pairs for declarer after a premature play or lead."""
        opts = [("highest", "57A1"), ("lowest", "57A2")]
        if self.law57_require_other_suit:
            opts += [(f"require:{s}", "57A3") for s in SUITS if s != lead_suit]
            opts += [(f"forbid:{s}", "57A4") for s in SUITS if s != lead_suit]
        else:
            opts += [(f"forbid:{s}", "57A3") for s in SUITS if s != lead_suit]
        return opts

    # ------------------------------------------------------------------ Law 12C2 / 88
    def artificial_percent(self, at_fault: bool, session_percent: float | None) -> float:
        """A pairs contestant's artificial score on a board it could not play: 60 % (not at fault, at least
        its session percentage) or 40 % (at fault; 2017: at most its session percentage)."""
        if not at_fault:
            return max(60.0, session_percent) if session_percent is not None else 60.0
        if self.session_percent_symmetrical and session_percent is not None:
            return min(40.0, session_percent)
        return 40.0


def _r(law: str, options: str = "—", chooser: str = "—", offender_pass: str = "", partner_pass: str = "",
       lead: str = "", comparable: bool = False) -> Rectification:
    return Rectification(law, options, chooser, offender_pass, partner_pass, lead, comparable)


class Edition1997(Edition):
    """The seed: the 1997 WBF Laws in the 1999 Chinese Bridge Association edition."""
    name = "1997"
    title = "WBF 1997 Laws (1999 CBA edition)"
    lead_restriction_law = "26"
    damage_review_law = "23"
    both_sides_revoked_law = "64C"
    _law67B1a_deemed_revoke = False
    _law26_require_option = False          # 1997 26A has its own require option; the switch is 2017's
    _auto_27B1a_natural = True
    _dummy_win_counts_for_declarer = False  # 64A1 reading: a trick won by dummy is not won by declarer
    rectifications = {
        "insufficient_lowest_same": _r("27B1", "—", "—"),
        "insufficient_other": _r("27B2", partner_pass=P_ALL, lead="26A/26B"),
        "insufficient_double": _r("27B3", "X/XX cancelled; bid or pass", "offender", partner_pass=P_ALL,
                                  lead="26A/26B"),
        "pass_oor_rho": _r("30A/30B1", "accept / cancel", "LHO", offender_pass=P1),
        "pass_oor_partner": _r("30B2", "accept / cancel; partner may not X/XX at that turn", "LHO",
                               offender_pass=P_ALL),
        "pass_oor_lho": _r("30B3", "accept / cancel (Law 25)", "LHO"),
        "bid_oor_rho_passes": _r("31A1", "offender repeats the bid", "—"),
        "bid_oor_rho_acts": _r("31A2", "same denomination: 31A2a / other call: 31A2b", "offender",
                               partner_pass="P1 (same denomination) / P∞", lead="26 (other call)"),
        "bid_oor_partner": _r("31B", "accept / cancel", "LHO", partner_pass=P_ALL, lead="26A/26B"),
        "double_oor_rho_passes": _r("32B1", "offender repeats the X/XX", "—"),
        "double_oor_rho_acts": _r("32B2", "any legal call", "offender", partner_pass=P_ALL, lead="26B"),
        "double_oor_partner": _r("32A", "accept / cancel", "LHO", partner_pass=P_ALL, lead="26B"),
        "inadmissible": _r("36", "cancel; legal substitute", "director", partner_pass=P_ALL, lead="26A/26B"),
        "inadmissible_oor": _r("32", "cancel", "LHO", partner_pass=P_ALL, lead="26B"),
        "inadmissible_condoned": _r("35A", "X/XX and later calls cancelled; auction reverts", "—"),
        "inadmissible_after_lead": _r("—", "no rule: director", "director"),
        "barred_call": _r("37", "cancel", "director", offender_pass=P_ALL, partner_pass=S_ALL, lead="26A/26B"),
        "barred_call_condoned": _r("35B", "call stands", "—"),
        "above_seven": _r("38", "cancel", "director", offender_pass=P_ALL, partner_pass=S_ALL, lead="26A/26B"),
        "above_seven_condoned": _r("35C", "offender's pass substituted; LHO calls again", "—"),
        "after_final_pass": _r("39B", "cancelled", "—", lead="26A/26B"),
        "change_of_call": _r("25B2", "first call stands + partner P1 / other call, average minus", "offender",
                             partner_pass="P1 (first stands)", lead="26A/26B"),
        "premature_play": _r("57A", "highest / lowest / forbid a suit", "declarer"),
        "play_at_rho_turn": _r("49", "stands / penalty card", "director"),
        "lead_oot_trick13": _r("53A", "accept / refuse (play of the next hand accepts)", "declarer or defenders"),
        "declarer_lead_oot": _r("55A", "accept / retract", "defenders (first choice applied)"),
        "revoke_not_won": _r("64A2", "1 trick, +1 for a later trick won with a card legal at the revoke", "—"),
        "both_sides_revoked": _r("64C", "no automatic transfer: director's equity", "director"),
        "defective_trick": _r("67B1", "card of the suit led placed; no penalty", "—"),
        "claim_play_on": _r("68D", "not available: later plays void, director adjudicates", "director"),
    }

    inadmissible_oor_law = "32"

    def out_of_rotation(self, kind: str, where: str, any_bid: bool, admissible: bool) -> tuple[str, str]:
        if kind == "pass":
            law = "30A" if not any_bid else {"RHO": "30B1", "PARTNER": "30B2", "LHO": "30B3"}[where]
            return law, {"30A": OFFENDER_PASSES_NEXT, "30B1": OFFENDER_PASSES_NEXT,
                         "30B2": Text("oor.30b2", "offender passes for the rest of the auction; partner may not "
                                      "double or redouble at this turn"),
                         "30B3": Text("oor.30b3", "treated as a change of call (Law 25)")}[law]
        if kind == "bid":
            if where == "RHO":
                return "31A", Text("oor.31a_1997", "if RHO passes the offender must repeat the bid (31A1); if RHO "
                                   "calls, the offender may make any legal call: same denomination -> partner passes "
                                   "at his next turn (31A2a), otherwise partner passes for the rest of the auction and "
                                   "Law 26 applies (31A2b)")
            return "31B", Text("oor.31b_1997", "partner passes for the rest of the auction (Law 23); Law 26 lead "
                               "penalty")
        law = "32A" if where == "PARTNER" else "32B" if where == "RHO" else "32"
        return law, (Text("oor.32_partner_passes", "partner passes for the rest of the auction; Law 26B")
                     if where != "RHO" else
                     Text("oor.32b_1997", "if RHO passes the offender must repeat it (32B1); if RHO calls, partner "
                          "passes for the rest of the auction (32B2); Law 26B"))

    def replace_insufficient(self, auction: Auction, p: PendingCall, entry: CallEntry,
                             flagged: list[Irregularity]) -> None:
        """1997 27B: the lowest sufficient bid in the same denomination stands without penalty (27B1, unless
        either bid was conventional: the director's 27B2); another bid or a pass bars partner for the rest of
        the auction with a Law 26 lead penalty (27B2); a double or redouble is cancelled, with the same, and the
        offender must still bid sufficiently or pass (27B3)."""
        call, offender = entry.call, p.entry.seat
        if call in (DOUBLE, REDOUBLE):
            p.irr.dispose("replaced_by_double_cancelled", "27B3")
            auction.obligations[offender.partner] = REST_OF_AUCTION
            auction.impose_lead_penalty(p.entry, p.irr)
            entry.stands = False
            auction.give_turn(offender)
            return
        if call == auction.lowest_sufficient_same(p.entry.call):
            p.irr.dispose("replaced_lowest_same_denomination", "27B1")
            p.irr.options.append(Option("conventional", Text("auction.conventional_27b2", "either bid was "
                                                             "conventional: partner passes for the rest of the "
                                                             "auction (27B2)"), "director"))
        else:
            p.irr.dispose("replaced", "27B2")
            auction.obligations[offender.partner] = REST_OF_AUCTION
            auction.impose_lead_penalty(p.entry, p.irr)
        auction.classify(entry, flagged)

    def lead_options(self, related: frozenset[str], specified: frozenset[str]) -> list[tuple[str, str]]:
        if related:
            return ([(f"require:{s}", "26A2") for s in SUITS if s in related]
                    + [(f"forbid:{s}", "26A2") for s in SUITS if s in related])
        return [(f"forbid:{s}", "26B") for s in SUITS]


class Edition2017(Edition):
    """The 2017 WBF Laws (comparable call, forced passes for one turn, 26B prohibition only, 64 without
    the extra trick, play on after a claim by agreement)."""
    name = "2017"
    title = "WBF 2017 Laws"
    lead_restriction_law = "26B"
    damage_review_law = "72C"
    both_sides_revoked_law = "64B7"
    comparable_call = True
    play_on_after_claim = True
    lead_oot_acceptable_at_trick13 = False
    revoke_extra_trick = False
    law57_require_other_suit = True
    law57d_hold_for_proper_turn = True
    law36c_score_without_call = True
    law55a_next_in_turn_prevails = True
    session_percent_symmetrical = True
    # single source for the deemed revoke of 67B1(a): on by default, as recommended, behind its switch
    _law67B1a_deemed_revoke = True
    # the printed March-2017 book's 26B1 "require", deleted by the WBF Laws Committee in June 2017
    _law26_require_option = False
    _auto_27B1a_natural = True                # lowest sufficient bid in the same strain, both natural
    _dummy_win_counts_for_declarer = False    # 64 footnote: a trick won in dummy is not won by declarer
    rectifications = {
        "insufficient_lowest_same": _r("27B1(a)", "—", "— (director if artificial)"),
        "insufficient_other": _r("27B1(b)/27B2", "comparable / not comparable", "director",
                                 partner_pass="P∞ if not comparable", lead="26B if not comparable", comparable=True),
        "insufficient_double": _r("27B1(b)/27B3", "comparable / not comparable", "director",
                                  partner_pass="P∞ if not comparable", lead="26B if not comparable", comparable=True),
        "pass_oor_rho": _r("30A", "accept / cancel", "LHO", offender_pass=P1),
        "pass_oor_partner": _r("30B1", "accept / cancel; then comparable / not comparable", "LHO, director",
                               partner_pass="P1 if not comparable", lead="26B if not comparable", comparable=True),
        "pass_oor_lho": _r("30B1", "accept / cancel; then comparable / not comparable", "LHO, director",
                           partner_pass="P1 if not comparable", lead="26B if not comparable", comparable=True),
        "bid_oor_rho_passes": _r("31A1", "offender repeats the bid", "—"),
        "bid_oor_rho_acts": _r("31A2", "comparable / not comparable", "director",
                               partner_pass="P1 if not comparable", lead="26B if not comparable", comparable=True),
        "bid_oor_partner": _r("31B", "accept / cancel; then comparable / not comparable", "LHO, director",
                              partner_pass="P1 if not comparable", lead="26B if not comparable", comparable=True),
        "double_oor_rho_passes": _r("32A1", "offender repeats the X/XX", "—"),
        "double_oor_rho_acts": _r("32A2", "comparable / not comparable", "director",
                                  partner_pass="P1 if not comparable", lead="26B if not comparable", comparable=True),
        "double_oor_partner": _r("32B", "accept / cancel; then comparable / not comparable", "LHO, director",
                                 partner_pass="P1 if not comparable", lead="26B if not comparable", comparable=True),
        "inadmissible": _r("36B", "cancel; legal substitute", "director", partner_pass=P_ALL, lead="26B"),
        "inadmissible_oor": _r("36B4", "cancel; any legal call at his turn", "LHO", partner_pass=P_ALL, lead="26B"),
        "inadmissible_condoned": _r("36A", "X/XX and later calls cancelled; auction reverts", "—"),
        "inadmissible_after_lead": _r("36C", "scored as if the X/XX had not been made", "—"),
        "barred_call": _r("37B", "cancel", "director", offender_pass=P_ALL, partner_pass=S_ALL, lead="26B"),
        "barred_call_condoned": _r("37A", "call stands", "—"),
        "above_seven": _r("38", "cancel", "director", offender_pass=P_ALL, partner_pass=S_ALL, lead="26B"),
        "above_seven_condoned": _r("38", "bid and later calls cancelled; pass substituted", "—",
                                   offender_pass=P_ALL, partner_pass=S_ALL),
        "after_final_pass": _r("39C", "cancelled", "—", lead="26B"),
        "change_of_call": _r("25B2", "original call stands (26B only if the director applies it)", "director",
                             lead="26B (director)"),
        "premature_play": _r("57A", "highest / lowest / require a suit / forbid a suit", "declarer"),
        "play_at_rho_turn": _r("57D", "legal card held for his proper turn; else major penalty card", "—"),
        "lead_oot_trick13": _r("53A", "not acceptable: lead from the correct hand", "—"),
        "declarer_lead_oot": _r("55A", "accept / retract", "defender next in turn prevails"),
        "revoke_not_won": _r("64A2", "1 trick", "—"),
        "both_sides_revoked": _r("64B7", "no automatic transfer; 64C2(b) director", "director"),
        "defective_trick": _r("67B1(a)", "card of the suit led placed; deemed revoke, 1 trick (64A2)", "—"),
        "claim_play_on": _r("68D2(b)", "claim void; the continued play stands", "all four players"),
    }

    inadmissible_oor_law = "36"
    _comparable_after = Text("oor.comparable_after", "then the director rules whether the offender's next call is "
                             "comparable (Law 23): if not, partner passes at his next turn and Law 26B may apply")

    def out_of_rotation(self, kind: str, where: str, any_bid: bool, admissible: bool) -> tuple[str, str]:
        """A forced pass for one turn at most, and the offender's replacement judged comparable or not."""
        after = self._comparable_after
        if kind == "pass":
            if where == "RHO":
                return "30A", OFFENDER_PASSES_NEXT
            return "30B1", PARTNER_FREE + after
        if kind == "bid":
            if where == "RHO":
                return "31A", Text("oor.31a_2017", "if RHO passes the offender must repeat the bid (31A1); if RHO "
                                   "calls, ") + after + " (31A2)"
            return "31B", PARTNER_FREE + after
        if not admissible:
            return "36B4", Text("oor.36b4", "the auction reverts to the player whose turn it was; the offender makes "
                                "any legal call at his turn; partner passes for the rest of the auction; Law 26B")
        if where == "RHO":
            return "32A", Text("oor.32a_2017", "if RHO passes the offender must repeat it (32A1); if RHO calls, ") \
                + after + " (32A2)"
        return "32B", PARTNER_FREE + after

    def replace_insufficient(self, auction: Auction, p: PendingCall, entry: CallEntry,
                             flagged: list[Irregularity]) -> None:
        """2017 27B: the lowest sufficient bid in the same denomination, both natural, needs nothing (27B1(a));
        any other replacement is the director's Law 23 question (27B1(b) comparable, else 27B2/27B3)."""
        ib, call = p.entry.call, entry.call
        natural = not (p.entry.alert or entry.alert)
        if call == auction.lowest_sufficient_same(ib) and natural and self.auto_27B1a_natural:
            p.irr.dispose("replaced_lowest_same_denomination", "27B1a")
            auction.classify(entry, flagged)
            return
        situation = "insufficient_double" if call in (DOUBLE, REDOUBLE) else "insufficient_other"
        auction.classify(entry, flagged)
        auction.ask_comparable(p.entry.seat, p.irr, ib, situation, entry)

    def cancel_out_of_rotation(self, auction: Auction, p: PendingCall, entry: CallEntry) -> bool:
        """2017 30-32, 36B4: a forced pass for one turn at most; otherwise the offender's next call opens the
        Law 23 comparable-call question (RHO's call first, after a bid or X/XX at RHO's turn: 31A, 32A)."""
        offender, partner = entry.seat, entry.seat.partner
        if p.kind == IrregularityCode.PASS_OUT_OF_ROTATION:
            if p.irr.law == "30A":
                auction.obligations[offender] = NEXT_TURN
            else:
                auction.watch_comparable(p, entry, "pass_oor_partner" if p.where == "PARTNER" else "pass_oor_lho")
            return True
        if p.kind == IrregularityCode.BID_OUT_OF_ROTATION:
            if p.where == "RHO":
                auction.watch("31A", offender, p.irr, entry.call)
                p.irr.disposition = None          # finished when RHO and then the offender have called
            else:
                auction.watch_comparable(p, entry, "bid_oor_partner")
            return True
        if p.kind.endswith(IrregularityCode.DOUBLE_OUT_OF_ROTATION):
            if p.irr.law == "36B4":
                auction.obligations[partner] = REST_OF_AUCTION
                auction.impose_lead_penalty(entry, p.irr)
            elif p.where == "RHO":
                auction.watch("32B", offender, p.irr, entry.call)
                p.irr.disposition = None
            else:
                auction.watch_comparable(p, entry, "double_oor_partner")
            return True
        return False

    def lead_options(self, related: frozenset[str], specified: frozenset[str]) -> list[tuple[str, str]]:
        allowed = [s for s in SUITS if s not in specified]
        opts = [(f"forbid:{s}", "26B") for s in allowed]
        if self.law26_require_option:
            opts = [(f"require:{s}", "26B1") for s in allowed] + opts
        return opts


EDITION_1997 = Edition1997()
EDITION_2017 = Edition2017()
DEFAULT: Edition = EDITION_1997
_BY_NAME = {"1997": EDITION_1997, "wbf1997": EDITION_1997, "wbf1997-cba1999": EDITION_1997,
            "2017": EDITION_2017, "wbf2017": EDITION_2017}
NAMES = ("1997", "2017")


def edition(name: str | Edition | None) -> Edition:
    """The edition called ``name`` ("1997", "2017", or the service's "wbf1997-cba1999" / "wbf2017");
    None is the default (1997)."""
    if name is None:
        return DEFAULT
    if isinstance(name, Edition):
        return name
    found = _BY_NAME.get(str(name).strip().lower())
    if found is None:
        raise EditionError(f"unknown law edition {name!r} (available: {', '.join(NAMES)})")
    return found


def matrix_rows() -> list[tuple[str, ...]]:
    """The rectification matrix of every edition: (situation, edition, law, options, chooser, offender's
    forced pass, partner's forced pass, lead restriction)."""
    rows: list[tuple[str, ...]] = []
    for key, text in SITUATIONS.items():
        for ed in (EDITION_1997, EDITION_2017):
            r = ed.rect(key)
            rows.append((text, ed.name, r.law, r.options, r.chooser, r.offender_pass or "—", r.partner_pass or "—",
                         r.lead or "—"))
    return rows


def matrix_markdown() -> str:
    """The matrix as the Markdown table docs/laws.md carries (a test keeps them equal)."""
    head = ("Irregularity", "Edition", "Law", "Options", "Who chooses", "Offender passes", "Partner passes",
            "Lead restriction")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(row) + " |" for row in matrix_rows()]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":          # regenerate the matrix of docs/laws.md
    print(matrix_markdown(), end="")
