"""Who wins a trick (Law 44E/F)."""
from __future__ import annotations

from collections.abc import Sequence

from .cards import ALL_CARDS, CARD_RANK, SUITS, CardError

# TRICK_POWER[trump][lead suit][card]: how strongly a card contends for a trick (Law 44E/F). A trump beats
# any card of the suit led, which beats any other card (0: it cannot win); within a suit the rank decides.
# One dict hit per card instead of suit comparisons and two rank look-ups.
TRICK_POWER: dict[str | None, dict[str, dict[str, int]]] = {
    trump: {lead: {c: (100 + CARD_RANK[c] if c[0] == trump else CARD_RANK[c] if c[0] == lead else 0)
                   for c in ALL_CARDS}
            for lead in SUITS}
    for trump in (None, *SUITS)}


def trick_winner_index(cards: Sequence[str], trump: str | None) -> int:
    """Index in ``cards`` (in play order, leader first, at most four) of the winning card; ``trump`` is a suit
    letter or None. Of two equal cards (a card read twice) the first stays best. A string that is not a card,
    or more than four cards, is a ``CardError``."""
    n = len(cards)
    if n < 2:
        return 0
    if n > 4:
        raise CardError(f"a trick has at most four cards, not {n}: {list(cards)!r}")
    try:
        power = TRICK_POWER[trump][cards[0][0]]
        best, bp = 0, power[cards[0]]
        p = power[cards[1]]
        if p > bp:
            best, bp = 1, p
        if n > 2:
            p = power[cards[2]]
            if p > bp:
                best, bp = 2, p
            if n > 3 and power[cards[3]] > bp:
                best = 3
    except (KeyError, IndexError, TypeError):
        raise CardError(f"not a trick of cards (trump {trump!r}): {list(cards)!r}") from None
    return best


def trump_of(strain: str) -> str | None:
    """``"NT"`` -> None; ``"S"`` -> ``"S"``."""
    return None if strain == "NT" else strain
