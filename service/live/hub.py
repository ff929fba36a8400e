"""Live delivery: WebSocket subscribers and what each is sent.

Each subscriber has a viewer (director, seat, spectator) and a set of tables (or all). A message is a full
snapshot of what that viewer may see of a table (``visible_state``), so a slow client loses nothing by
skipping stale ones: a subscriber keeps only the newest snapshot per table (plus a bounded list of
one-off messages such as irregularity alerts) and its WebSocket task sends whatever is waiting. A snapshot
is computed and serialised once per (table, viewer kind) and shared by every subscriber of that kind, with
the boards the movement's rule (``rule``, ``service/event/board_rule.py``) hides from that viewer; a snapshot equal
to the last one sent to that kind is not sent again (a withheld board's view does not move while it is played).
A kind's message is handed to its subscribers in slices (``service/live/fanout.py``); a spectator's socket that
keeps up is written the message's one frame directly, one that is behind finds the newest view per table in its
mailbox.
"""
from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from service.live.fanout import Fanout, FrameWriter, Message, Patch, text_frame
from service.live.runtime import TableRuntime
from service.live.visibility import NOTHING, BoardRule, Viewer, visible_state

log = logging.getLogger(__name__)

ALL = "*"
MAX_EXTRA = 500


class Subscriber:
    def __init__(self, viewer: Viewer, table: str | None) -> None:
        self.viewer = viewer
        self.table = table                     # None: every table
        self._latest: dict[str, str] = {}
        self._extra: deque[str] = deque()
        self._wake = asyncio.Event()
        self.dropped = 0
        # Whole frames written straight to the socket (``service/live/fanout.py``), when the server offers it:
        # only while the mailbox is empty and the stream's own task is not sending, so the order holds
        self.writer: FrameWriter | None = None
        self.sending = False

    def offer_state(self, table_id: str, text: str) -> None:
        writer = self.writer
        if writer is not None and not self.sending and not self._latest and not self._extra and writer.ready():
            writer.write(text.frame() if isinstance(text, Message) else text_frame(text.encode()))
            return
        if isinstance(text, Patch) and table_id in self._latest:
            text = text.whole                  # the message it patches was skipped: the state whole instead
        self._latest[table_id] = text          # behind: only the newest view per table waits
        self._wake.set()

    def offer(self, text: str) -> None:
        if len(self._extra) >= MAX_EXTRA:
            self._extra.popleft()
            self.dropped += 1
        self._extra.append(text)
        self._wake.set()

    async def next_batch(self) -> list[str]:
        await self._wake.wait()
        self._wake.clear()
        out = list(self._latest.values()) + list(self._extra)
        self._latest.clear()
        self._extra.clear()
        return out

    async def send_batch(self, batch: list[str], send_text: Callable[[str], Awaitable[None]]) -> None:
        """Send what ``next_batch`` returned: as whole frames when the server offers it (waiting while the socket
        is behind), else through ``send_text``; offers meanwhile wait in the mailbox."""
        self.sending = True
        try:
            for text in batch:
                writer = self.writer
                if writer is None:
                    await send_text(text)
                    continue
                if not writer.ready() and not await writer.writable():
                    return                     # the connection is gone: its stream ends
                writer.write(text.frame() if isinstance(text, Message) else text_frame(text.encode()))
        finally:
            self.sending = False


class Hub:
    def __init__(self) -> None:
        # table (or ALL) -> role -> subscribers: an event's publish to the director and seats does not walk
        # past the thousand spectators of /ws/club, nor theirs past the seats
        self._subs: dict[str, dict[str, set[Subscriber]]] = {}
        self.messages_sent = 0
        self.rule: BoardRule | None = None           # create_app sets the movement's rule
        self.fanout = Fanout()
        self._last: dict[tuple[str, str], str] = {}
        # A table's spectator view as last computed, for greeting a new spectator: a /ws/club spectator is
        # greeted with every table, and a thousand of them must not compute (and ask the rule for) every
        # table's view a thousand times. Every change of a spectator view is published (the delayed copy's
        # rows, releases, the rule's changes: ``publish_state(..., ("spectator",))``), which drops the entry.
        self._spectator_view: dict[str, tuple[int, str]] = {}

    def subscribe(self, viewer: Viewer, table: str | None) -> Subscriber:
        sub = Subscriber(viewer, table)
        self._subs.setdefault(table or ALL, {}).setdefault(viewer.role, set()).add(sub)
        return sub

    def greet(self, sub: Subscriber, rt: TableRuntime) -> None:
        """Offer a new subscriber the current snapshot of ``rt`` (what its kind was sent last, or newer)."""
        spectator = sub.viewer.role == "spectator"
        known = self._spectator_view.get(rt.id) if spectator else None
        if known is not None and known[0] == rt.seq:    # a row the copy took in unpublished: computed anew
            body = known[1]
        else:
            body = json.dumps(self.state(rt, sub.viewer), separators=(",", ":"))
            if spectator:
                self._spectator_view[rt.id] = (rt.seq, body)
        self._last[(rt.id, sub.viewer.key)] = body
        sub.offer_state(rt.id, self._message(rt.id, body))

    def unsubscribe(self, sub: Subscriber) -> None:
        self._subs.get(sub.table or ALL, {}).get(sub.viewer.role, set()).discard(sub)

    def count(self) -> int:
        return sum(len(s) for by_role in self._subs.values() for s in by_role.values())

    def _targets(self, table_id: str, roles: Iterable[str]) -> list[Subscriber]:
        out: list[Subscriber] = []
        for key in (table_id, ALL):
            by_role = self._subs.get(key)
            if not by_role:
                continue
            for role in set(roles):
                subs = by_role.get(role)
                if not subs:
                    continue
                if role == "seat":
                    out += [sub for sub in subs if sub.viewer.table == table_id]
                else:
                    out += subs
        return out

    def state(self, rt: TableRuntime, viewer: Viewer) -> dict[str, Any]:
        """``visible_state`` under the movement's rule: what ``viewer`` may see of ``rt`` now."""
        hidden = self.rule.hidden_at(rt.id, viewer) if self.rule is not None else NOTHING
        return visible_state(rt, viewer, hidden)

    @staticmethod
    def _message(table_id: str, state_text: str) -> Message:
        return Message(f'{{"type":"state","table":{json.dumps(table_id)},"sent":{time.time()},"state":{state_text}}}')

    def state_message(self, rt: TableRuntime, viewer: Viewer) -> str:
        return self._message(rt.id, json.dumps(self.state(rt, viewer), separators=(",", ":")))

    def publish_state(self, rt: TableRuntime, roles: Iterable[str] = ("director", "seat")) -> None:
        if "spectator" in roles:
            self._spectator_view.pop(rt.id, None)
        audiences: dict[str, list[Subscriber]] = {}
        for sub in self._targets(rt.id, roles):
            audiences.setdefault(sub.viewer.key, []).append(sub)
        for key, subs in audiences.items():
            try:
                body = json.dumps(self.state(rt, subs[0].viewer), separators=(",", ":"))
            except Exception:                           # a view bug must not stop the others' delivery
                log.exception("view of table %s for %s failed", rt.id, key)
                continue
            seen = (rt.id, key)
            unchanged = self._last.get(seen) == body
            self._last[seen] = body
            if key == "spectator":
                self._spectator_view[rt.id] = (rt.seq, body)
            if unchanged:
                continue
            self.fanout.send(subs, rt.id, self._message(rt.id, body))   # one text, one frame, every socket
            self.messages_sent += len(subs)

    def publish(self, table_id: str, message: dict[str, Any], roles: Iterable[str] = ("director",)) -> None:
        text = json.dumps(message, separators=(",", ":"), default=str)
        for sub in self._targets(table_id, roles):
            sub.offer(text)
            self.messages_sent += 1
