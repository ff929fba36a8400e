"""A loopback device: echoes every byte it receives. Used to test transports and links without a protocol.

Does not model: any protocol, any device behaviour; it has no timers and never speaks first.
"""
from __future__ import annotations


class LoopbackDevice:
    def __init__(self, name: str = "loopback") -> None:
        self.name = name
        self._out = bytearray()

    def attach(self, now: float) -> None:
        self._out.clear()

    def detach(self) -> None:
        self._out.clear()

    def receive(self, data: bytes, now: float) -> None:
        self._out += data

    def poll(self, now: float) -> bytes:
        out = bytes(self._out)
        self._out.clear()
        return out

    def next_deadline(self) -> float | None:
        return None
