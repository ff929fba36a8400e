"""Fresh deals for simulated boards: a seeded shuffle of the 52 cards (``random.Random``), one per board number,
so every simulated table plays the same deal on the same board (duplicate) and a restart deals it again."""
from __future__ import annotations

import random

from table.cards import ALL_CARDS, SEATS, Deal


def deal_for(seed: int, board: int) -> Deal:
    rng = random.Random(f"bridgetable-deal:{seed}:{board}")
    cards = list(ALL_CARDS)
    rng.shuffle(cards)
    return Deal({s: cards[13 * i:13 * i + 13] for i, s in enumerate(SEATS)})
