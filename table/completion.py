"""Completing, double dummy, a play record that stops short with no claim and no Result.

Some files record the play up to a claim but not the claim's figure; only their Score says how the board
ended (the 1998 BridgePlaza conversions in the corpus: 768 records). The law engine cannot score such a
board: the play did not end by the laws' own events (Law 68: a claim ends the play; its figure is what the
opponents agreed). To check the file's Score independently, a replay may complete the play double dummy
from the last recorded card (endplay's DDS solver): both sides play perfectly with all hands seen.

This is an inference and is labelled as one: it goes into the verdict's ``completion`` field, never into
``tricks`` or ``score_ns``, and it is computed only on request (``bridgetable replay --complete-dd``).
A play with any irregularity (a revoke, a lead out of turn, a penalty card) is not completed: the laws'
rectifications, not perfect play, would decide it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .cards import SEATS, Seat
from .dds import SOLVER_LOCK, solver_only
from .scoring import score_ns

if TYPE_CHECKING:
    from .machine import Table

_RANKS = "AKQJT98765432"
_DENOM = {"S": 0, "H": 1, "D": 2, "C": 3, "NT": 4}          # endplay.types.Denom values
_PLAYER = {Seat.N: 0, Seat.E: 1, Seat.S: 2, Seat.W: 3}     # endplay.types.Player values
METHOD = "double dummy from the last recorded card (endplay DDS); an inference, not the table's result"


def _hand_pbn(cards: set[str]) -> str:
    return ".".join("".join(r for r in _RANKS if suit + r in cards) for suit in "SHDC")


def double_dummy_tricks(table: Table) -> int | None:
    """Declarer side's total tricks if the unfinished play on ``table`` were completed double dummy; None
    when the play is finished, irregular, or not fully known."""
    play = table.play
    if (table.tricks is not None or table.passed_out or play is None or table.deal is None
            or table.claim is not None or play.irregularities or play.complete):
        return None
    trick = play.tricks[-1]
    hands: dict[Seat, set[str]] = {}
    for seat in SEATS:
        hands[seat] = set(play.remaining(seat)) | {c for s, c in trick if s is seat}
    remaining_tricks = 13 - len(play.winners)
    if any(len(h) != remaining_tricks for h in hands.values()):
        return None                                    # a hand record that does not fit the play
    solver_only()
    from endplay.dds import solve_board  # imported here: DDS is loaded only when asked for
    from endplay.types import Deal, Denom, Player
    deal = Deal("N:" + " ".join(_hand_pbn(hands[s]) for s in SEATS))
    deal.trump = Denom(_DENOM[play.strain])
    leader = trick[0][0] if trick else play.next_seat
    deal.first = Player(_PLAYER[leader])
    for _, card in trick:
        deal.play(card)
    to_move = play.next_seat
    with SOLVER_LOCK:
        best = max(tricks for _, tricks in solve_board(deal))
    declarer_side = play.declarer.side
    rest = best if to_move.side == declarer_side else remaining_tricks - best
    return play.declarer_tricks + rest


def completion(table: Table) -> dict[str, Any] | None:
    """The verdict's ``completion`` entry for an unfinished play, or None."""
    tricks = double_dummy_tricks(table)
    if tricks is None or table.board is None:
        return None
    return {"tricks": tricks, "score_ns": score_ns(table.contract, table.board.vulnerable, tricks),
            "method": METHOD}
