"""Who wins a trick (Law 44E/F)."""
from __future__ import annotations

from collections.abc import Sequence

from .cards import ALL_CARDS, CARD_RANK, SUITS

# TRICK_POWER[trump][lead suit][card]: how strongly a card contends for a trick (Law 44E/F). A trump beats
# any card of the suit led, which beats any other card (0: it cannot win); within a suit the rank decides.
# One dict hit per card instead of suit comparisons and two rank look-ups (Play's fast path uses it too).
TRICK_POWER: dict[str | None, dict[str, dict[str, int]]] = {
    trump: {lead: {c: (100 + CARD_RANK[c] if c[0] == trump else CARD_RANK[c] if c[0] == lead else 0)
                   for c in ALL_CARDS}
            for lead in SUITS}
    for trump in (None, *SUITS)}


def trick_winner_index(cards: Sequence[str], trump: str | None) -> int:
    """Index in ``cards`` (in play order, leader first) of the winning card; ``trump`` is a suit letter or None."""
    n = len(cards)
    if n < 2:
        return 0
    by_lead = TRICK_POWER.get(trump)
    power = by_lead.get(cards[0][0]) if by_lead is not None else None
    if power is not None:
        # strictly greater: of two equal cards (a duplicate read) the first one stays best, as below
        try:
            if n == 4:                     # the usual complete trick, unrolled
                c0, c1, c2, c3 = cards
                best, bp = 0, power[c0]
                p = power[c1]
                if p > bp:
                    best, bp = 1, p
                p = power[c2]
                if p > bp:
                    best, bp = 2, p
                return 3 if power[c3] > bp else best
            best, bp = 0, power[cards[0]]
            for i in range(1, n):
                p = power[cards[i]]
                if p > bp:
                    best, bp = i, p
            return best
        except KeyError:
            pass                           # not a card: the loop below raises (or not) exactly as it always did
    best = 0
    for i in range(1, n):
        c, b = cards[i], cards[best]
        if c[0] == b[0]:
            if CARD_RANK[c] > CARD_RANK[b]:
                best = i
        elif c[0] == trump:
            best = i
        # a card of another suit than the best card's, not trump, never wins
    return best


def trump_of(strain: str) -> str | None:
    """``"NT"`` -> None; ``"S"`` -> ``"S"``."""
    return None if strain == "NT" else strain
