"""What the law engine keeps about irregularities: a choice waiting to be made, an obligation a chosen
penalty imposes, a revoke on its way to the Law 64 transfer."""
from __future__ import annotations

from typing import Any

from ..cards import Seat
from ..irregularity import Irregularity


class Pending:
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


class Obligation:
    """A lead or play obligation from a chosen penalty: 57A (highest / lowest / forbid a suit, for one play),
    26 and 50D2 (require / forbid a suit for a lead; a prohibition lasts while the seat keeps the lead)."""

    __slots__ = ("seat", "kind", "suit", "trick", "irr", "law")

    def __init__(self, seat: Seat, kind: str, suit: str | None, trick: int, irr: Irregularity, law: str) -> None:
        self.seat, self.kind, self.suit, self.trick, self.irr, self.law = seat, kind, suit, trick, irr, law


class Revoke:
    """A flagged revoke: open (correctable, 62), then established (63) or corrected."""

    __slots__ = ("irr", "seat", "side", "trick", "card", "suit", "legal", "faced", "was_pc", "kind",
                 "linked", "exempt", "ob")

    def __init__(self, irr: Irregularity, seat: Seat, trick: int, card: str, suit: str,
                 legal: frozenset[str] | None, faced: bool, was_pc: bool, kind: str,
                 linked: Irregularity | None = None, ob: Obligation | None = None) -> None:
        self.irr = irr
        self.seat = seat
        self.side = seat.side
        self.trick = trick                 # 1-based
        self.card = card                   # the card played in revoking
        self.suit = suit                   # suit led (failure to follow) or the suit of the obligation
        self.legal = legal                 # cards legal to play then (64A2 1997 clause); None: computed at the end
        self.faced = faced                 # 64B3: failure to play a faced card (dummy's, a penalty card)
        self.was_pc = was_pc               # the revoke card itself was a faced penalty card (62B2)
        self.kind = kind                   # "follow" | "obligation" | "penalty_card" | "retro"
        self.linked = linked               # the FAILURE_TO_PLAY_PENALTY_CARD flag for the same card
        self.exempt: str | None = None     # "64B4" / "64B5" by the director's ruling
        self.ob = ob                       # the obligation it violated (restored if corrected)
