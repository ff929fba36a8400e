"""Words the play's irregularity details are written with."""
from __future__ import annotations

from collections.abc import Iterable

from ..cards import sort_cards

SUIT_NAME = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}


def cards_text(cards: Iterable[str]) -> str:
    """``{"HA", "S2"}`` -> ``"S2 HA"`` (suits and ranks in order)."""
    return " ".join(sort_cards(cards))
