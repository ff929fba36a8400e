"""HAND_READ in parts, put back together (docs/protocol.md §9, HAND_READ).

A seat unit sends the hand lying on its antenna as parts of a few tags each (a part fits its event queue's
entry); every part names the hand (its ``zone`` and ``ts``, the time the hand was read) and its place (``part`` of
``parts``). The session already drops a retransmitted frame; this also makes the parts idempotent above it: a
part received twice counts once, and a hand is given out once, when its last part arrives, whatever the order.
"""
from __future__ import annotations

from .messages import HandScan

KEEP = 4                # hands being assembled at once: an older partial hand (the hand lifted mid-send) is dropped


class HandAssembler:
    def __init__(self) -> None:
        self._parts: dict[tuple[int, int, int], dict[int, tuple[bytes, ...]]] = {}
        self._done: set[tuple[int, int, int]] = set()

    def reset(self) -> None:
        """The device restarted (its clock with it): hands named by its old times mean nothing any more."""
        self._parts.clear()
        self._done.clear()

    def feed(self, msg: HandScan) -> HandScan | None:
        """The whole hand once its last part is in (``None`` until then, and for a part or hand seen before)."""
        if msg.parts == 1:
            return msg
        key = (int(msg.zone), msg.ts, msg.parts)
        if key in self._done:
            return None
        got = self._parts.setdefault(key, {})
        got[msg.part] = msg.uids
        if len(got) < msg.parts:
            while len(self._parts) > KEEP:
                del self._parts[next(iter(self._parts))]
            return None
        del self._parts[key]
        self._done.add(key)
        uids = tuple(u for k in range(msg.parts) for u in got[k])
        return HandScan(uids, msg.ts, msg.zone)
