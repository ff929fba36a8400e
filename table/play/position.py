"""Where the cards are during the play: hands, the tricks played and who won them. No law here.

:class:`Position` is the bookkeeping the law engine (``engine.Play``) stands on: what each seat still holds
(with suit counts for a quick follow-suit test), which cards are played or lie face up as penalty cards, the
tricks in play order with their winners, and whose turn it is. Nothing here decides whether a card was
legal; the attributes with a leading underscore are shared with the sibling modules of this package and are
not part of ``Play``'s public interface.

Model of a trick: a list of ``(seat, card)`` in the order the cards were counted into it.
"""
from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Set as AbstractSet

from ..calls import STRAINS
from ..cards import SEATS, Deal, Seat
from ..tricks import trick_winner_index

LHO = {s: s.lho for s in SEATS}
PARTNER = {s: s.partner for s in SEATS}
SIDE = {s: s.side for s in SEATS}
N, E, S, W = SEATS
_NT_ALIASES = ("N", "NT", "SA")


def normalise_strain(strain: str) -> str:
    """``"nt"``, ``"N"``, ``"SA"`` -> ``"NT"``; a suit letter upper-cased; anything else is a ``ValueError``."""
    s = str(strain).strip().upper()
    s = "NT" if s in _NT_ALIASES else s
    if s not in STRAINS:
        raise ValueError(f"not a strain: {strain!r}")
    return s


class Position:
    """The cards of one board during the play (see the module docstring)."""

    def __init__(self, declarer: Seat, strain: str, deal: Deal | None) -> None:
        # a Seat is taken as it is: normalising costs more than the rest of a usual construction
        self.declarer: Seat = declarer if declarer.__class__ is Seat else Seat(str(declarer).strip().upper()[:1])
        self.strain = strain if strain.__class__ is str and strain in STRAINS else normalise_strain(strain)
        self.trump: str | None = None if self.strain == "NT" else self.strain
        self.deal = deal
        self.tricks: list[list[tuple[Seat, str]]] = [[]]
        self.winners: list[Seat] = []
        self._trick = self.tricks[0]
        self._leader: Seat = self.declarer.lho          # who should lead the current trick
        self._next: Seat = self._leader
        self._lead_suit = ""                             # suit of the current trick's lead ("": none yet)
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
            self._known[seat] = len(cards) == 13      # a seat's holding is certain only from a full hand record
        self._played: set[str] = set()
        self._pcs: dict[Seat, dict[str, str]] = {N: {}, E: {}, S: {}, W: {}}   # face-up card -> "minor" | "major"
        self._insert_at: tuple[Seat, int] | None = None     # a card taken out of the trick: whose, and its place

    # ------------------------------------------------------------------ public read-only views
    @property
    def dummy(self) -> Seat:
        return PARTNER[self.declarer]

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
        return sum(1 for w in self.winners if SIDE[w] == side)

    @property
    def defender_tricks(self) -> int:
        return len(self.winners) - self.declarer_tricks

    def remaining(self, seat: Seat) -> frozenset[str]:
        """Cards ``seat`` still holds (penalty cards included). For a seat without a full hand record:
        the cards known to be there."""
        return frozenset(self._hand[Seat(seat)])

    def penalty_cards(self, seat: Seat) -> dict[str, str]:
        """``{card: "minor" | "major"}`` for a defender's penalty cards on the table."""
        return dict(self._pcs[Seat(seat)])

    # ------------------------------------------------------------------ the law modules' view (live, not copies)
    @property
    def current_trick(self) -> list[tuple[Seat, str]]:
        """The trick in progress (the 13th once the play is complete), in play order; rectifications take cards
        back out of it."""
        return self._trick

    @property
    def leader(self) -> Seat:
        """Who leads (or led) the trick in progress."""
        return self._leader

    def give_lead(self, seat: Seat) -> None:
        """A rectification gives the lead of the trick in progress to ``seat``."""
        self._leader = seat

    def holding(self, seat: Seat) -> AbstractSet[str]:
        """The cards ``seat`` holds now (for a seat without a full hand record: those known to be there)."""
        return self._hand[seat]

    def hand_known(self, seat: Seat) -> bool:
        """``seat``'s holding is certain (a full hand record the events have not contradicted)."""
        return self._known[seat]

    def face_up(self, seat: Seat) -> Mapping[str, str]:
        """``seat``'s penalty cards, ``{card: "minor" | "major"}`` (``penalty_cards`` gives a copy)."""
        return self._pcs[seat]

    def suit_count(self, seat: Seat, suit: str) -> int:
        """How many cards of ``suit`` ``seat`` holds per the hand record (and the events since)."""
        return self._cnt[seat][suit]

    def lay_card(self, seat: Seat, card: str, idx: int, was_penalty_card: bool) -> None:
        """The checked path's count of a card: out of the hand (and off the table), into place ``idx`` of the
        current trick."""
        hand = self._hand[seat]
        if card in hand:
            hand.remove(card)
            self._cnt[seat][card[0]] -= 1
        if was_penalty_card:
            del self._pcs[seat][card]
        self._played.add(card)
        self._trick.insert(idx, (seat, card))

    def resume_trick(self, number: int) -> list[tuple[Seat, str]]:
        """Trick ``number`` (already completed, later tricks taken back) is the current trick again."""
        self._trick = self.tricks[number - 1]
        return self._trick

    @property
    def awaiting_insert(self) -> tuple[Seat, int] | None:
        """A card taken out of the current trick to be replaced: whose, and its place (62 correction)."""
        return self._insert_at

    def hold_place(self, seat: Seat, idx: int) -> None:
        """``seat``'s next card goes back to place ``idx`` of the current trick."""
        self._insert_at = (seat, idx)

    def pick_up(self, seat: Seat, card: str) -> None:
        """``card`` is no longer a penalty card (played, forfeited, or picked up after declarer's choice)."""
        del self._pcs[seat][card]

    # ------------------------------------------------------------------ holdings
    def is_defender(self, seat: Seat) -> bool:
        return SIDE[seat] != self.declarer.side

    def holds_suit(self, seat: Seat, suit: str) -> bool | None:
        """Whether ``seat`` holds a card of ``suit`` now: True/False from a full hand record; for a seat
        without one, True when a held card of the suit is known, else None (unknown)."""
        if self._known[seat]:
            return self._cnt[seat][suit] > 0
        return True if any(c[0] == suit for c in self._hand[seat]) else None

    def held(self, seat: Seat, suit: str | None = None) -> list[str]:
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

    def _take_from(self, seat: Seat, card: str) -> None:
        """``card`` turned out not to be ``seat``'s (another seat played or showed it)."""
        self._hand[seat].discard(card)
        self._cnt[seat][card[0]] -= 1

    def _give(self, seat: Seat, card: str) -> None:
        self._hand[seat].add(card)
        self._cnt[seat][card[0]] += 1

    def unplay(self, seat: Seat, card: str) -> None:
        """Return a played card (already taken out of its trick) to ``seat``'s hand. A card that is still
        counted elsewhere (a second play of one card) stays played."""
        if any(c == card for t in self.tricks for _, c in t):
            return
        self._played.discard(card)
        if not any(card in self._hand[s] for s in SEATS):
            self._give(seat, card)

    # ------------------------------------------------------------------ the current trick
    def _in_rotation(self) -> bool:
        """The current trick's cards came in rotation from its lead."""
        t = self._trick
        if len(t) < 2:
            return True
        s = t[0][0]
        for seat, _ in t[1:]:
            s = LHO[s]
            if seat != s:
                return False
        return True

    def recompute_next(self) -> None:
        trick = self._trick
        self._lead_suit = trick[0][1][0] if trick else ""
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
                s = LHO[s]

    def close_trick(self) -> bool:
        """The current trick has four cards: record its winner; unless it was the 13th, open the next trick
        with the winner on lead. Returns True when a new trick was opened."""
        trick = self._trick
        (s0, c0), (s1, c1), (s2, c2), (s3, c3) = trick
        w = trick[trick_winner_index((c0, c1, c2, c3), self.trump)][0]
        winners = self.winners
        winners.append(w)
        if len(winners) == 13:
            return False
        self._trick = []
        self.tricks.append(self._trick)
        self._leader = w
        self._next = w
        self._lead_suit = ""
        return True
