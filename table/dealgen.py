"""Generating sets of deals: uniform over all 52!/(13!)^4 deals, from a cryptographically secure source.

``generate(n)`` shuffles a full pack with Fisher–Yates and gives 13 cards to each seat. Without a seed
the random source is ``secrets.SystemRandom`` (the operating system's CSPRNG): nobody, including whoever
runs the program, can predict or reproduce the set, which is what a tournament needs.

With a seed the source is :class:`HashDRBG`, SHA-256 in counter mode keyed by the seed: the same seed
gives the same set on every machine and Python version (``random.Random`` promises no such thing
across versions). **Seeded sets are for tests and demonstrations only**: anyone who learns the seed
knows every deal, so never deal a tournament from a seed.

Each shuffle step draws an unbiased integer below ``k`` by rejection sampling (``randrange``), so every
permutation — and so every deal — is equally likely.
"""
from __future__ import annotations

import hashlib
import secrets
from typing import Protocol

from .cards import ALL_CARDS, SEATS, Deal
from .errors import BridgeError
from .handrecords.base import HandRecordBoard

Seed = int | str | bytes


class DealGenerationError(BridgeError, ValueError):
    """A request for boards that cannot be dealt (no board, a number out of range)."""


class RandomSource(Protocol):
    def randrange(self, stop: int, /) -> int: ...


class HashDRBG:
    """A deterministic random bit generator: block *i* is ``SHA-256(key || i)``, key = SHA-256 of a label
    and the seed. Reproducible and statistically sound; predictable by anyone with the seed (test only)."""

    def __init__(self, seed: Seed) -> None:
        if isinstance(seed, int):
            raw = b"int:" + str(seed).encode()
        elif isinstance(seed, str):
            raw = b"str:" + seed.encode("utf-8")
        else:
            raw = b"bytes:" + bytes(seed)
        self._key = hashlib.sha256(b"bridgetable.dealgen.v1\0" + raw).digest()
        self._counter = 0
        self._pool = 0                      # unused random bits, as an integer
        self._bits = 0

    def getrandbits(self, k: int) -> int:
        while self._bits < k:
            block = hashlib.sha256(self._key + self._counter.to_bytes(8, "big")).digest()
            self._counter += 1
            self._pool = (self._pool << 256) | int.from_bytes(block, "big")
            self._bits += 256
        self._bits -= k
        out = self._pool >> self._bits
        self._pool &= (1 << self._bits) - 1
        return out

    def randrange(self, stop: int) -> int:
        """Uniform in ``0 .. stop-1``: draw just enough bits and reject values past ``stop``."""
        if stop <= 0:
            raise DealGenerationError("randrange needs a positive bound")
        k = stop.bit_length()
        while True:
            r = self.getrandbits(k)
            if r < stop:
                return r


def source(seed: Seed | None = None) -> RandomSource:
    """``secrets.SystemRandom()`` without a seed (tournaments), ``HashDRBG(seed)`` with one (tests)."""
    return secrets.SystemRandom() if seed is None else HashDRBG(seed)


def random_deal(rng: RandomSource) -> Deal:
    """One uniform deal: Fisher–Yates over the pack, then cards 0-12 to North, 13-25 to East, ..."""
    pack = list(ALL_CARDS)
    for i in range(len(pack) - 1, 0, -1):
        j = rng.randrange(i + 1)
        pack[i], pack[j] = pack[j], pack[i]
    return Deal({s: pack[13 * k:13 * k + 13] for k, s in enumerate(SEATS)})


def generate(n: int, seed: Seed | None = None, *, first: int = 1) -> list[HandRecordBoard]:
    """``n`` boards numbered from ``first``, dealer and vulnerability from the number (Law 2)."""
    if n < 1:
        raise DealGenerationError("generate at least one board")
    if first < 1 or first + n - 1 > 0xFFFF:
        raise DealGenerationError("board numbers must stay within 1..65535")
    rng = source(seed)
    return [HandRecordBoard.of(first + k, random_deal(rng)) for k in range(n)]
