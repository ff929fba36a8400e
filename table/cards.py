"""Seats, suits, cards and deals (Law 1).

Cards are two-character strings, suit letter then rank (``"SA"``, ``"HT"``, ``"C2"``): cheap to hash,
readable in logs and identical to the event vocabulary. Look-up tables give suit and rank order.
"""
from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from enum import StrEnum
from functools import lru_cache

from .errors import BridgeError
from .texts import Text


class Seat(StrEnum):
    N = "N"
    E = "E"
    S = "S"
    W = "W"

    @property
    def lho(self) -> Seat:
        return _LHO[self]

    @property
    def rho(self) -> Seat:
        return _RHO[self]

    @property
    def partner(self) -> Seat:
        return _PARD[self]

    @property
    def side(self) -> str:
        return "NS" if self in ("N", "S") else "EW"


SEATS: tuple[Seat, ...] = (Seat.N, Seat.E, Seat.S, Seat.W)
_LHO = {s: SEATS[(i + 1) % 4] for i, s in enumerate(SEATS)}
_RHO = {s: SEATS[(i + 3) % 4] for i, s in enumerate(SEATS)}
_PARD = {s: SEATS[(i + 2) % 4] for i, s in enumerate(SEATS)}
_SEAT_LETTER = {**{str(s): s for s in SEATS}, **{str(s).lower(): s for s in SEATS}}

SUITS = "SHDC"                       # ranking order, highest first (Law 1)
RANKS = "AKQJT98765432"              # highest first
HONORS = frozenset("AKQJT")          # Law 50B: an honor is A K Q J 10
RANK_VALUE = {r: 14 - i for i, r in enumerate(RANKS)}   # A=14 ... 2=2
ALL_CARDS: tuple[str, ...] = tuple(s + r for s in SUITS for r in RANKS)
CARD_SET = frozenset(ALL_CARDS)
_RANK_CHARS = frozenset(RANKS)
CARD_RANK = {c: RANK_VALUE[c[1]] for c in ALL_CARDS}


class CardError(BridgeError, ValueError):
    """A card, hand or deal that cannot be what it claims to be."""


def side_of(seat: str) -> str:
    return "NS" if seat in ("N", "S") else "EW"


def seat(value: object) -> Seat:
    if not isinstance(value, str):
        raise CardError(Text("cards.not_a_seat", "not a seat: {value}", value=repr(value)))
    try:
        return Seat(value.strip().upper()[:1])
    except ValueError:
        raise CardError(Text("cards.not_a_seat", "not a seat: {value}", value=repr(value))) from None


def parse_card(text: str) -> str:
    """Normalise ``"s4"``, ``"S10"``, ``"h t"`` into ``"S4"``, ``"ST"``, ``"HT"``."""
    t = text.strip().upper().replace(" ", "")
    if len(t) == 3 and t[1:] == "10":
        t = t[0] + "T"
    if t not in CARD_SET:
        raise CardError(Text("cards.not_a_card", "not a card: {text}", text=repr(text)))
    return t


def sort_cards(cards: Iterable[str]) -> list[str]:
    return sorted(cards, key=lambda c: (SUITS.index(c[0]), -CARD_RANK[c]))


class Deal:
    """The four original hands of a board: an immutable map seat -> 13 cards."""

    __slots__ = ("hands", "_owner", "_suit_counts")

    def __init__(self, hands: Mapping[Seat, Iterable[str]] | Mapping[str, Iterable[str]], *,
                 complete: bool = True) -> None:
        self.hands: dict[Seat, frozenset[str]] = {}
        listed: dict[Seat, Collection[str]] = {}
        every: set[str] = set()
        held = 0
        for s in SEATS:
            cards_listed = hands.get(s, ())
            if not isinstance(cards_listed, (tuple, list, frozenset, set)):
                cards_listed = list(cards_listed)
            listed[s] = cards_listed
            cards = self.hands[s] = frozenset(cards_listed)
            if len(cards) != len(cards_listed):
                raise CardError(Text("cards.seat_twice", "{seat}'s hand lists a card twice", seat=s))
            every |= cards
            held += len(cards)
        if len(every) != held:                    # a card in two hands: name the first, in the order given
            seen: dict[str, Seat] = {}
            for s in SEATS:
                for c in listed[s]:
                    if c in seen:
                        raise CardError(Text("cards.two_hands", "card {card} is in both {seat} and {seat2}", card=c,
                                                  seat=seen[c], seat2=s))
                    seen[c] = s
        self._suit_counts: dict[Seat, dict[str, int]] | None = None
        if complete:
            for s, cards in self.hands.items():
                if len(cards) != 13:
                    raise CardError(Text("cards.not_13", "{seat} holds {count} cards, not 13", seat=s,
                                         count=len(cards)))
        self._owner: dict[str, Seat] | None = None

    @property
    def owner(self) -> dict[str, Seat]:
        """{card: seat} (built on first use: a replay's play reads it only when a card is not where the deal
        says; shared, never to be changed)."""
        owner = self._owner
        if owner is None:
            owner = self._owner = {c: s for s, cards in self.hands.items() for c in cards}
        return owner

    @classmethod
    def from_pbn(cls, text: str) -> Deal:
        """Read a PBN deal string (cached: a deal is a value, and a session reads each one many times)."""
        return _deal_from_pbn(text)

    @classmethod
    def _parse_pbn(cls, text: str) -> Deal:
        """Read a PBN deal string ``"N:AKQ.xxx.. ..."``; a missing fourth hand is completed (PBN 2.1 allows ``-``)."""
        text = text.strip()
        if len(text) < 2 or text[1] != ":":
            raise CardError(Text("cards.no_prefix", "deal lacks a first-seat prefix: {text}", text=repr(text)))
        first = _SEAT_LETTER.get(text[0]) or seat(text[0])
        parts = text[2:].split()
        if len(parts) != 4:
            raise CardError(Text("cards.hands", "deal has {count} hands, not 4: {text}", count=len(parts),
                                 text=repr(text)))
        hands: dict[str, Sequence[str]] = {}
        written: dict[Seat, str] = {}
        counts: dict[Seat, dict[str, int]] = {}
        unknown: list[Seat] = []
        s = first
        hs, hh, hd, hc = _HOLDING_CARDS
        for part in parts:
            if part == "-":
                unknown.append(s)
            else:
                suits = part.split(".")
                if len(suits) != 4:
                    raise CardError(Text("cards.suits", "hand {hand} has {count} suits, not 4", hand=repr(part),
                                         count=len(suits)))
                a, b, c, d = suits
                # the cache's look-ups inline (a void's () is falsy and takes the call: still right)
                sp, he, di, cl = (hs.get(a) or _holding(0, a, part), hh.get(b) or _holding(1, b, part),
                                  hd.get(c) or _holding(2, c, part), hc.get(d) or _holding(3, d, part))
                hands[s] = sp + he + di + cl
                counts[s] = {"S": len(sp), "H": len(he), "D": len(di), "C": len(cl)}
                written[s] = part
            s = _LHO[s]
        if len(unknown) == 1:
            used = {c for cs in hands.values() for c in cs}
            hands[unknown[0]] = [c for c in ALL_CARDS if c not in used]
        try:
            deal = cls(hands, complete=not unknown or len(unknown) == 1)
            if not unknown:
                deal._suit_counts = counts          # the holdings' lengths (the checks passed: no card twice)
            return deal
        except CardError:
            for s, part in written.items():      # name the hand as written when it lists a card twice
                if len(set(hands[s])) != len(hands[s]):
                    raise CardError(Text("cards.hand_twice", "hand {hand} lists a card twice",
                                         hand=repr(part))) from None
            raise

    def suit_counts(self) -> dict[Seat, dict[str, int]]:
        """{seat: {suit: cards held}} of the original hands (computed once; callers copy before changing)."""
        counts = self._suit_counts
        if counts is None:
            counts = self._suit_counts = {}
            for s, cards in self.hands.items():
                suits = "".join([c[0] for c in cards])
                counts[s] = {"S": suits.count("S"), "H": suits.count("H"), "D": suits.count("D"),
                             "C": suits.count("C")}
        return counts

    def to_pbn(self, first: str = "N") -> str:
        out = []
        s = Seat(first)
        for _ in range(4):
            out.append(hand_to_pbn(self.hands[s]) if self.hands[s] else "-")     # "-": hand unknown (PBN 2.1)
            s = s.lho
        return f"{first}:" + " ".join(out)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Deal) and self.hands == other.hands

    def __hash__(self) -> int:
        return hash(tuple(self.hands[s] for s in SEATS))

    def __repr__(self) -> str:
        return f"Deal({self.to_pbn()!r})"


_deal_from_pbn = lru_cache(maxsize=4096)(Deal._parse_pbn)

# One suit's holding as written -> its cards, per suit: a deal is four hands of four holdings, and there are
# only 8,192 holdings in rank order, so parsing a deal becomes sixteen look-ups (a whole parse: 32 -> 16 us).
_HOLDING_CARDS: tuple[dict[str, tuple[str, ...]], ...] = ({}, {}, {}, {})


def _holding(k: int, ranks: str, part: str) -> tuple[str, ...]:
    cache = _HOLDING_CARDS[k]
    cards = cache.get(ranks)
    if cards is None:
        norm = ranks.upper()
        if "10" in norm:
            norm = norm.replace("10", "T")          # "10" written out; a lone 1 or 0 is an error
        if not _RANK_CHARS.issuperset(norm):
            bad = next(r for r in norm if r not in _RANK_CHARS)
            raise CardError(Text("cards.bad_rank", "bad rank {rank} in {hand}", rank=repr(bad), hand=repr(part)))
        suit = SUITS[k]
        cards = tuple([suit + r for r in norm])
        if len(cache) < 20_000:                     # any spelling beyond the 8,192 rank-order ones is rare
            cache[ranks] = cards
    return cards


def hand_to_pbn(cards: Iterable[str]) -> str:
    by_suit: dict[str, list[str]] = {s: [] for s in SUITS}
    for c in cards:
        by_suit[c[0]].append(c[1])
    return ".".join("".join(sorted(rs, key=lambda r: -RANK_VALUE[r])) for rs in by_suit.values())
