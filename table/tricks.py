"""Who wins a trick (Law 44E/F)."""
from __future__ import annotations

from typing import Optional, Sequence

from .cards import CARD_RANK


def trick_winner_index(cards: Sequence[str], trump: Optional[str]) -> int:
    """Index in ``cards`` (in play order, leader first) of the winning card; ``trump`` is a suit letter or None."""
    best = 0
    for i in range(1, len(cards)):
        c, b = cards[i], cards[best]
        if c[0] == b[0]:
            if CARD_RANK[c] > CARD_RANK[b]:
                best = i
        elif c[0] == trump:
            best = i
        # a card of another suit than the best card's, not trump, never wins
    return best


def trump_of(strain: str) -> Optional[str]:
    """``"NT"`` -> None; ``"S"`` -> ``"S"``."""
    return None if strain == "NT" else strain
