"""The club's deck registry: which RFID tag is which card of which deck.

A club *learns* a deck once by reading its 52 tags in a known order — by default ``AS KS … 2S AH … 2C``
(suits S H D C, ranks A down to 2), or any order given — and may keep several decks. Afterwards every
tag UID read by a seat reader resolves to ``(deck, card)``. A tag the registry does not know resolves to
``None``; drivers turn that into an ``UnknownTag`` error event, never an exception.

UIDs are normalised to upper-case hex without separators (``"e0:04:01:50"`` -> ``"E0040150"``).
The registry persists as JSON (``{"version": 1, "decks": {"club-1": {"AS": "E004...", ...}}}``).
"""
from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from table.cards import ALL_CARDS, CARD_SET

from .errors import DeckError

STANDARD_ORDER: tuple[str, ...] = ALL_CARDS
"""AS KS QS … 2S AH … 2C: the default learning order."""

_HEX = re.compile(r"^[0-9A-F]+$")


def normalize_uid(uid: str | bytes) -> str:
    """Upper-case hex without separators; raises ``DeckError`` for anything that is not a hex UID."""
    if isinstance(uid, (bytes, bytearray)):
        return bytes(uid).hex().upper()
    text = re.sub(r"[\s:.\-]", "", str(uid)).upper()
    if not text or not _HEX.match(text) or len(text) % 2:
        raise DeckError(f"not a tag UID: {uid!r}")
    return text


@dataclass(frozen=True, slots=True)
class TagCard:
    deck: str
    card: str


@dataclass
class Deck:
    name: str
    cards: dict[str, str] = field(default_factory=dict)      # card -> uid

    def uid_of(self, card: str) -> str:
        return self.cards[card]


class DeckRegistry:
    """All the decks a club has learned; tag UID -> (deck, card)."""

    def __init__(self) -> None:
        self.decks: dict[str, Deck] = {}
        self._by_uid: dict[str, TagCard] = {}

    def __len__(self) -> int:
        return len(self.decks)

    def learn(self, name: str, uids: Sequence[str | bytes], order: Sequence[str] = STANDARD_ORDER) -> Deck:
        """Register deck ``name`` from its 52 tags read in ``order``; replaces a deck of the same name."""
        if not name:
            raise DeckError("a deck needs a name")
        cards = [c.strip().upper() for c in order]
        if len(cards) != 52 or set(cards) != CARD_SET:
            raise DeckError("the learning order must name each of the 52 cards once")
        norm = [normalize_uid(u) for u in uids]
        if len(norm) != 52:
            raise DeckError(f"deck {name!r}: {len(norm)} tags read, 52 needed")
        seen: dict[str, str] = {}
        for card, uid in zip(cards, norm):
            if uid in seen:
                raise DeckError(f"deck {name!r}: tag {uid} read for both {seen[uid]} and {card}")
            seen[uid] = card
            other = self._by_uid.get(uid)
            if other is not None and other.deck != name:
                raise DeckError(f"deck {name!r}: tag {uid} already belongs to {other.card} of deck {other.deck!r}")
        self.forget(name)
        deck = Deck(name, {card: uid for card, uid in zip(cards, norm)})
        self.decks[name] = deck
        for card, uid in deck.cards.items():
            self._by_uid[uid] = TagCard(name, card)
        return deck

    def forget(self, name: str) -> None:
        deck = self.decks.pop(name, None)
        if deck is not None:
            for uid in deck.cards.values():
                self._by_uid.pop(uid, None)

    def lookup(self, uid: str | bytes) -> TagCard | None:
        """The deck and card of a tag, or ``None`` for a tag no learned deck has (or a malformed UID)."""
        try:
            return self._by_uid.get(normalize_uid(uid))
        except DeckError:
            return None

    # ------------------------------------------------------------------ persistence
    def to_json(self) -> dict[str, Any]:
        return {"version": 1, "decks": {n: dict(d.cards) for n, d in sorted(self.decks.items())}}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DeckRegistry:
        if not isinstance(data, dict) or data.get("version") != 1 or not isinstance(data.get("decks"), dict):
            raise DeckError("not a deck registry (expected {\"version\": 1, \"decks\": {...}})")
        reg = cls()
        for name, cards in data["decks"].items():
            if not isinstance(cards, dict):
                raise DeckError(f"deck {name!r}: expected card -> uid")
            order = list(cards)
            reg.learn(name, [cards[c] for c in order], order)
        return reg

    def save(self, path: str | Path) -> None:
        p = Path(path)
        tmp = p.with_name(p.name + ".tmp")
        tmp.write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")
        tmp.replace(p)

    @classmethod
    def load(cls, path: str | Path) -> DeckRegistry:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as err:
            raise DeckError(f"cannot read deck registry {path}: {err}") from err
        return cls.from_json(data)


class DeckLearner:
    """Learning a deck tag by tag as a reader sees them: a tag read again (a reader repeats reads while a
    card lies on the antenna) is ignored; after 52 distinct tags :meth:`finish` registers the deck."""

    def __init__(self, registry: DeckRegistry, name: str, order: Sequence[str] = STANDARD_ORDER) -> None:
        self.registry = registry
        self.name = name
        self.order = tuple(order)
        self.uids: list[str] = []

    @property
    def next_card(self) -> str | None:
        return self.order[len(self.uids)] if len(self.uids) < len(self.order) else None

    @property
    def done(self) -> bool:
        return len(self.uids) >= len(self.order)

    def feed(self, uid: str | bytes) -> str | None:
        """Take one read; returns the card this tag was learned as, or ``None`` for a repeat (or a tag of
        another learned deck: a stray card from the previous deck still on the antenna)."""
        u = normalize_uid(uid)
        if u in self.uids or self.done:
            return None
        known = self.registry.lookup(u)
        if known is not None and known.deck != self.name:
            return None
        self.uids.append(u)
        return self.order[len(self.uids) - 1]

    def feed_all(self, uids: Iterable[str | bytes]) -> None:
        for u in uids:
            self.feed(u)

    def finish(self) -> Deck:
        return self.registry.learn(self.name, self.uids, self.order)
