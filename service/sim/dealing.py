"""Fresh deals for simulated boards, from ``table/dealgen.py``'s generator, one per board number.

With a seed (the simulation's ``seed``, tests) the deal comes from ``dealgen.HashDRBG`` keyed by the seed and
the board number: every simulated table plays the same deal on the same board (duplicate), a restart deals it
again, and the same seed gives the same deals on every machine and Python version. Anyone who knows the seed
knows every deal, so a seed is for simulations and tests only. Without a seed the deal comes from the
operating system's CSPRNG (``dealgen.source()``) and nobody can reproduce it.
"""
from __future__ import annotations

from table.cards import Deal
from table.dealgen import HashDRBG, random_deal, source


def deal_for(seed: int | None, board: int) -> Deal:
    rng = source() if seed is None else HashDRBG(f"bridgetable-deal:{seed}:{board}")
    return random_deal(rng)


def demonstration_source(seed: int | None) -> str:
    """The hand-record set's source as the console shows it: whether anyone can deal it again."""
    return "generated for the demonstration" + (f" (seed {seed}: anyone who knows it knows every deal)"
                                                if seed is not None else "")
