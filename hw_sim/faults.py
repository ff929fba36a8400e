"""Named, seeded faults for the simulated devices.

A fault spec is a comma-separated string, e.g. ``corrupt=0.05,drop=0.02,dup=1,unplug=1,seed=7``:

=========================  ==========  =====================================================================
name (long name)           value       effect
=========================  ==========  =====================================================================
``corrupt`` (corrupt_byte) rate 0..1   each byte on the wire is replaced by a different random byte with
                                       this probability (both directions unless ``dir=up``)
``drop`` (drop_frame)      rate 0..1   each whole frame (bytes up to a ``0x00`` delimiter) is lost
``dup`` (duplicate_read)   rate 0..1   an RFID read is reported twice (the antenna saw the card again)
``misread`` (misread_tag)  rate 0..1   before a good read the reader reports a wrong (unknown) tag UID
``unplug``                 count       times per board the device is unplugged mid-board and comes back
``slow``                   seconds     every frame from the device is delayed this long
``replug``                 seconds     how long an unplugged device stays away (default 0.2)
``dir``                    up|both     which direction ``corrupt``/``drop`` hit (default both)
``seed``                   integer     seeds every random choice; same seed, same faults
=========================  ==========  =====================================================================

Randomness is drawn from ``random.Random(f"{seed}:{stream}")`` per named stream (a device and a
direction), so adding a device does not change the faults another device sees.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass, fields, replace

from .errors import FaultSpecError

DELIMITER = 0x00          # COBS frame delimiter: the only byte a fault needs to know about

_ALIASES = {"corrupt_byte": "corrupt", "drop_frame": "drop", "duplicate_read": "dup", "misread_tag": "misread",
            "delay": "slow"}
_RATES = ("corrupt", "drop", "dup", "misread")


@dataclass(frozen=True, slots=True)
class FaultSpec:
    corrupt: float = 0.0
    drop: float = 0.0
    dup: float = 0.0
    misread: float = 0.0
    unplug: int = 0
    slow: float = 0.0
    replug: float = 0.2
    dir: str = "both"
    seed: int = 0

    @classmethod
    def parse(cls, spec: str | None, seed: int | None = None) -> FaultSpec:
        """Parse ``"corrupt=0.05,drop=0.02,seed=7"``; ``seed`` (if given) overrides the spec's seed."""
        values: dict[str, object] = {}
        for part in (spec or "").replace(";", ",").split(","):
            part = part.strip()
            if not part:
                continue
            name, sep, raw = part.partition("=")
            name = _ALIASES.get(name.strip().lower(), name.strip().lower())
            raw = raw.strip()
            if name not in {f.name for f in fields(cls)}:
                raise FaultSpecError(f"unknown fault {name!r} (known: corrupt, drop, dup, misread, unplug, slow, "
                                     f"replug, dir, seed)")
            if not sep:
                raw = "1"                       # a bare name switches a fault fully on: "dup" == "dup=1"
            try:
                if name == "dir":
                    if raw not in ("up", "both"):
                        raise ValueError("dir is up or both")
                    values[name] = raw
                elif name in ("unplug", "seed"):
                    values[name] = int(raw)
                else:
                    values[name] = float(raw)
            except ValueError as err:
                raise FaultSpecError(f"fault {name!r}: bad value {raw!r} ({err})") from None
            if name in _RATES and not 0.0 <= values[name] <= 1.0:  # type: ignore[operator]
                raise FaultSpecError(f"fault {name!r} is a rate between 0 and 1, not {raw}")
            if name in ("unplug", "slow", "replug") and values[name] < 0:  # type: ignore[operator]
                raise FaultSpecError(f"fault {name!r} cannot be negative")
        out = cls(**values)  # type: ignore[arg-type]
        return replace(out, seed=seed) if seed is not None else out

    def __str__(self) -> str:
        default = FaultSpec()
        parts = [f"{f.name}={getattr(self, f.name)}" for f in fields(self)
                 if f.name != "seed" and getattr(self, f.name) != getattr(default, f.name)]
        return ",".join(parts + [f"seed={self.seed}"])

    @property
    def any(self) -> bool:
        return any(getattr(self, n) for n in _RATES) or bool(self.unplug or self.slow)

    @property
    def wire(self) -> bool:
        return bool(self.corrupt or self.drop)

    def rng(self, stream: str) -> random.Random:
        """An independent, reproducible random stream for one named consumer."""
        return random.Random(f"{self.seed}:{stream}")


def _gap(rng: random.Random, p: float) -> int:
    """Number of trials before the next success of a Bernoulli(p) (geometric); cheap for small rates."""
    if p <= 0:
        return 1 << 62
    if p >= 1:
        return 0
    return int(math.log(1.0 - rng.random()) / math.log(1.0 - p))


class WireFaults:
    """Corrupts bytes and drops whole frames of one direction of a byte stream, reproducibly.

    Bytes pass straight through when no frame can be dropped; with ``drop`` on, bytes are held until
    their frame's delimiter arrives (devices write whole frames, so nothing waits long). Counts what it
    did in ``corrupted`` and ``dropped``.
    """

    def __init__(self, spec: FaultSpec, stream: str) -> None:
        self.spec = spec
        self._rng = spec.rng(stream)
        self._next_corrupt = _gap(self._rng, spec.corrupt)
        self._frame = bytearray()
        self.corrupted = 0
        self.dropped = 0

    def apply(self, data: bytes) -> bytes:
        spec = self.spec
        if not spec.corrupt and not spec.drop:
            return data
        buf = bytearray(data)
        if spec.corrupt:
            i = self._next_corrupt
            while i < len(buf):
                buf[i] ^= self._rng.randrange(1, 256)       # a different byte, never the same one
                self.corrupted += 1
                i += 1 + _gap(self._rng, spec.corrupt)
            self._next_corrupt = i - len(buf)
        if not spec.drop:
            return bytes(buf)
        out = bytearray()
        start = 0
        while True:
            end = buf.find(DELIMITER, start)
            if end < 0:
                self._frame += buf[start:]
                break
            self._frame += buf[start:end + 1]
            if len(self._frame) > 1 and self._rng.random() < spec.drop:
                self.dropped += 1
            else:
                out += self._frame
            self._frame.clear()
            start = end + 1
        return bytes(out)

    def reset(self) -> None:
        """Forget a partial frame (the link was cut)."""
        self._frame.clear()
