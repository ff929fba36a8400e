"""A stream whose client leaves while a push is on its way: the send fails, and the stream ends then, its
subscriber gone from the hub (not when the receive side learns it, which may be never), with nothing in the log.

The transport is not the point here (the WebSocket tests over real sockets are in test_service_api.py and
test_leaks.py); what a client's departure leaves in the service's log is, and the moment it happens in (a send
after the socket went, before the receive side learnt it) cannot be made to happen over a real socket on demand.
"""
from __future__ import annotations

import asyncio
import gc
import logging
from typing import Any

from fastapi import WebSocketDisconnect

from service.api.ws import _pump
from service.live.hub import Subscriber
from service.live.visibility import Viewer


class JustLeft:
    """A WebSocket whose client has just gone: the next send fails; the receive side has not learnt it yet (a
    phone that left the club's wifi sends no close)."""

    def __init__(self) -> None:
        self.sent = 0

    async def send_text(self, text: str) -> None:
        self.sent += 1
        raise WebSocketDisconnect(code=1006)

    async def receive_text(self) -> str:
        await asyncio.Event().wait()
        raise AssertionError("never reached")


def test_a_send_to_a_client_that_just_left_ends_the_stream_and_its_subscription_quietly(caplog: Any) -> None:
    sub = Subscriber(Viewer("director"), None)
    sub.offer('{"type": "state"}')                 # a push already waiting when the client leaves
    ws, ended = JustLeft(), []

    async def stream() -> None:
        await asyncio.wait_for(_pump(ws, None, sub, on_end=ended.append), 5)    # type: ignore[arg-type]

    with caplog.at_level(logging.ERROR, logger="asyncio"):
        asyncio.run(stream())
        gc.collect()                                # an unretrieved task error is logged when the task goes
    assert ws.sent == 1 and ended == [sub]
    assert not [r for r in caplog.records if "never retrieved" in r.getMessage()], caplog.text
