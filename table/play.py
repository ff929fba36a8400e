"""The play period (Laws 41-71): follow every card, flag every irregularity the moment it happens.

Pure logic, no I/O. :class:`Play` receives the physical card events of one board (``card``; dummy's
cards carry dummy's seat), exposures (``expose``), explicit choices (``ruling``) and the end of play
(``claim_made``, ``finish``). Nothing is refused: an illegal event is recorded, flagged as an
:class:`~table.irregularity.Irregularity` (code from the LAWS_DIGEST §15 catalogue, law as the 1997 WBF /
1999 CBA edition numbers it, seat, ``phase="play"``, ``position={"trick": n, "card": k}`` with ``n``
1-based and ``k`` 0-based in play order, and the options the law gives and to whom), and the play goes on
as the laws say:

* acceptance by action: a lead out of turn is accepted when the next hand in rotation plays to it (53A);
  the non-offending side playing on after an irregular play forfeits the right to penalize (60A1); declarer
  playing on after a defender failed to play a penalty card must accept the card (52B1);
* explicit choices: ``ruling(code, option, seat)`` applies an option (declarer's 54/56/57/50D2/26/52
  choices, the defenders' 55 choices, the offender's revoke correction 62, the director's 64B4/64B5).

Model of a trick: a list of ``(seat, card)`` in the order the cards were played. Each seat plays one card
to a trick; a card played out of rotation by a seat that has not played yet is counted in the trick (the
law lets it stand or be withdrawn later), the rotation then continues from the lead with the seats that
have not played. A second card by a seat that has already played to the trick is not counted (45E, 58B,
57A premature lead): for a defender it becomes a penalty card.

Revoke policy is the digest's ``SILENT_LOG`` (§18 R1): revokes are flagged and followed silently, with
state OCCURRED (open) -> ``established`` (63A1 by the offending side's play to a later trick, 63A3 on a
claim) or ``corrected`` (``ruling("REVOKE", "correct")`` followed by the replacement card, 62). The
Law 64 transfers are computed by :meth:`Play.finish`.

Performance: a legal card on the usual path costs one dict look-up for the hand, one for the suit count
and a list append, and a complete trick's winner four look-ups in a precomputed table (``TRICK_POWER``);
every exceptional state (pending choices, penalty cards, open revokes, lead restrictions, hands without a
record, a trick played out of rotation) switches the board to the checked path; ``finish`` without any
revoke skips the Law 64 computation.

Not decided from card events (director input or another module): a face-down lead (41A), designations of
dummy's cards (45C4b, 45D, 46), retractions after misinformation (47E), dummy's rights (43), illegal revoke
inquiries (61B, 63B), which of several cards was "visible" (58B: the first read is kept), whether a card
played by the correct leader just after a lead out of turn by his RHO was a proper lead (53C) rather
than a play to it (53A is assumed), an omitted play (67: it shows as a trick that never completes and an
extra card; a card left after 13 tricks is flagged DEFECTIVE_TRICK), the 62C withdrawal of cards played
after a revoke inside the revoke trick, 62D2, 64B4/64B5 (director's ruling), 64C equity, the claim
adjudication of Laws 68-71. Dummy's own initiative (57C) is not visible either.
"""
from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from typing import Any

from .cards import CARD_RANK, CARD_SET, HONORS, SEATS, SUITS, Deal, Seat, parse_card, sort_cards
from .irregularity import Irregularity, LeadPenalty, Option
from .tricks import TRICK_POWER, trick_winner_index

log = logging.getLogger(__name__)

__all__ = ["Play", "PlayRulingError"]

SUIT_NAME = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
_LHO = {s: s.lho for s in SEATS}
_PARTNER = {s: s.partner for s in SEATS}
_SIDE = {s: s.side for s in SEATS}
STRAINS = ("C", "D", "H", "S", "NT")
_N, _E, _S, _W = SEATS

# codes whose pending choice is about an irregular lead that sits, provisionally, as the trick's lead
_LEAD_CODES = ("OPENING_LEAD_OUT_OF_TURN", "LEAD_OUT_OF_TURN_DEFENDER", "LEAD_OUT_OF_TURN_DECLARER",
               "LEAD_FROM_WRONG_HAND")


class PlayRulingError(ValueError):
    """A ruling that does not apply now: no such open irregularity, an option the law does not offer, or a
    chooser who is not entitled to choose."""


class _Pending:
    """An irregularity that waits for a choice, with what the engine needs to apply each option."""

    __slots__ = ("irr", "offender", "trick", "card", "correct", "extra")

    def __init__(self, irr: Irregularity, offender: Seat, trick: int, card: str | None = None,
                 correct: Seat | None = None, **extra: Any) -> None:
        self.irr = irr
        self.offender = offender          # the offender (for 26/50D2 choices: the seat whose lead is restricted)
        self.trick = trick                # 1-based trick number where it happened
        self.card = card
        self.correct = correct            # the seat that should have led / played
        self.extra = extra


class _Ob:
    """A lead or play obligation from a chosen penalty: 57A (highest / lowest / forbid a suit, for one play),
    26 and 50D2 (require / forbid a suit for a lead; a prohibition lasts while the seat keeps the lead)."""

    __slots__ = ("seat", "kind", "suit", "trick", "irr", "law")

    def __init__(self, seat: Seat, kind: str, suit: str | None, trick: int, irr: Irregularity, law: str) -> None:
        self.seat, self.kind, self.suit, self.trick, self.irr, self.law = seat, kind, suit, trick, irr, law


class _Revoke:
    __slots__ = ("irr", "seat", "side", "trick", "card", "suit", "legal", "faced", "was_pc", "kind",
                 "linked", "exempt", "ob")

    def __init__(self, irr: Irregularity, seat: Seat, trick: int, card: str, suit: str,
                 legal: frozenset[str] | None, faced: bool, was_pc: bool, kind: str,
                 linked: Irregularity | None = None, ob: _Ob | None = None) -> None:
        self.irr = irr
        self.seat = seat
        self.side = _SIDE[seat]
        self.trick = trick                 # 1-based
        self.card = card                   # the card played in revoking
        self.suit = suit                   # suit led (failure to follow) or the suit of the obligation
        self.legal = legal                 # cards whose play would have been legal (64A2 1997 clause); None = compute at finish
        self.faced = faced                 # 64B3: failure to play a faced card (dummy's, a penalty card)
        self.was_pc = was_pc               # the revoke card itself was a faced penalty card (62B2)
        self.kind = kind                   # "follow" | "obligation" | "penalty_card" | "retro"
        self.linked = linked               # the FAILURE_TO_PLAY_PENALTY_CARD flag for the same card
        self.exempt: str | None = None  # "64B4" / "64B5" by the director's ruling
        self.ob = ob                       # the obligation it violated (restored if corrected)


def _rank(card: str) -> int:
    return CARD_RANK[card]


def _cards(cards: Iterable[str]) -> str:
    return " ".join(sort_cards(cards))


class Play:
    """The play of one board, card by card (see the module docstring)."""

    def __init__(self, declarer: Seat, strain: str, deal: Deal | None = None,
                 lead_penalties: Sequence[LeadPenalty] = ()) -> None:
        # the usual arguments (a Seat, a normalised strain) skip the normalising: it costs more than the rest
        self.declarer: Seat = declarer if declarer.__class__ is Seat else Seat(str(declarer).strip().upper()[:1])
        if strain.__class__ is str and strain in STRAINS:
            s = strain
        else:
            s = str(strain).strip().upper()
            s = "NT" if s in ("N", "NT", "SA") else s
            if s not in STRAINS:
                raise ValueError(f"not a strain: {strain!r}")
        self.strain = s
        self.trump: str | None = None if s == "NT" else s
        self.deal = deal
        self.irregularities: list[Irregularity] = []
        self.tricks: list[list[tuple[Seat, str]]] = [[]]
        self.winners: list[Seat] = []
        self._trick = self.tricks[0]
        self._leader: Seat = self.declarer.lho          # who should lead the current trick
        self._next: Seat = self._leader
        self._lead_suit: str | None = None
        self._hand: dict[Seat, set[str]] = {}
        self._cnt: dict[Seat, dict[str, int]] = {}
        self._known: dict[Seat, bool] = {}
        # who holds each card: the deal's own map, copied only when an event contradicts it (_set_owner)
        self._owner_map: dict[str, Seat] | None = None     # built on first use (``_owner``)
        self._owner_shared = deal is not None
        empty: frozenset[str] = frozenset()
        hands = deal.hands if deal is not None else {}
        counts = deal.suit_counts() if deal is not None else {}
        for seat in SEATS:
            cards = hands.get(seat, empty)
            self._hand[seat] = set(cards)
            held = counts.get(seat)
            self._cnt[seat] = held.copy() if held is not None else {"S": 0, "H": 0, "D": 0, "C": 0}
            self._known[seat] = len(cards) == 13      # revokes are detected at once only from a full hand record
        self._played: set[str] = set()
        self._pcs: dict[Seat, dict[str, str]] = {_N: {}, _E: {}, _S: {}, _W: {}}   # card -> "minor" | "major"
        self._pending: list[_Pending] = []
        self._revokes: list[_Revoke] = []
        self._open_revokes: list[_Revoke] = []
        self._lead_obs: list[_Ob] = []
        self._play_obs: list[_Ob] = []
        self._lps: list[LeadPenalty] = [lp for lp in lead_penalties
                                         if _SIDE[Seat(lp.offender)] != self.declarer.side] if lead_penalties else []
        self._had_lead: set[Seat] = set()
        self._insert_at: tuple[Seat, int] | None = None     # revoke correction: replacement's place
        self._replay_last = False                                # 62D after trick 13: replay the forced trick
        self._retracted: _Pending | None = None             # 55B2 retraction: window of Law 60B
        self._claimed: Seat | None = None
        self._shown_out: dict[Seat, dict[str, tuple[int, int, str]]] = {_N: {}, _E: {}, _S: {}, _W: {}}
        self._retro_done: set[tuple[Seat, str]] = set()
        self._start_flags: list[Irregularity] = []              # choices created when the current trick began
        self._slow = True
        if self._lps:
            self._trick_start([])
            self._update_slow()
        else:
            self._slow = not all(self._known.values())

    # ------------------------------------------------------------------ public read-only views
    @property
    def dummy(self) -> Seat:
        return _PARTNER[self.declarer]

    @property
    def next_seat(self) -> Seat:
        """Whose turn it is (dummy's seat when a dummy card is due)."""
        return self._next

    @property
    def complete(self) -> bool:
        return len(self.winners) == 13

    @property
    def trick_number(self) -> int:
        """1-based number of the current trick (14 once the play is complete)."""
        return len(self.winners) + 1

    @property
    def declarer_tricks(self) -> int:
        side = self.declarer.side
        return sum(1 for w in self.winners if _SIDE[w] == side)

    @property
    def defender_tricks(self) -> int:
        return len(self.winners) - self.declarer_tricks

    @property
    def awaiting(self) -> Irregularity | None:
        """The first open irregularity that waits for a choice (declarer's, the defenders', the
        director's); play is not blocked meanwhile (acceptance by action stays possible)."""
        for p in self._pending:
            if p.irr.open:
                return p.irr
        return None

    def remaining(self, seat: Seat) -> frozenset[str]:
        """Cards ``seat`` still holds (penalty cards included). For a seat without a full hand record:
        the cards known to be there."""
        return frozenset(self._hand[Seat(seat)])

    def penalty_cards(self, seat: Seat) -> dict[str, str]:
        """``{card: "minor" | "major"}`` for a defender's penalty cards on the table."""
        return dict(self._pcs[Seat(seat)])

    # ------------------------------------------------------------------ the card event
    def card(self, seat: Seat, card: str) -> list[Irregularity]:
        """Apply one played card; returns the irregularities flagged by it (usually none)."""
        if not self._slow and seat is self._next:
            hand = self._hand[seat]
            if card in hand:
                trick = self._trick
                suit = card[0]
                cnt = self._cnt[seat]
                if trick:
                    ls = self._lead_suit
                    if suit != ls and cnt[ls]:                  # type: ignore[index]
                        return self._card_slow(seat, card)      # a revoke: the checked path flags it
                else:
                    self._lead_suit = suit
                hand.remove(card)
                cnt[suit] -= 1
                self._played.add(card)
                trick.append((seat, card))
                if len(trick) == 4:
                    self._complete_trick([])
                else:
                    self._next = _LHO[seat]
                return []
        return self._card_slow(seat, card)

    def run_cards(self, events: Sequence[Any], i: int, card_cls: type) -> int:
        """Apply ``events[i:]`` while each is a ``card_cls`` event that ``card`` would take on its fast path
        (the right seat, a held card, suit followed, nothing pending); returns the index of the first event
        not applied. A batch replay's inner loop: the same steps as ``card``, without a call per card."""
        hand_of, cnt_of, played = self._hand, self._cnt, self._played
        n = len(events)
        while i < n and not self._slow:
            e = events[i]
            if e.__class__ is not card_cls:
                break
            seat, card = e.seat, e.card
            hand = hand_of[seat]
            if seat is not self._next or card not in hand:
                break
            trick = self._trick
            suit = card[0]
            cnt = cnt_of[seat]
            if trick:
                ls = self._lead_suit
                if suit != ls and cnt[ls]:                  # type: ignore[index]
                    break                                   # a revoke: ``card`` flags it
            else:
                self._lead_suit = suit
            hand.remove(card)
            cnt[suit] -= 1
            played.add(card)
            trick.append((seat, card))
            i += 1
            if len(trick) == 4:
                self._complete_trick([])
                if len(self.winners) == 13:
                    break
            else:
                self._next = _LHO[seat]
        return i

    # ------------------------------------------------------------------ helpers: flags
    def _flag(self, out: list[Irregularity], code: str, law: str, seat: Seat | None, trick: int, index: int,
              options: Sequence[Option] = (), detail: str = "", disposition: str | None = None,
              disposition_law: str | None = None) -> Irregularity:
        irr = Irregularity(code=code, law=law, seat=str(seat) if seat is not None else None, phase="play",
                           position={"trick": trick, "card": index}, options=list(options), detail=detail,
                           disposition=disposition, disposition_law=disposition_law)
        self.irregularities.append(irr)
        out.append(irr)
        return irr

    def _is_defender(self, seat: Seat) -> bool:
        return _SIDE[seat] != self.declarer.side

    def _update_slow(self) -> None:
        self._pending = [p for p in self._pending if p.irr.open]
        self._slow = bool(self._pending or self._open_revokes or self._lps or self._lead_obs or self._play_obs
                          or self._insert_at is not None or self._claimed is not None or self._retracted
                          or self._replay_last or any(self._pcs[s] for s in SEATS)
                          or not all(self._known[s] for s in SEATS) or not self._in_rotation())

    def _in_rotation(self) -> bool:
        """The current trick's cards came in rotation from its lead (the fast path relies on it)."""
        t = self._trick
        if len(t) < 2:
            return True
        s = t[0][0]
        for seat, _ in t[1:]:
            s = _LHO[s]
            if seat != s:
                return False
        return True

    # ------------------------------------------------------------------ helpers: holdings
    def _holds(self, seat: Seat, suit: str) -> bool | None:
        """Whether ``seat`` holds a card of ``suit`` now: True/False from a full hand record; for a seat
        without one, True when a held card of the suit is known, else None (unknown)."""
        if self._known[seat]:
            return self._cnt[seat][suit] > 0
        return True if any(c[0] == suit for c in self._hand[seat]) else None

    def _held(self, seat: Seat, suit: str | None = None) -> list[str]:
        return [c for c in self._hand[seat] if suit is None or c[0] == suit]

    @property
    def _owner(self) -> dict[str, Seat]:
        owner = self._owner_map
        if owner is None:
            owner = self._owner_map = self.deal.owner if self.deal is not None else {}
        return owner

    def _set_owner(self, card: str, seat: Seat) -> None:
        if self._owner_shared:                    # copy on first write: the deal's own map must not change
            self._owner_map = dict(self._owner)
            self._owner_shared = False
        self._owner[card] = seat

    def _unplay(self, seat: Seat, card: str) -> None:
        """Return a played card (already taken out of its trick) to ``seat``'s hand. A card that is still
        counted elsewhere (a CARD_ALREADY_PLAYED duplicate) stays played."""
        if any(c == card for t in self.tricks for _, c in t):
            return
        self._played.discard(card)
        if not any(card in self._hand[s] for s in SEATS):
            self._hand[seat].add(card)
            self._cnt[seat][card[0]] += 1

    def _add_pc(self, seat: Seat, card: str, major: bool) -> None:
        """Make ``card`` (held by the defender ``seat``) a penalty card; 50B: two or more are all major."""
        if card in self._played:
            return                                # a card counted as played cannot also lie as a penalty card
        if card not in self._hand[seat]:
            for other in SEATS:
                if other != seat and card in self._hand[other]:
                    # a CARD_ALREADY_PLAYED duplicate was handed back to another seat: a pack holds the card
                    # once (Law 1), and the ruling says the offender played it, so it is his
                    self._hand[other].discard(card)
                    self._cnt[other][card[0]] -= 1
                    self._pcs[other].pop(card, None)
                    self._known[other] = self._known[seat] = False
            self._hand[seat].add(card)
            self._cnt[seat][card[0]] += 1
        pcs = self._pcs[seat]
        pcs[card] = "major" if major else "minor"
        if len(pcs) >= 2:
            for c in pcs:
                pcs[c] = "major"

    def _recompute_next(self) -> None:
        trick = self._trick
        self._lead_suit = trick[0][1][0] if trick else None
        if self._insert_at is not None:
            self._next = self._insert_at[0]
        elif not trick:
            self._next = self._leader
        else:
            played = {s for s, _ in trick}
            s = trick[0][0]
            for _ in range(4):
                if s not in played:
                    self._next = s
                    return
                s = _LHO[s]

    # ------------------------------------------------------------------ the checked path
    def _card_slow(self, seat: Seat, card: str) -> list[Irregularity]:
        out: list[Irregularity] = []
        self._slow = True
        seat = Seat(str(seat).strip().upper()[:1])
        if card not in CARD_SET:
            card = parse_card(card)                   # a malformed card is an input error, not an irregularity
        n = len(self.winners) + 1
        trick = self._trick
        here = len(trick) if not self.complete else 0
        if self._claimed is not None:
            self._flag(out, "PLAY_AFTER_CLAIM", "68D", seat, n, here,
                       [Option("void", "68D: play ceases after a claim; the director voids later plays", "director")],
                       f"{seat} played {card} after {self._claimed}'s claim; not counted")
            return out
        if self.complete:
            if card in self._played:
                self._flag(out, "CARD_ALREADY_PLAYED", "1", seat, 13, 4, [], f"{card} reported by {seat} after trick 13; "
                           "it was played before (repeated read or a recording error); ignored")
            else:
                self._flag(out, "DEFECTIVE_TRICK", "67B", seat, 13, 4,
                           [Option("director", "67B1: the player who kept a card omitted a play to an earlier trick", "director")],
                           f"{seat} still had {card} after 13 tricks: a play was omitted (or the record is wrong)")
            return out

        # ---- identity of the card
        if card in self._played:
            mine = any(s == seat for s, _ in trick) or (
                not trick and self.winners and (seat, card) in self.tricks[len(self.winners) - 1])
            if mine:
                # a repeated report of a card this seat already played to this (or the just completed) trick
                self._flag(out, "CARD_ALREADY_PLAYED", "1", seat, n, here, [],
                           f"{card} reported again by {seat}: repeated read; ignored")
                self._update_slow()
                return out
            # Law 1: a pack holds 52 different cards, so a card cannot be played twice. Either the pack is
            # defective (Laws 1, 13, 14) or the event/record is wrong; only the director can tell. The card is
            # counted as this seat's play so the trick structure (and everything after it) stays usable, and
            # the seat's hand record is no longer trusted (no revoke is inferred from it).
            self._flag(out, "CARD_ALREADY_PLAYED", "1", seat, n, here,
                       [Option("director", "establish which card was really played (Laws 1, 13, 14, 67)", "director")],
                       f"{card} was already played earlier; counted as {seat}'s card to keep the trick")
            self._known[seat] = False
        elif card not in self._hand[seat]:
            owner = self._owner.get(card)
            if owner is not None and owner != seat:
                self._flag(out, "HAND_RECORD_MISMATCH", "13A1", seat, n, here,
                           [Option("director", "13A1: correct from the hand record, or score as a fouled board (87)",
                                   "director")],
                           f"{seat} played {card}, which the hand record gives to {owner}; accepted as played")
                self._hand[owner].discard(card)
                self._cnt[owner][card[0]] -= 1
                self._pcs[owner].pop(card, None)
                self._set_owner(card, seat)
                self._known[seat] = self._known[owner] = False
            elif self._known[seat]:
                self._flag(out, "HAND_RECORD_MISMATCH", "13A1", seat, n, here,
                           [Option("director", "13A1: correct from the hand record", "director")],
                           f"{seat} played {card}, which is not in his recorded hand; accepted as played")
                self._known[seat] = False
            if card not in self._hand[seat]:
                self._hand[seat].add(card)            # he physically held it: bookkeeping follows the event
                self._cnt[seat][card[0]] += 1
                self._set_owner(card, seat)

        # ---- acceptance by action and other effects of this card on pending choices
        suppress_oot = self._resolve_pending(seat, card, out)
        trick = self._trick
        n = len(self.winners) + 1

        # ---- classification
        if self._insert_at is not None and seat == self._insert_at[0]:
            idx = self._insert_at[1]
            self._insert_at = None
            self._place(seat, card, idx, out, checks=True)
        elif not trick:
            if seat == self._next:
                self._retracted = None
                self._place(seat, card, 0, out, checks=True)
            else:
                self._irregular_lead(seat, card, out)
        elif any(s == seat for s, _ in trick):
            self._extra_card(seat, card, out)
        elif seat == self._next or suppress_oot:
            self._place(seat, card, len(trick), out, checks=True)
        else:
            self._out_of_turn_play(seat, card, out)
        self._update_slow()
        return out

    # ------------------------------------------------------------------ pending choices vs the new card
    def _resolve_pending(self, seat: Seat, card: str, out: list[Irregularity]) -> bool:
        """Apply acceptance by action (53A, 54B, 60A1, 52B1), 53B/53C, and lapses; returns True when this
        card is a play the law lets stand out of rotation (54B2)."""
        suppress = False
        for p in list(self._pending):
            irr = p.irr
            if not irr.open:
                continue
            code = irr.code
            nos = _SIDE[seat] != _SIDE[p.offender]
            if code in _LEAD_CODES:
                if not nos or not self._trick or self._trick[0] != (p.offender, p.card):
                    continue                       # 60C: the offending side's card does not affect NOS rights
                off = p.offender
                if code == "OPENING_LEAD_OUT_OF_TURN":
                    if seat == self.declarer:
                        irr.dispose("accepted_by_action", "54B1")
                    else:                          # dummy's card played second: it stands (54B2)
                        irr.dispose("accepted_by_action", "54B2")
                        suppress = True
                elif seat == _LHO[off]:
                    irr.dispose("accepted_by_action", "53A")
                elif seat == p.correct:
                    # 53C: the correct leader, an opponent of the offender, leads: his lead stands and the cards
                    # played in error to the trick are withdrawn without penalty
                    self._withdraw_trick("53C")
                    self._leader = p.correct
                    irr.dispose("superseded_by_correct_lead", "53C")
                    self._recompute_next()
                elif code in ("LEAD_OUT_OF_TURN_DECLARER", "LEAD_FROM_WRONG_HAND"):
                    irr.dispose("accepted_by_action", "53B")   # the defender at the right of the hand that led: 57
                else:
                    irr.dispose("accepted_by_action", "60A1")
            elif code in ("PREMATURE_PLAY", "PREMATURE_LEAD", "PLAY_OUT_OF_TURN"):
                if p.trick != len(self.winners) + 1:
                    continue
                if nos:
                    irr.dispose("accepted_by_action", "60A1")
                    if code == "PREMATURE_LEAD" and p.card in self._pcs[p.offender]:
                        del self._pcs[p.offender][p.card]      # forfeited: no longer a penalty card
                elif code != "PLAY_OUT_OF_TURN" and seat == _PARTNER[p.offender]:
                    irr.dispose("referred_to_director", "60C")
                    irr.detail += "; the offender's partner played before declarer chose (60C: director)"
            elif code == "FAILURE_TO_PLAY_PENALTY_CARD":
                if not nos:
                    continue
                if seat == self.declarer or seat == self.dummy:
                    irr.dispose("accepted_by_action", "52B1")
            elif code in ("LEAD_PENALTY_PENDING", "PENALTY_CARD"):
                if seat == p.offender and not self._trick and seat == self._next:
                    irr.dispose("lapsed_no_choice", irr.law)
                    irr.detail += f"; {seat} led {card} before declarer chose: the card stands as the lead (director may rule)"
        self._pending = [p for p in self._pending if p.irr.open]
        return suppress

    # ------------------------------------------------------------------ counting a card into the trick
    def _place(self, seat: Seat, card: str, idx: int, out: list[Irregularity], checks: bool) -> None:
        n = len(self.winners) + 1
        trick = self._trick
        lead = idx == 0
        was_pc = card in self._pcs[seat]
        if checks:
            self._check_card(seat, card, idx, lead, was_pc, out)
        # establishment of pending revokes: any card by the offending side to a later trick (63A1)
        if self._open_revokes:
            side = _SIDE[seat]
            for rv in list(self._open_revokes):
                if rv.side == side and rv.trick < n:
                    self._establish(rv, "63A1")
        # bookkeeping
        hand = self._hand[seat]
        if card in hand:
            hand.remove(card)
            self._cnt[seat][card[0]] -= 1
        if was_pc:
            del self._pcs[seat][card]
        self._played.add(card)
        trick.insert(idx, (seat, card))
        # show-outs and retroactive revokes for seats without a trusted hand record
        if not self._known[seat]:
            self._retro(seat, card, n, idx, out)
        elif not lead:
            ls = trick[0][1][0]
            if card[0] != ls and not self._cnt[seat][ls] and ls not in self._shown_out[seat]:
                self._shown_out[seat][ls] = (n, idx, card)      # void per the record (kept if the record fails later)
        for ob in list(self._play_obs):
            if ob.seat == seat:
                self._play_obs.remove(ob)
        self._recompute_next()
        if len(trick) == 4:
            self._complete_trick(out)

    def _retro(self, seat: Seat, card: str, n: int, idx: int, out: list[Irregularity]) -> None:
        """Without a hand record a revoke shows when a seat plays a suit it failed to follow earlier."""
        trick = self._trick
        so = self._shown_out[seat]
        suit = card[0]
        if suit in so and (seat, suit) not in self._retro_done:
            t, k, rcard = so[suit]
            self._retro_done.add((seat, suit))
            code = "REVOKE_TRICK12" if t == 12 else "REVOKE"
            irr = self._flag(out, code, "62D" if t == 12 else "61A", seat, t, k, [],
                             f"{seat} played {rcard} on a {SUIT_NAME[suit]} lead at trick {t} and {card} at trick {n}: "
                             "failure to follow suit (44C), detected afterwards", "established", "63A1")
            rv = _Revoke(irr, seat, t, rcard, suit, None, seat == self.dummy, False, "retro")
            self._revokes.append(rv)
        if idx > 0 and trick:
            ls = trick[0][1][0]
            if suit != ls and ls not in so:
                so[ls] = (n, idx, card)

    def _complete_trick(self, out: list[Irregularity]) -> None:
        trick = self._trick
        (s0, c0), (s1, c1), (s2, c2), (s3, c3) = trick
        try:
            # trick_winner_index unrolled on the four cards (it runs once a trick on the fast path)
            power = TRICK_POWER[self.trump][c0[0]]
            w, best = s0, power[c0]
            p = power[c1]
            if p > best:
                w, best = s1, p
            p = power[c2]
            if p > best:
                w, best = s2, p
            if power[c3] > best:
                w = s3
        except KeyError:                              # a string that is not a card (from a bare Deal)
            w = trick[trick_winner_index([c0, c1, c2, c3], self.trump)][0]
        winners = self.winners
        winners.append(w)
        if self._play_obs:
            self._play_obs.clear()
        if len(winners) < 13:
            self._trick = []
            self.tricks.append(self._trick)
            self._leader = w
            self._next = w
            self._lead_suit = None
            if self._slow:
                self._trick_start(out)
                if self._replay_last and len(self.winners) == 12:
                    self._replay_forced_last(out)
        else:
            for p in self._pending:                  # choices about later leads are moot once play is over
                if p.irr.open and p.irr.code in ("LEAD_PENALTY_PENDING", "PENALTY_CARD"):
                    p.irr.dispose("lapsed_end_of_play", p.irr.law)

    def _replay_forced_last(self, out: list[Irregularity]) -> None:
        """62D after trick 13 was played: the corrected 12th trick is complete; the 13th is forced."""
        self._replay_last = False
        if all(len(self._hand[s]) == 1 for s in SEATS):
            s = self._leader
            for _ in range(4):
                c = next(iter(self._hand[s]))
                self._place(s, c, len(self._trick), out, checks=False)
                s = _LHO[s]

    def _trick_start(self, out: list[Irregularity]) -> None:
        """A trick begins with ``self._leader`` on lead: clear spent lead obligations; first lead of a seat
        restricted by Law 26; Law 50D2 choice when the leader's partner has a major penalty card."""
        leader = self._leader
        n = len(self.winners) + 1
        self._start_flags = []
        self._lead_obs = [ob for ob in self._lead_obs if ob.seat == leader and ob.kind == "forbid"]
        for p in self._pending:
            if p.irr.open and p.irr.code == "PENALTY_CARD" and p.offender != leader:
                p.irr.dispose("lapsed", p.irr.law)
                p.irr.detail += f"; {p.offender} did not lead that trick"
            elif p.irr.open and p.irr.code == "LEAD_PENALTY_PENDING" and p.offender != leader:
                # somebody else's lead stood (e.g. an accepted lead out of turn): the restricted player has not
                # had his first lead yet, so the Law 26 choice waits for it (flagged again then)
                p.irr.dispose("deferred", p.irr.law)
                p.irr.detail += f"; {p.offender} did not lead that trick: the choice waits for his first lead"
                self._lps.append(p.extra["lp"])
                self._had_lead.discard(p.offender)
        if not self._is_defender(leader):
            return
        if leader not in self._had_lead:
            self._had_lead.add(leader)
            for lp in [lp for lp in self._lps if Seat(lp.restricted) == leader]:
                self._lps.remove(lp)
                law = "26A2" if lp.law.upper().startswith("26A") else "26B"
                if law == "26A2":
                    opts = [Option(f"require:{s}", f"require the lead of {SUIT_NAME[s]} (26A2)", "declarer")
                            for s in SUITS if s in lp.suits]
                    opts += [Option(f"forbid:{s}", f"forbid the lead of {SUIT_NAME[s]} while {leader} keeps the lead (26A2)",
                                    "declarer") for s in SUITS if s in lp.suits]
                else:
                    opts = [Option(f"forbid:{s}", f"forbid the lead of {SUIT_NAME[s]} while {leader} keeps the lead (26B)",
                                   "declarer") for s in SUITS]
                opts.append(Option("none", "no lead restriction", "declarer"))
                irr = self._flag(out, "LEAD_PENALTY_PENDING", law, leader, n, 0, opts,
                                 f"{leader}'s first lead; his partner {lp.offender}'s call was withdrawn"
                                 + (f" ({lp.source_code})" if lp.source_code else "")
                                 + ": declarer chooses before the lead; not complying when able is a revoke (61A)")
                self._pending.append(_Pending(irr, leader, n, lp=lp))
                self._start_flags.append(irr)
        self._check_50d2(out)

    def _check_50d2(self, out: list[Irregularity]) -> None:
        leader = self._leader
        if self._trick or not self._is_defender(leader):
            return
        pard = _PARTNER[leader]
        majors = [c for c, k in self._pcs[pard].items() if k == "major"]
        if not majors:
            return
        if any(p.irr.code == "PENALTY_CARD" and p.offender == leader for p in self._pending):
            return
        n = len(self.winners) + 1
        suits = [s for s in SUITS if any(c[0] == s for c in majors)]
        law = "51B" if len(self._pcs[pard]) >= 2 else "50D2"
        opts = [Option(f"require:{s}", f"require the lead of {SUIT_NAME[s]}; the {SUIT_NAME[s]} penalty card(s) are "
                       f"picked up ({law}a)", "declarer") for s in suits]
        opts += [Option(f"forbid:{s}", f"forbid {SUIT_NAME[s]} while {leader} keeps the lead; the {SUIT_NAME[s]} "
                        f"penalty card(s) are picked up", "declarer") for s in suits]
        opts.append(Option("none", "no restriction: any lead, the card(s) stay penalty cards (50D2b)", "declarer"))
        irr = self._flag(out, "PENALTY_CARD", law, leader, n, 0, opts,
                         f"{leader} to lead while partner {pard} has major penalty card(s) {_cards(majors)}; "
                         f"{leader} may not lead until declarer has chosen (50D2)")
        self._pending.append(_Pending(irr, leader, n))
        self._start_flags.append(irr)

    # ------------------------------------------------------------------ legality checks of a counted card
    def _legal_set(self, seat: Seat, lead: bool) -> set[str] | None:
        """Cards ``seat`` may legally play now (44C first, then chosen lead/play penalties, 59), or None
        when his holding is not known well enough to say."""
        held = set(self._hand[seat])
        if not lead:
            ls = self._trick[0][1][0]
            h = self._holds(seat, ls)
            if h is None:
                return None
            if h:
                held = {c for c in held if c[0] == ls}
            for ob in self._play_obs:
                if ob.seat == seat:
                    held = self._apply_play_ob(ob, held, ls)
        else:
            for ob in self._lead_obs:
                if ob.seat == seat:
                    held = self._apply_lead_ob(ob, held)
        return held

    @staticmethod
    def _apply_play_ob(ob: _Ob, held: set[str], ls: str) -> set[str]:
        suit_cards = [c for c in held if c[0] == ls]
        if ob.kind in ("highest", "lowest") and suit_cards:
            pick = max(suit_cards, key=_rank) if ob.kind == "highest" else min(suit_cards, key=_rank)
            return {pick}
        if ob.kind == "forbid":
            rest = {c for c in held if c[0] != ob.suit}
            return rest or held                    # 59: unable to comply -> any legal card
        return held

    @staticmethod
    def _apply_lead_ob(ob: _Ob, held: set[str]) -> set[str]:
        if ob.kind == "require":
            sub = {c for c in held if c[0] == ob.suit}
        else:
            sub = {c for c in held if c[0] != ob.suit}
        return sub or held                         # 59

    def _check_card(self, seat: Seat, card: str, idx: int, lead: bool, was_pc: bool, out: list[Irregularity]) -> None:
        n = len(self.winners) + 1
        trick = self._trick
        # 1. follow suit (44C) - overrides every other obligation
        if not lead:
            ls = trick[0][1][0]
            if card[0] != ls and self._holds(seat, ls):
                legal = frozenset(self._held(seat, ls))
                faced = seat == self.dummy or (bool(legal) and all(c in self._pcs[seat] for c in legal))
                self._flag_revoke(out, seat, card, n, idx, ls, legal, faced, was_pc, "follow",
                                  f"{seat} played {card} on a {SUIT_NAME[ls]} lead holding {_cards(legal)}: "
                                  "failure to follow suit (44C)")
                return
            # 2. 57A play penalty on this seat
            for ob in list(self._play_obs):
                if ob.seat != seat or not self._known[seat]:
                    continue
                allowed = self._apply_play_ob(ob, set(self._held(seat, ls)) if self._holds(seat, ls)
                                              else set(self._hand[seat]), ls)
                if card not in allowed:
                    self._flag_revoke(out, seat, card, n, idx, ob.suit or ls, frozenset(allowed), False, was_pc,
                                      "obligation", f"{seat} played {card} against declarer's 57A choice "
                                      f"'{ob.kind}{':' + ob.suit if ob.kind == 'forbid' else ''}' while able to comply (61A)",
                                      ob=ob)
                    return
        else:
            # 3. lead penalties (26, 50D2)
            for ob in list(self._lead_obs):
                if ob.seat != seat:
                    continue
                allowed = self._apply_lead_ob(ob, set(self._hand[seat]))
                if ob.kind == "require":
                    self._lead_obs.remove(ob)       # a requirement binds this lead only
                if self._known[seat] and card not in allowed:
                    self._flag_revoke(out, seat, card, n, idx, ob.suit or card[0], frozenset(allowed), False, was_pc,
                                      "obligation", f"{seat} led {card} although declarer chose '{ob.kind}:{ob.suit}' "
                                      f"({ob.law}) and he could comply: revoke (61A)", ob=ob)
                    return
        # 4. penalty cards (50C, 50D1, 51A; failure -> 52, also a revoke 61A with no transfer 64B3)
        pcs = self._pcs[seat]
        if pcs and not was_pc:
            legal = self._legal_set(seat, lead)
            majors = sorted(c for c, k in pcs.items() if k == "major" and legal is not None and c in legal)
            minor_bar = [c for c, k in pcs.items() if k == "minor" and c[0] == card[0] and card[1] not in HONORS]
            due = majors or minor_bar
            if due:
                why = (f"major penalty card(s) {_cards(majors)} due at the first legal opportunity (50D1)" if majors
                       else f"minor penalty card {minor_bar[0]} must be played before another small {SUIT_NAME[card[0]]} (50C)")
                opts = [Option("accept", "accept the card played; the penalty card stays a penalty card (52B1)", "declarer")]
                if len(due) == 1:
                    opts.append(Option("substitute", f"require {due[0]} instead; {card} becomes a major penalty card (52B2)",
                                       "declarer"))
                else:
                    opts += [Option(f"substitute:{c}", f"require {c} instead; {card} becomes a major penalty card (52B2)",
                                    "declarer") for c in due]
                f = self._flag(out, "FAILURE_TO_PLAY_PENALTY_CARD", "52", seat, n, idx, opts,
                               f"{seat} played {card}: {why}; declarer must accept once he has played on (52B1)")
                self._pending.append(_Pending(f, seat, n, card, due=due))
                self._flag_revoke(out, seat, card, n, idx, due[0][0], frozenset(due), True, was_pc, "penalty_card",
                                  f"failure to play penalty card {_cards(due)} when able (61A; no trick transfer, 64B3)",
                                  linked=f)

    def _flag_revoke(self, out: list[Irregularity], seat: Seat, card: str, n: int, idx: int, suit: str,
                     legal: frozenset[str], faced: bool, was_pc: bool, kind: str, detail: str,
                     linked: Irregularity | None = None, ob: _Ob | None = None) -> _Revoke:
        if n == 12:
            code, law = "REVOKE_TRICK12", "62D"
            opts = [Option("correct", "62D1: must be corrected, even if established, before the hands are returned; "
                           "no trick transfer (64B6)", str(self.declarer if seat == self.dummy else seat))]
        else:
            code, law = "REVOKE", "61A"
            opts = [Option("correct", "62A: the offender must correct it before it is established: withdraw the card "
                           "(a defender's becomes a major penalty card, 62B1; declarer/dummy: no penalty, 62B2) and play "
                           "a legal card", str(self.declarer if seat == self.dummy else seat))]
        opts += [Option("64B4", "no transfer: attention first drawn after the non-offending side called on the next board",
                        "director"),
                 Option("64B5", "no transfer: attention first drawn after the round ended", "director")]
        irr = self._flag(out, code, law, seat, n, idx, opts, detail)
        rv = _Revoke(irr, seat, n, card, suit, legal, faced, was_pc, kind, linked, ob)
        if kind == "follow":
            self._retro_done.add((seat, suit))       # never flagged a second time by the no-record inference
        self._revokes.append(rv)
        self._open_revokes.append(rv)
        return rv

    def _establish(self, rv: _Revoke, law: str) -> None:
        if rv in self._open_revokes:
            self._open_revokes.remove(rv)
        if rv.irr.open:
            rv.irr.dispose("established", law)

    # ------------------------------------------------------------------ irregular leads and plays
    def _irregular_lead(self, seat: Seat, card: str, out: list[Irregularity]) -> None:
        n = len(self.winners) + 1
        correct = self._next
        if self._retracted is not None and self._is_defender(seat):
            # 60B: declarer was required to lead from the correct hand; a defender played first
            self._add_pc(seat, card, major=True)
            self._establish_by_extra(seat, n - 1)
            self._flag(out, "PLAY_AFTER_IRREGULAR_LEAD", "60B", seat, n, 0, [],
                       f"{seat} played {card} before declarer led from the correct hand ({correct}): "
                       "it becomes a penalty card (60B, 50)", "penalty_card", "60B")
            return
        note = ""
        if self.winners and self.tricks[n - 2][-1][0] == seat:
            note = f"; {seat} played the last card of trick {n - 1}: the director may deem this a fifth card to it (45E)"
        if self._is_defender(seat):
            if n == 1:
                code, law = "OPENING_LEAD_OUT_OF_TURN", "54"
                opts = [Option("spread", f"54A: declarer spreads his hand and becomes dummy; {_PARTNER[self.declarer]} "
                               f"becomes declarer and {card} is the opening lead", "declarer"),
                        Option("accept", "54B: accept the lead (53A); dummy is spread and the second card comes from "
                               "declarer's own hand (54C: must accept if he may have seen dummy's cards)", "declarer"),
                        Option("refuse", f"54D/56: {card} becomes a major penalty card; {correct} leads and declarer "
                               "has the 50D2 options", "declarer")]
            else:
                code, law = "LEAD_OUT_OF_TURN_DEFENDER", "56"
                opts = [Option("accept", "53A: accept the lead", "declarer"),
                        Option("refuse", f"56: {card} becomes a major penalty card; {correct} leads (50D2 options when "
                               f"{_PARTNER[seat]} leads)", "declarer")]
            detail = f"{seat} led {card}; {correct} was on lead{note}"
        else:
            if self._is_defender(correct):
                code, law = "LEAD_OUT_OF_TURN_DECLARER", "55B1"
                opts = [Option("accept", "53A: accept the lead", "defenders"),
                        Option("retract", "55B1: declarer restores the card without penalty", "defenders")]
            else:
                code, law = "LEAD_FROM_WRONG_HAND", "55B2"
                opts = [Option("accept", "53A: accept the lead", "defenders"),
                        Option("lead_from_correct_hand", f"55B2: the card is withdrawn and declarer leads from {correct}; "
                               "a defender's card played before that lead becomes a penalty card (60B)", "defenders")]
            detail = f"{seat} led {card}; {correct} was on lead{note}"
        irr = self._flag(out, code, law, seat, n, 0, opts, detail)
        self._pending.append(_Pending(irr, seat, n, card, correct))
        self._place(seat, card, 0, out, checks=False)

    def _out_of_turn_play(self, seat: Seat, card: str, out: list[Irregularity]) -> None:
        n = len(self.winners) + 1
        trick = self._trick
        played = {s for s, _ in trick}
        idx = len(trick)
        if self._is_defender(seat) and _PARTNER[seat] not in played:
            pard = _PARTNER[seat]
            if self.declarer in played and self.dummy in played:
                self._flag(out, "PREMATURE_PLAY", "57A", seat, n, idx, [],
                           f"{seat} played {card} before his partner {pard}; declarer had played from both hands",
                           "no_penalty", "57C")
            else:
                ls = trick[0][1][0]
                irr = self._flag(out, "PREMATURE_PLAY", "57A", seat, n, idx, self._opts57(ls, pard),
                                 f"{seat} played {card} before his partner {pard} ({self._next} was due); if declarer "
                                 f"chooses, {card} becomes a major penalty card and the choice binds {pard}")
                self._pending.append(_Pending(irr, seat, n, card, self._next, lead_suit=ls))
        elif self._is_defender(seat):
            irr = self._flag(out, "PLAY_OUT_OF_TURN", "49", seat, n, idx,
                             [Option("stands", "the card stands as played in rotation (60A2)", "director"),
                              Option("penalty_card", f"{card} is withdrawn as a major penalty card (49, 50B)", "director")],
                             f"{seat} played {card} out of rotation ({self._next} was due); partner had played")
            self._pending.append(_Pending(irr, seat, n, card, self._next))
        else:
            self._flag(out, "PLAY_OUT_OF_TURN", "45C", seat, n, idx, [],
                       f"{seat} played {card} out of rotation ({self._next} was due): the card stands (45C, 47F); "
                       "declarer's and dummy's cards never become penalty cards (48A)", "stands", "47F")
        self._place(seat, card, idx, out, checks=True)

    @staticmethod
    def _opts57(lead_suit: str, pard: Seat) -> list[Option]:
        opts = [Option("highest", f"57A1: {pard} must play his highest {SUIT_NAME[lead_suit]}", "declarer"),
                Option("lowest", f"57A2: {pard} must play his lowest {SUIT_NAME[lead_suit]}", "declarer")]
        opts += [Option(f"forbid:{s}", f"57A3: {pard} may not play a {SUIT_NAME[s][:-1]}", "declarer")
                 for s in SUITS if s != lead_suit]
        return opts

    def _extra_card(self, seat: Seat, card: str, out: list[Irregularity]) -> None:
        """A second card by a seat that already played to this trick: not counted (45E, 58B, 57A)."""
        n = len(self.winners) + 1
        trick = self._trick
        played = {s for s, _ in trick}
        idx = len(trick)
        defender = self._is_defender(seat)
        if defender and _PARTNER[seat] not in played and trick[-1][0] != seat:
            if self.declarer in played and self.dummy in played:
                self._flag(out, "PREMATURE_LEAD", "57A", seat, n, idx, [],
                           f"{seat} led {card} to the next trick before his partner played; declarer had played from "
                           "both hands: no penalty, the card goes back to his hand", "no_penalty", "57C")
                return
            self._add_pc(seat, card, major=True)
            ls = trick[0][1][0]
            irr = self._flag(out, "PREMATURE_LEAD", "57A", seat, n, idx, self._opts57(ls, _PARTNER[seat]),
                             f"{seat} led {card} to the next trick before his partner {_PARTNER[seat]} played to this "
                             f"one: {card} is a major penalty card (57A, 50B)")
            self._pending.append(_Pending(irr, seat, n, card, None, lead_suit=ls))
            self._establish_by_extra(seat, n)
            return
        code, law = ("MULTIPLE_CARDS_PLAYED", "58B") if trick[-1][0] == seat else ("FIFTH_CARD_TO_TRICK", "45E")
        first = next(c for s, c in trick if s == seat)
        if defender:
            major = card[1] in HONORS or bool(self._pcs[seat])
            self._add_pc(seat, card, major=major)
            kind = self._pcs[seat][card]
            self._flag(out, code, law, seat, n, idx, [],
                       f"{seat} played {card} after {first} to the same trick: not counted; {card} becomes a {kind} "
                       + ("penalty card (58B2: the player may designate which card was played; director)" if code ==
                          "MULTIPLE_CARDS_PLAYED" else "penalty card (45E1; the director may deem it a lead, 53/56)"),
                       "penalty_card", "58B2" if code == "MULTIPLE_CARDS_PLAYED" else "45E1")
        else:
            self._flag(out, code, law, seat, n, idx, [],
                       f"{seat} played {card} after {first} to the same trick: not counted; no penalty for declarer "
                       "(45E2, 48A); the card goes back to the hand", "no_penalty",
                       "45E2" if code == "FIFTH_CARD_TO_TRICK" else "48A")

    def _establish_by_extra(self, seat: Seat, n: int) -> None:
        """A card not counted in a trick but led to the trick after ``n`` (a premature lead, a card played
        before declarer's corrected lead) still establishes the side's revokes up to trick ``n`` (63A1)."""
        for rv in list(self._open_revokes):
            if rv.side == _SIDE[seat] and rv.trick <= n:
                self._establish(rv, "63A1")

    # ------------------------------------------------------------------ withdrawal of a played card
    def _withdraw(self, seat: Seat, card: str, law: str) -> None:
        """Take ``card`` back out of the current trick into ``seat``'s hand; revokes made with it lapse."""
        trick = self._trick
        if (seat, card) in trick:
            trick.remove((seat, card))
        self._unplay(seat, card)
        for rv in list(self._open_revokes):
            if rv.seat == seat and rv.card == card and rv.trick == len(self.winners) + 1:
                self._open_revokes.remove(rv)
                rv.irr.dispose("card_withdrawn", law)
                if rv.linked is not None and rv.linked.open:
                    rv.linked.dispose("card_withdrawn", law)
        self._recompute_next()

    def _withdraw_trick(self, law: str) -> None:
        """Take every card of the current trick back, the last played first: of two plays of one card (a
        CARD_ALREADY_PLAYED duplicate) the earlier goes back to its hand, the later stays counted out."""
        for s, c in reversed(list(self._trick)):
            self._withdraw(s, c, law)
        self._trick.clear()

    def _reopen_last_trick(self) -> None:
        """Make the last completed trick current again (its winner is undone); only while the next trick is
        still empty. Choices created when the next trick began are dropped."""
        if self.complete:                     # the 13th trick is still "current": only its winner is undone
            self.winners.pop()
            self._trick = self.tricks[-1]
            self._leader = self._trick[0][0]
            return
        if self._trick or not self.winners:
            raise PlayRulingError("the trick is no longer the current one")
        self.tricks.pop()
        self._drop_start_flags()
        self.winners.pop()
        self._trick = self.tricks[-1]
        self._leader = self._trick[0][0]

    def _drop_start_flags(self) -> None:
        """Choices created when a trick began are dropped when that trick start is undone."""
        for irr in self._start_flags:
            if irr.open and irr in self.irregularities:
                self.irregularities.remove(irr)
                for p in self._pending:
                    if p.irr is irr and "lp" in p.extra:
                        self._lps.append(p.extra["lp"])
                        self._had_lead.discard(p.offender)
        self._pending = [p for p in self._pending if p.irr not in self._start_flags]
        self._start_flags = []

    # ------------------------------------------------------------------ exposures
    def expose(self, seat: Seat, cards: Sequence[str], deliberate: bool) -> list[Irregularity]:
        """A defender's card(s) exposed other than by playing them (Laws 24, 49): penalty cards, minor for a
        single inadvertent 9-or-lower, else major (50B). Declarer's and dummy's cards never (48A)."""
        out: list[Irregularity] = []
        seat = Seat(str(seat).strip().upper()[:1])
        if not self._is_defender(seat):
            log.debug("exposure by %s ignored: declarer's and dummy's cards are never penalty cards (48A)", seat)
            return out
        n = len(self.winners) + 1
        new = []
        for c in cards:
            c = parse_card(c) if c not in CARD_SET else c
            if c in self._played or c in self._pcs[seat]:
                continue
            owner = self._owner.get(c)
            if owner is not None and owner != seat:
                self._flag(out, "HAND_RECORD_MISMATCH", "13A1", seat, n, len(self._trick),
                           [Option("director", "13A1: correct from the hand record", "director")],
                           f"{seat} exposed {c}, which the hand record gives to {owner}")
                self._hand[owner].discard(c)
                self._cnt[owner][c[0]] -= 1
                self._set_owner(c, seat)
                self._known[seat] = self._known[owner] = False
            major = deliberate or c[1] in HONORS
            self._add_pc(seat, c, major)
            new.append(c)
        if new:
            kinds = ", ".join(f"{c} {self._pcs[seat][c]}" for c in sort_cards(new))
            self._flag(out, "EXPOSED_CARD", "49", seat, n, len(self._trick), [],
                       f"{seat} exposed {_cards(new)}: penalty card(s) ({kinds}; 50B"
                       + ("; two or more penalty cards are all major" if len(self._pcs[seat]) >= 2 else "") + ")",
                       "penalty_card", "50B")
            self._check_50d2(out)
        self._update_slow()
        return out

    # ------------------------------------------------------------------ explicit choices
    def ruling(self, code: str, option: str, seat: Seat | None = None) -> list[Irregularity]:
        """Apply a choice the law offers for an open irregularity (``option`` is one of its
        ``Option.code``); ``seat`` is who chose, checked against the option's chooser when given."""
        out: list[Irregularity] = []
        who = Seat(str(seat).strip().upper()[:1]) if seat is not None else None
        if code in ("REVOKE", "REVOKE_TRICK12"):
            self._rule_revoke(code, option, who, out)
            self._update_slow()
            return out
        p = next((p for p in reversed(self._pending) if p.irr.code == code and p.irr.open), None)
        if p is None:
            done = [i for i in self.irregularities if i.code == code]
            why = f" (it was disposed of: {done[-1].disposition})" if done and done[-1].disposition else ""
            raise PlayRulingError(f"no open {code} waiting for a choice{why}")
        irr = p.irr
        opt = next((o for o in irr.options if o.code == option), None)
        if opt is None:
            raise PlayRulingError(f"{option!r} is not an option for {code}; the options are "
                                  + ", ".join(o.code for o in irr.options))
        self._check_chooser(opt, who, code)
        handler = getattr(self, "_rule_" + code.lower())
        handler(p, option, out)
        self._update_slow()
        return out

    def _check_chooser(self, opt: Option, who: Seat | None, code: str) -> None:
        if who is None or opt.chooser == "director":
            return
        ok = {"declarer": who == self.declarer,
              "defenders": self._is_defender(who)}.get(opt.chooser, str(who) == opt.chooser)
        if not ok:
            raise PlayRulingError(f"{who} may not choose {opt.code!r} for {code}: the choice is {opt.chooser}'s")

    def _rule_opening_lead_out_of_turn(self, p: _Pending, option: str, out: list[Irregularity]) -> None:
        if option == "spread":
            self.declarer = _PARTNER[self.declarer]
            self._leader = p.offender
            p.irr.dispose("rectified:spread", "54A")
            self._recompute_next()
        elif option == "accept":
            self._leader = p.offender
            p.irr.dispose("rectified:accept", "54B")
        else:
            p.irr.dispose("rectified:refuse", "54D")
            self._refuse_lead(p, "56", out)

    def _rule_lead_out_of_turn_defender(self, p: _Pending, option: str, out: list[Irregularity]) -> None:
        if option == "accept":
            self._leader = p.offender
            p.irr.dispose("rectified:accept", "53A")
        else:
            p.irr.dispose("rectified:refuse", "56")
            self._refuse_lead(p, "56", out)

    def _refuse_lead(self, p: _Pending, law: str, out: list[Irregularity]) -> None:
        """56: the defender's card becomes a major penalty card; the correct leader leads (50D2)."""
        self._withdraw_trick(law)
        self._add_pc(p.offender, p.card, major=True)   # type: ignore[arg-type]
        self._leader = p.correct                          # type: ignore[assignment]
        self._recompute_next()
        self._check_50d2(out)

    def _rule_lead_out_of_turn_declarer(self, p: _Pending, option: str, out: list[Irregularity]) -> None:
        if option == "accept":
            self._leader = p.offender
            p.irr.dispose("rectified:accept", "53A")
        else:
            self._withdraw_trick("55B1")
            self._leader = p.correct                      # type: ignore[assignment]
            p.irr.dispose("rectified:retract", "55B1")
            self._recompute_next()

    def _rule_lead_from_wrong_hand(self, p: _Pending, option: str, out: list[Irregularity]) -> None:
        if option == "accept":
            self._leader = p.offender
            p.irr.dispose("rectified:accept", "53A")
        else:
            self._withdraw_trick("55B2")
            self._leader = p.correct                      # type: ignore[assignment]
            p.irr.dispose("rectified:lead_from_correct_hand", "55B2")
            self._retracted = p
            self._recompute_next()

    def _rule_premature_play(self, p: _Pending, option: str, out: list[Irregularity]) -> None:
        if (p.offender, p.card) in self._trick:
            self._withdraw(p.offender, p.card, "57A")     # type: ignore[arg-type]
        self._add_pc(p.offender, p.card, major=True)      # type: ignore[arg-type]
        self._set_57(p, option)

    def _rule_premature_lead(self, p: _Pending, option: str, out: list[Irregularity]) -> None:
        self._set_57(p, option)

    def _set_57(self, p: _Pending, option: str) -> None:
        kind, _, suit = option.partition(":")
        n = len(self.winners) + 1
        self._play_obs.append(_Ob(_PARTNER[p.offender], kind, suit or p.extra["lead_suit"], n, p.irr, "57A"))
        p.irr.dispose(f"rectified:{option}", "57A")
        self._recompute_next()

    def _rule_play_out_of_turn(self, p: _Pending, option: str, out: list[Irregularity]) -> None:
        if option == "stands":
            p.irr.dispose("ruled:stands", "60A2")
        else:
            if (p.offender, p.card) in self._trick:
                self._withdraw(p.offender, p.card, "49")  # type: ignore[arg-type]
            self._add_pc(p.offender, p.card, major=True)  # type: ignore[arg-type]
            p.irr.dispose("ruled:penalty_card", "50B")

    def _rule_lead_penalty_pending(self, p: _Pending, option: str, out: list[Irregularity]) -> None:
        law = p.irr.law
        if option != "none":
            kind, _, suit = option.partition(":")
            self._lead_obs.append(_Ob(p.offender, kind, suit, len(self.winners) + 1, p.irr, law))
        p.irr.dispose(f"rectified:{option}", law)

    def _rule_penalty_card(self, p: _Pending, option: str, out: list[Irregularity]) -> None:
        pard = _PARTNER[p.offender]
        if option == "none":
            p.irr.dispose("rectified:none", "50D2b")
            return
        kind, _, suit = option.partition(":")
        for c in [c for c in self._pcs[pard] if c[0] == suit]:
            del self._pcs[pard][c]                         # picked up: no longer a penalty card (50D2a, 51B)
        law = "50D2a" if p.irr.law == "50D2" else "51B"
        self._lead_obs.append(_Ob(p.offender, kind, suit, len(self.winners) + 1, p.irr, law))
        p.irr.dispose(f"rectified:{option}", law)

    def _rule_failure_to_play_penalty_card(self, p: _Pending, option: str, out: list[Irregularity]) -> None:
        if option == "accept":
            p.irr.dispose("rectified:accept", "52B1")
            return
        due = p.extra["due"]
        pc = option.partition(":")[2] or due[0]
        seat, card = p.offender, p.card
        if (seat, card) not in self._trick or self.complete:
            self._reopen_last_trick()
        if (seat, card) not in self._trick:
            raise PlayRulingError(f"{card} is no longer in the current trick")
        if pc not in self._pcs[seat]:
            raise PlayRulingError(f"{pc} is no longer a penalty card")
        idx = self._trick.index((seat, card))
        self._trick.pop(idx)
        self._unplay(seat, card)
        for rv in self._revokes:
            if rv.linked is p.irr:
                if rv in self._open_revokes:
                    self._open_revokes.remove(rv)
                rv.irr.dispose("corrected", "52B2")
        p.irr.dispose(f"rectified:{option}", "52B2")
        self._add_pc(seat, card, major=True)               # 52B2: the card illegally played is a major penalty card
        self._place(seat, pc, idx, out, checks=False)

    def _rule_revoke(self, code: str, option: str, who: Seat | None, out: list[Irregularity]) -> None:
        if option in ("64B4", "64B5"):
            rv = next((r for r in reversed(self._revokes) if r.irr.code == code and r.irr.disposition == "established"
                       and (who is None or r.seat == who)), None)
            if rv is None:
                raise PlayRulingError(f"no established {code} to exempt")
            rv.exempt = option
            rv.irr.detail += f"; director: {option} (no transfer)"
            return
        if option != "correct":
            raise PlayRulingError(f"{option!r} is not an option for {code}; the options are correct, 64B4, 64B5")
        rv = next((r for r in reversed(self._revokes) if r.irr.code == code and r.kind != "retro" and
                   (r.irr.open or (code == "REVOKE_TRICK12" and r.irr.disposition == "established"))
                   and (who is None or r.seat == who or (r.seat == self.dummy and who == self.declarer))), None)
        if rv is None:
            raise PlayRulingError(f"no {code} that can still be corrected"
                                  + ("" if code == "REVOKE_TRICK12" else
                                     " (63C: once established a revoke stands, except on trick 12, 62D)"))
        if self._insert_at is not None:
            raise PlayRulingError(f"a revoke correction is still waiting for {self._insert_at[0]}'s card")
        if (rv.seat, rv.card) not in self.tricks[rv.trick - 1]:
            raise PlayRulingError(f"{rv.card} is no longer in trick {rv.trick}")
        T = rv.trick
        seat = rv.seat
        withdrawn: list[tuple[Seat, str]] = []
        last_complete = len(self.tricks) > T and len(self.tricks[-1]) == 4
        reopened = len(self.winners) >= T       # the revoke trick was complete: the next trick's start is undone
        for t in self.tricks[T:]:
            withdrawn += t                      # later cards: the non-offending side's (else established), or 62D
        del self.tricks[T:]
        del self.winners[T - 1:]
        for s, c in withdrawn:
            self._unplay(s, c)
        if reopened:
            self._drop_start_flags()
        for other in list(self._open_revokes):          # revokes made with withdrawn cards lapse
            if other is not rv and (other.seat, other.card) in withdrawn:
                self._open_revokes.remove(other)
                other.irr.dispose("card_withdrawn", "62C1")
        for q in self._pending:                          # choices about later tricks are moot
            if q.trick > T and q.irr.open:
                q.irr.dispose("card_withdrawn", "62C1")
        self._trick = self.tricks[T - 1]
        idx = next(i for i, (s, c) in enumerate(self._trick) if s == seat and c == rv.card)
        if idx == 0:
            back = list(self._trick)
            self._trick.clear()
            for s, c in back:
                self._unplay(s, c)
                if s != seat:
                    withdrawn.append((s, c))
            self._leader = seat
        else:
            self._trick.pop(idx)
            self._unplay(seat, rv.card)
            self._leader = self._trick[0][0]
            self._insert_at = (seat, idx)
        if rv.ob is not None:
            if rv.ob.law == "57A":
                self._play_obs.append(rv.ob)
            else:
                self._lead_obs.append(rv.ob)
        if self._is_defender(seat):
            self._add_pc(seat, rv.card, major=True)
        law = "62D1" if code == "REVOKE_TRICK12" else ("62B1" if self._is_defender(seat) and not rv.was_pc else "62B2")
        if rv in self._open_revokes:
            self._open_revokes.remove(rv)
        rv.irr.dispose("corrected", law)
        if withdrawn:
            rv.irr.detail += "; withdrawn without penalty (62C1): " + " ".join(f"{s}:{c}" for s, c in withdrawn)
        if T == 12 and last_complete:
            self._replay_last = True           # the 13th trick is forced: replayed once trick 12 is complete
        self._recompute_next()

    # ------------------------------------------------------------------ claims and the end of play
    def claim_made(self, claimer: Seat, acquiesced: bool = True) -> None:
        """A claim or concession (68): play ceases. 63A3: a revoke not yet established becomes established
        when a member of the offending side makes the claim, or acquiesces in the opponents' claim
        (``acquiesced=False`` when the opponents disputed it)."""
        c = Seat(str(claimer).strip().upper()[:1])
        self._claimed = c
        for rv in list(self._open_revokes):
            if rv.side == _SIDE[c] or acquiesced:
                self._establish(rv, "63A3")
        self._update_slow()

    def resume_after_claim(self) -> None:
        """The director lets play continue after a claim (for instance a disputed claim under a regulation
        that suspends play): later cards are followed again instead of flagged PLAY_AFTER_CLAIM."""
        self._claimed = None
        self._update_slow()

    def finish(self, claimed_total: int | None = None) -> int:
        """Declarer side's final total of tricks after the Law 64 transfers. With a claim, ``claimed_total``
        is declarer side's agreed total: the tricks not played are attributed by it. Each established revoke
        is recorded as a ``REVOKE_TRICK_TRANSFER`` (64A1/64A2 with ``tricks_transferred=N`` in the detail,
        or an exemption 64B1..6 with 0). Calling it again recomputes (the previous records are replaced)."""
        if not self._revokes:
            # no revoke was ever flagged (every open one is also in _revokes): nothing to transfer and no
            # earlier transfer record to replace; only a claim's unplayed tricks are attributed
            self.irregularities = self.irregularities[:]          # a fresh list, as the full path gives
            winners = self.winners
            total = winners.count(self.declarer) + winners.count(_PARTNER[self.declarer])
            if claimed_total is not None:
                total += min(max(int(claimed_total) - total, 0), 13 - len(winners))
            return total
        self.irregularities = [i for i in self.irregularities if i.code != "REVOKE_TRICK_TRANSFER"]
        decl = self.declarer.side
        other = "EW" if decl == "NS" else "NS"
        played = len(self.winners)
        sides: list[str | None] = [_SIDE[w] for w in self.winners]
        seats: list[Seat | None] = list(self.winners)
        wcards: list[str | None] = []
        for t, w in enumerate(self.winners):
            wcards.append(next(c for s, c in self.tricks[t] if s == w))
        total = self.declarer_tricks
        if claimed_total is not None:
            unplayed = 13 - played
            dec_more = min(max(int(claimed_total) - total, 0), unplayed)
            sides += [decl] * dec_more + [other] * (unplayed - dec_more)
            seats += [None] * unplayed
            wcards += [None] * unplayed
            total += dec_more
            for rv in list(self._open_revokes):
                self._establish(rv, "63A3")
        for rv in list(self._open_revokes):
            if rv.irr.open:
                rv.irr.dispose("not_established", "63A")
        self._open_revokes = [rv for rv in self._open_revokes if rv.irr.open]
        transferred: set[int] = set()
        delta = 0
        seen: list[_Revoke] = []
        sides_revoked = {rv.side for rv in self._revokes if rv.irr.disposition == "established"}
        # a revoke is only known from the hand record; once the play contradicts that record (13A1) no
        # transfer is made automatically: the director decides (64C)
        contradicted = any(i.code == "HAND_RECORD_MISMATCH" for i in self.irregularities)
        for rv in self._revokes:
            if rv.irr.disposition != "established":
                continue
            T = rv.trick
            n, law, why = 0, "", ""
            os_tricks = [k for k in range(T, len(sides) + 1) if sides[k - 1] == rv.side and k not in transferred]
            if contradicted:
                law, why = "64C", "the play contradicts the hand record (13A1): transfer left to the director"
            elif rv.exempt:
                law, why = rv.exempt, ("attention first drawn after the non-offending side called on the next board"
                                       if rv.exempt == "64B4" else "attention first drawn after the round ended")
            elif T == 12:
                law, why = "64B6", "revoke on the 12th trick (62D: to be corrected)"
            elif rv.faced:
                law, why = "64B3", ("revoke by dummy (a hand faced on the table)" if rv.seat == self.dummy
                                    else "failure to play a card faced on the table")
            elif any(o.seat == rv.seat and o.suit == rv.suit for o in seen):
                law, why = "64B2", f"second revoke by {rv.seat} in {SUIT_NAME[rv.suit]}"
            elif not os_tricks:
                law, why = "64B1", "the offending side won neither the revoke trick nor any later trick"
            else:
                chosen: list[int] = []
                if T <= len(seats) and seats[T - 1] == rv.seat and T in os_tricks:
                    law = "64A1"
                    chosen = [T] + [k for k in os_tricks if k > T][:1]
                    why = (f"{rv.seat} won the revoke trick: it and one later trick of the offending side"
                           if len(chosen) == 2 else f"{rv.seat} won the revoke trick; no later trick of the offending side")
                else:
                    law = "64A2"
                    legal = rv.legal if rv.legal is not None else self._retro_legal(rv)
                    extra = [k for k in os_tricks if k > T and seats[k - 1] == rv.seat
                             and wcards[k - 1] is not None and wcards[k - 1] in legal]
                    first = [k for k in os_tricks if k not in extra[:1]][:1]
                    chosen = first + extra[:1]
                    why = f"{rv.seat} did not win the revoke trick: one trick"
                    if extra:
                        why += (f", and trick {extra[0]} won by {rv.seat} with {wcards[extra[0] - 1]}, a card he could "
                                "legally have played to the revoke trick (1997 clause)")
                        if not first:
                            why += "; capped: the offending side won no other trick from the revoke on"
                n = min(len(chosen), len(os_tricks))
                chosen = chosen[:n]
                transferred.update(chosen)
                delta += n if rv.side != decl else -n
            if len(sides_revoked) == 2:
                why += "; both sides revoked (seed silent; each revoke processed, 64C equity left to the director)"
            seen.append(rv)
            to = "EW" if rv.side == "NS" else "NS"
            pos = rv.irr.position
            self.irregularities.append(Irregularity(
                code="REVOKE_TRICK_TRANSFER", law=law, seat=str(rv.seat), phase="play",
                position={"trick": pos["trick"], "card": pos["card"]}, options=[],
                detail=f"tricks_transferred={n}; from {rv.side} to {to}; {why}",
                disposition="applied" if n else "exempt", disposition_law=law))
        return total + delta

    def _retro_legal(self, rv: _Revoke) -> frozenset[str]:
        """Cards of the revoke suit the seat is known to have held at the revoke trick (no hand record)."""
        out = {c for t in self.tricks[rv.trick:] for s, c in t if s == rv.seat and c[0] == rv.suit}
        out |= {c for c in self._hand[rv.seat] if c[0] == rv.suit}
        return frozenset(out)
