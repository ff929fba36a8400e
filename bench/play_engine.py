"""Time the play engine alone on legal boards: ``Play.card`` one card at a time and ``Play.run_cards`` (the
batch replay's loop), construction included, with the boards generated beforehand.

    python bench/play_engine.py [--boards N] [--repeat R] [--seed S]

Prints microseconds per card for both paths (the best of ``R`` runs). Speed is measured here, never by a
test; ``tests/table/test_play.py`` checks that both paths give the same play.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from table.cards import ALL_CARDS, SEATS, Deal, Seat
from table.play import Play


@dataclass(slots=True)
class Card:
    seat: Seat
    card: str


def legal_boards(count: int, seed: int) -> list[tuple[Deal, list[Card]]]:
    """``count`` random deals, each with a random legal play of 13 tricks (hearts, South declares)."""
    rng = random.Random(seed)
    boards = []
    for _ in range(count):
        cards = list(ALL_CARDS)
        rng.shuffle(cards)
        deal = Deal({s: cards[i * 13:(i + 1) * 13] for i, s in enumerate(SEATS)})
        p = Play(Seat.S, "H", deal)
        seq = []
        while not p.complete:
            seat = p.next_seat
            held = sorted(p.remaining(seat))
            trick = p.tricks[-1]
            follow = [c for c in held if trick and c[0] == trick[0][1][0]]
            c = rng.choice(follow or held)
            p.card(seat, c)
            seq.append(Card(seat, c))
        boards.append((deal, seq))
    return boards


def by_card(boards: list[tuple[Deal, list[Card]]]) -> float:
    t0 = time.perf_counter()
    for deal, seq in boards:
        p = Play(Seat.S, "H", deal)
        for e in seq:
            p.card(e.seat, e.card)
    return time.perf_counter() - t0


def by_run(boards: list[tuple[Deal, list[Card]]]) -> float:
    t0 = time.perf_counter()
    for deal, seq in boards:
        Play(Seat.S, "H", deal).run_cards(seq, 0, Card)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    boards = legal_boards(args.boards, args.seed)
    cards = 52 * len(boards)
    for name, run in (("card", by_card), ("run_cards", by_run)):
        best = min(run(boards) for _ in range(args.repeat))
        print(f"{name:>9}: {best / cards * 1e6:.3f} us/card ({len(boards)} legal boards, construction included)")


if __name__ == "__main__":
    main()
