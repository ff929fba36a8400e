"""WebSocket streams: ``/ws/tables/{id}`` (one table) and ``/ws/club`` (every table), each message a JSON
object. ``{"type": "state", "table": ..., "state": visible_state(...)}`` on connect and after every change;
``/ws/results`` pushes the results screen (``{"type": "results", "results": ...}``, ``service/event/public_screen.py``)
on connect and whenever it changes; the director also receives ``{"type": "flagged", ...}`` the moment an
irregularity is flagged and ``{"type": "device", ...}`` for device reports. The token (``?token=``) decides
the view: the director's (everything), a seat's (its own table, filtered), none (spectator: the delayed copy,
filtered); every view under the movement's rule (``service/event/board_rule.py``, via ``Hub.greet`` and
``Hub.publish_state``). Anonymous streams are capped per address and in total (``service/live/limits.py``: one more
is closed with 1013, "try again later")."""
from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from fastapi import APIRouter, Depends, WebSocket, WebSocketDisconnect
from fastapi.responses import JSONResponse

from service.api.deps import service
from service.errors import Unauthenticated
from service.live.hub import Subscriber
from service.web.http_errors import status_of
from service.web.shared_frames import frame_writer
from service.wiring.container import Service

log = logging.getLogger(__name__)
router = APIRouter()


async def _deny(ws: WebSocket, status: int, detail: str) -> None:
    try:
        await ws.send_denial_response(JSONResponse({"detail": detail}, status_code=status))
    except RuntimeError:                      # the server cannot answer the handshake with HTTP: close instead
        await ws.close(code=4000 + status, reason=detail[:120])


def _shared_frames(ws: WebSocket, sub: Subscriber) -> None:
    """A spectator's stream is written the fan-out's shared frames when the server offers it
    (``service/web/shared_frames.py``); a token's stream goes through ASGI (a seat's stream checks its credential
    before each batch)."""
    if sub.viewer.role == "spectator":
        sub.writer = frame_writer(ws.scope)


SEAT_CHECK_S = 10.0          # how often a quiet seat stream re-checks its credential


async def _pump(ws: WebSocket, svc: Service, sub: Subscriber, token: str | None = None,
                on_end: Callable[[Subscriber], None] | None = None) -> None:
    def ended() -> bool:
        """A seat's credential ended (a new round, a revocation): its stream closes, nothing more is sent."""
        if sub.viewer.role != "seat":
            return False
        try:
            svc.tokens.viewer(token)
        except Unauthenticated:
            return True
        return False

    async def sender() -> None:
        while True:
            try:
                batch = await asyncio.wait_for(sub.next_batch(), SEAT_CHECK_S) if sub.viewer.role == "seat" \
                    else await sub.next_batch()
            except TimeoutError:
                batch = []
            if ended():
                await ws.close(code=4401, reason="this seat sign-in has ended")
                return
            await sub.send_batch(batch, ws.send_text)

    async def receiver() -> None:
        while True:
            await ws.receive_text()           # clients may send pings; the stream goes one way

    # the stream ends when either side does: the client leaves (the receive side learns it), or a send finds it
    # gone first; the subscriber goes at once either way (its mailbox would fill for a client that is not there)
    sending, receiving = asyncio.create_task(sender()), asyncio.create_task(receiver())
    try:
        await asyncio.wait({sending, receiving}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        sending.cancel()
        receiving.cancel()
        (on_end or svc.hub.unsubscribe)(sub)
        for task in (sending, receiving):     # a departure ends either task with an error: it is taken here
            with contextlib.suppress(asyncio.CancelledError, WebSocketDisconnect, RuntimeError):
                await task


@router.websocket("/ws/tables/{table_id}")
async def table_stream(ws: WebSocket, table_id: str, token: str | None = None,
                       svc: Service = Depends(service)) -> None:
    try:
        viewer = svc.tokens.viewer(token)
    except Unauthenticated as err:
        await _deny(ws, status_of(err), str(err))
        return
    if table_id not in svc.club.tables:
        await _deny(ws, 404, f"no table {table_id!r}")
        return
    if viewer.role == "seat" and viewer.table != table_id:
        await _deny(ws, 403, f"this seat token belongs to table {viewer.table}")
        return
    async with svc.limits.spectators.slot(ws, viewer) as admitted:
        if not admitted:
            return
        await ws.accept()
        sub = svc.hub.subscribe(viewer, table_id)
        _shared_frames(ws, sub)
        rt = svc.club.feeds[table_id].replica if viewer.role == "spectator" else svc.club.tables[table_id]
        async with svc.club.lock(table_id):          # not an event still awaiting its journal write
            svc.hub.greet(sub, rt)
        await _pump(ws, svc, sub, token)


@router.websocket("/ws/club")
async def club_stream(ws: WebSocket, token: str | None = None, svc: Service = Depends(service)) -> None:
    try:
        viewer = svc.tokens.viewer(token)
    except Unauthenticated as err:
        await _deny(ws, status_of(err), str(err))
        return
    if viewer.role == "seat":
        await _deny(ws, 403, "a seat token follows its own table: /ws/tables/{id}")
        return
    async with svc.limits.spectators.slot(ws, viewer) as admitted:
        if not admitted:
            return
        await ws.accept()
        sub = svc.hub.subscribe(viewer, None)
        _shared_frames(ws, sub)
        for tid in list(svc.club.tables):
            rt = svc.club.feeds[tid].replica if viewer.role == "spectator" else svc.club.tables[tid]
            async with svc.club.lock(tid):
                svc.hub.greet(sub, rt)
        await _pump(ws, svc, sub)


@router.websocket("/ws/results")
async def results_stream(ws: WebSocket, token: str | None = None, svc: Service = Depends(service)) -> None:
    """The results screen as ``token`` may see it (none: the public's), pushed when it changes."""
    try:
        viewer = svc.tokens.viewer(token)
    except Unauthenticated as err:
        await _deny(ws, status_of(err), str(err))
        return
    screen = svc.screen
    if screen is None:
        await _deny(ws, 503, "the service is starting")
        return
    async with svc.limits.spectators.slot(ws, viewer) as admitted:
        if not admitted:
            return
        await ws.accept()
        sub = Subscriber(viewer, None)
        _shared_frames(ws, sub)
        screen.subscribe(sub)
        await _pump(ws, svc, sub, token, screen.unsubscribe)
