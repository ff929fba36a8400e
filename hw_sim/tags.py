"""Simulated RFID tags: reproducible 8-byte ISO 15693-style UIDs (``E004…``) for the decks of a club.

Not modelled: real tag memory, anticollision, read ranges; a UID is just 8 bytes from a seeded stream.
"""
from __future__ import annotations

import random

from table.cards import ALL_CARDS


def deck_uids(name: str, seed: int = 0) -> dict[str, str]:
    """card -> UID for a simulated deck called ``name`` (the same name and seed give the same tags)."""
    rng = random.Random(f"deck:{seed}:{name}")
    out: dict[str, str] = {}
    used: set[str] = set()
    for card in ALL_CARDS:
        while True:
            uid = "E004" + f"{rng.getrandbits(48):012X}"
            if uid not in used:
                used.add(uid)
                out[card] = uid
                break
    return out


def misread_uid(uid: str, rng: random.Random) -> str:
    """A UID a reader might report for ``uid`` with bit errors: a different, almost surely unknown UID
    (the manufacturer prefix is damaged too, so it can never be a tag of a simulated deck)."""
    raw = bytearray(bytes.fromhex(uid))
    raw[0] ^= 0x80                                   # never E0: simulated decks all start E004
    raw[rng.randrange(1, len(raw))] ^= 1 << rng.randrange(8)
    return raw.hex().upper()
