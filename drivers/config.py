"""Device configuration: which device (by the serial number it gives in its handshake) sits at which seat.

JSON form: ``{"table": 3, "seats": {"SR-0001": "N", "BB-0001": "N", "SR-0002": "E", ...}}``. A device
whose serial number is not in the map is *unbound*: it is admitted (so the director can see it), and
whatever it reports becomes an ``UNBOUND_DEVICE`` error event, never a table event.
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import ConfigError

SEATS = ("N", "E", "S", "W")


@dataclass
class SeatMap:
    seats: dict[str, str] = field(default_factory=dict)      # serial number -> seat
    table: int = 0                                            # 0: not known

    def __post_init__(self) -> None:
        clean = {}
        for serial, seat in self.seats.items():
            s = str(seat).strip().upper()[:1]
            if s not in SEATS:
                raise ConfigError(f"device {serial}: {seat!r} is not a seat (N, E, S, W)")
            clean[str(serial)] = s
        self.seats = clean

    def seat_of(self, serial: str) -> str | None:
        return self.seats.get(serial)

    def bind(self, serial: str, seat: str | None) -> None:
        if seat is None:
            self.seats.pop(serial, None)
        else:
            self.seats[serial] = SeatMap({serial: seat}).seats[serial]

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SeatMap:
        if not isinstance(data, Mapping) or not isinstance(data.get("seats", {}), Mapping):
            raise ConfigError('a seat map is {"table": N, "seats": {"SERIAL": "N", ...}}')
        return cls(dict(data.get("seats", {})), int(data.get("table", 0)))

    @classmethod
    def load(cls, path: str | Path) -> SeatMap:
        try:
            return cls.from_json(json.loads(Path(path).read_text(encoding="utf-8")))
        except (OSError, ValueError) as err:
            raise ConfigError(f"cannot read seat map {path}: {err}") from err
