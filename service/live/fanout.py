"""One message to a thousand sockets: encoded once, written in slices.

A message for an audience (every spectator of the club, every results screen of one viewer kind) is a
``Message``: its JSON text, and, built once on first use, its WebSocket frame (an unmasked, uncompressed text
frame: the service serves WebSockets without per-message deflate, ``service/web/shared_frames.py``). Every
socket of the audience is written the same bytes.

``Fanout`` hands a message to its subscribers ``SLICE`` at a time and yields to the event loop between slices,
so a health request, a table's event or the next view is served between them rather than behind the whole
burst. Jobs are handed out in the order they were given (a subscriber never receives a table's older view after
a newer one); a job no larger than a slice, with nothing queued before it, is handed out at once.

A subscriber whose socket keeps up is written directly (``Subscriber.offer_state`` with a frame writer, see
``service/live/hub.py``); one whose socket is behind (its send buffer over the transport's high-water mark) or
whose own task is still sending gets the message in its mailbox, which keeps only the newest view per table:
a spectator that falls behind skips to the newest state, and holds at most one message per table. A ``Patch``
(the results screen's change since the last push) cannot be skipped: one that finds an unsent message of its
key in the mailbox replaces it with the new state whole.
"""
from __future__ import annotations

import asyncio
import struct
from collections import deque
from collections.abc import Sequence
from typing import Protocol

SLICE = 100                  # subscribers handed a message between two yields to the event loop


def text_frame(payload: bytes) -> bytes:
    """A final, unmasked, uncompressed WebSocket text frame (RFC 6455, 5.2: what a server sends) of ``payload``."""
    n = len(payload)
    if n < 126:
        head = struct.pack("!BB", 0x81, n)
    elif n < 1 << 16:
        head = struct.pack("!BBH", 0x81, 126, n)
    else:
        head = struct.pack("!BBQ", 0x81, 127, n)
    return head + payload


class Message(str):
    """A message's JSON text (it is the text: tests and the ASGI path read it as a string) with its frame
    built once for every socket it is written to."""

    _frame: bytes | None = None

    def frame(self) -> bytes:
        if self._frame is None:
            self._frame = text_frame(self.encode())
        return self._frame


class Patch(Message):
    """A message that holds only what changed since the one before it (``service/live/patches.py``), with the
    same state whole (``whole``) for a mailbox that never sent the one before: it must not be skipped."""

    whole: Message

    def __new__(cls, text: str, whole: Message) -> Patch:
        self = super().__new__(cls, text)
        self.whole = whole
        return self


class FrameWriter(Protocol):
    """What the server offers a WebSocket for writing whole frames (``service/web/shared_frames.py``)."""

    def ready(self) -> bool:
        """The connection is open, negotiated no extension and its send buffer is below the high-water mark."""
        ...

    def write(self, frame: bytes) -> None: ...

    async def writable(self) -> bool:
        """Until the send buffer is below the low-water mark again: True; or the connection ended: False."""
        ...


class Recipient(Protocol):
    def offer_state(self, key: str, text: str) -> None: ...


class Fanout:
    def __init__(self, slice_size: int = SLICE) -> None:
        self.slice = slice_size
        self._jobs: deque[tuple[Sequence[Recipient], str, str]] = deque()
        self._task: asyncio.Task[None] | None = None

    @property
    def pending(self) -> int:
        return sum(len(subs) for subs, _key, _text in self._jobs)

    def send(self, subs: Sequence[Recipient], key: str, text: str) -> None:
        """Offer ``text`` (under ``key``: a table, "results") to each of ``subs``, now or in slices."""
        if not subs:
            return
        if not self._jobs and len(subs) <= self.slice:
            for sub in subs:
                sub.offer_state(key, text)
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:                     # no loop to yield to: at once
            for sub in subs:
                sub.offer_state(key, text)
            return
        self._jobs.append((subs, key, text))
        if self._task is None or self._task.done():
            self._task = loop.create_task(self._run())

    async def _run(self) -> None:
        budget = self.slice
        while self._jobs:
            subs, key, text = self._jobs[0]
            start = 0
            while start < len(subs):
                chunk = subs[start:start + budget]
                for sub in chunk:
                    sub.offer_state(key, text)
                budget -= len(chunk)
                start += len(chunk)
                if budget <= 0:
                    await asyncio.sleep(0)       # health, events and other sockets between slices
                    budget = self.slice
            self._jobs.popleft()

    def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
        self._jobs.clear()
