"""The devices configured at each seat: drivers opened from their URLs, their events fed to the club.

For every seat of every configured table, a ``SeatReaderDriver`` for ``reader`` and a ``BiddingBoxDriver``
for ``box`` are created on their URL and pumped by the service's own event loop (``drivers.loop_pool.LoopPool``:
a frame is read, decoded and applied in one turn of the loop, with no hand-over between threads per event;
links are opened on a worker thread and USB devices polled on one: docs/PERFORMANCE.md). Identity
comes from the handshake: with ``reader_serial``/``box_serial`` configured only that device is bound to the
seat; without, whatever answers on the URL is. Table events go through ``Club.submit`` (actor
``device:<serial>``; a bidding box in prevent mode gets REFUSE_CALL for a refused call); device events
(errors, connects, undo ...) go to the director's stream, but for a bidding box's Director key (``DIRECTOR_CALL``),
which is journalled as a call for the director from its seat, as a seat page's "call the director" is. Seat
readers are told each new board's deal.
A hand picked up goes first to ``pickup`` when the event set one (``service/event/reader_pickup.py``: the
hands name their board and start it).
"""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from service.config.settings import Settings
from service.errors import Forbidden, Prevented, ServiceError, TooMany
from service.live.club import Club
from service.live.permissions import may_seat_call_director
from service.live.runtime import TableRuntime
from service.store.journal import Row
from table.events import HandRead

log = logging.getLogger(__name__)

SEAT_UNIT_CALL = "called from the seat unit"      # the reason a Director key's call is journalled with


def _seat_map(seat: str, serial: str | None, table_id: str) -> Any:
    from drivers.config import SeatMap

    table_no = int(table_id) if table_id.isdigit() else 0
    if serial:
        return SeatMap({serial: seat}, table_no)

    class _AnySerial(SeatMap):            # bound by URL: whatever device answers there sits at ``seat``
        def seat_of(self, serial: str) -> str | None:
            return seat

    return _AnySerial({}, table_no)


class DeviceManager:
    def __init__(self, club: Club, settings: Settings) -> None:
        self.club = club
        self.settings = settings
        self.drivers: dict[str, list[tuple[str, Any]]] = {}        # table -> [(kind, driver)]
        self._queues: dict[str, asyncio.Queue[tuple[Any, str, Any]]] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self.pool: Any | None = None
        self.reader_seats: dict[str, set[str]] = {}                # table -> the seats with a card reader
        # a hand picked up is offered here first (service/event/reader_pickup.py): True when it took it
        self.pickup: Callable[[str, HandRead, str], Awaitable[bool]] | None = None
        # counts a seat's call for the director, or raises TooMany (the service's limits.calls.take)
        self.call_limit: Callable[[str, str | None], None] | None = None

    def start(self) -> int:
        loop = asyncio.get_running_loop()
        n = 0
        for tcfg in self.settings.tables:
            for seat, sd in tcfg.seats.items():
                for kind, url, serial in (("reader", sd.reader, sd.reader_serial), ("box", sd.box, sd.box_serial)):
                    if url:
                        self._open(loop, tcfg.id, seat, kind, url, serial)
                        n += 1
        if n:
            self.club.listeners.append(self._on_commit)
        return n

    def _open(self, loop: asyncio.AbstractEventLoop, table_id: str, seat: str, kind: str, url: str,
              serial: str | None) -> None:
        from drivers.bidding_box import BiddingBoxDriver
        from drivers.seat_reader import SeatReaderDriver

        q = self._queues.get(table_id)
        if q is None:
            q = self._queues[table_id] = asyncio.Queue()
            self._tasks.append(asyncio.create_task(self._consume(table_id, q), name=f"devices-{table_id}"))
        holder: dict[str, Any] = {}

        from drivers.loop_pool import LoopPool, loop_emitter
        emit = loop_emitter(loop, lambda event: q.put_nowait((event, kind, holder.get("driver"))))

        from drivers.pool import POOL_SESSION
        drv: SeatReaderDriver | BiddingBoxDriver
        try:
            if kind == "reader":
                drv = SeatReaderDriver(url, emit, _seat_map(seat, serial, table_id), decks=self._decks(),
                                       config=POOL_SESSION)
            else:
                drv = BiddingBoxDriver(url, emit, _seat_map(seat, serial, table_id), config=POOL_SESSION)
        except Exception as err:
            log.error("table %s seat %s: cannot create the %s driver for %s: %s", table_id, seat, kind, url, err)
            return
        holder["driver"] = drv
        if kind == "reader":
            self.reader_seats.setdefault(table_id, set()).add(seat)
        self.drivers.setdefault(table_id, []).append((kind, drv))
        self.club.add_table(table_id).devices.append(drv)
        if self.pool is None:
            self.pool = LoopPool(loop)
        self.pool.add(drv)

    def _decks(self) -> Any:
        """The club's deck registry, loaded once from ``settings.decks`` (tag UID -> card)."""
        if getattr(self, "_registry", None) is None:
            from drivers.decks import DeckRegistry
            self._registry = (DeckRegistry.load(self.settings.decks) if self.settings.decks
                              else DeckRegistry())
        return self._registry

    async def _consume(self, table_id: str, q: asyncio.Queue[tuple[Any, str, Any]]) -> None:
        while True:
            event, kind, drv = await q.get()
            name = getattr(drv, "name", "?")
            if getattr(event, "type", None) == "device" and event.code == "DIRECTOR_CALL" and event.seat:
                await self._director_call(table_id, event.seat, drv, name)
                continue
            if getattr(event, "type", None) == "device":
                self.club.hub.publish(table_id, {"type": "device", "table": table_id, **event.to_dict()})
                continue
            try:
                if self.pickup is not None and isinstance(event, HandRead) \
                        and await self.pickup(table_id, event, f"device:{name}"):
                    continue
                await self.club.submit(table_id, event, f"device:{name}", device=kind)
            except ServiceError as err:
                log.info("table %s: %s from %s refused: %s", table_id, event, name, err)
                self.club.hub.publish(table_id, {"type": "device", "table": table_id, "code": "REFUSED",
                                                 "device": name, "detail": str(err)})
                if isinstance(err, Prevented) and kind == "box" and hasattr(drv, "refuse_call"):
                    self._refuse(drv, getattr(event, "call", ""), err)
            except Exception:
                log.exception("table %s: device event %s failed", table_id, event)

    async def _director_call(self, table_id: str, seat: str, drv: Any, name: str) -> None:
        """A bidding box's Director key: the seat's call for the director, under the rules of a seat page's
        (Law 43A1a for dummy, the per-seat limit); the box's line 7 says whether it was recorded."""
        from firmware_host.constants import APPLICATION_CODES, ErrorCode
        code, text = int(ErrorCode.CALL_DIRECTOR), "DIRECTOR CALLED"
        try:
            may_seat_call_director(self.club.table(table_id), seat, self.club.calls.listing(open_only=True))
            if self.call_limit is not None:
                self.call_limit(table_id, seat)
            await self.club.call_director(table_id, seat, SEAT_UNIT_CALL, f"device:{name}", code="SEAT_UNIT")
        except ServiceError as err:
            log.info("table %s: the director call from %s refused: %s", table_id, name, err)
            self.club.hub.publish(table_id, {"type": "device", "table": table_id, "code": "REFUSED", "device": name,
                                             "seat": seat, "detail": f"Director key: {err}"})
            code, text = APPLICATION_CODES.start, ("DUMMY MAY NOT CALL" if isinstance(err, Forbidden)
                                            else "CALLED TOO OFTEN" if isinstance(err, TooMany) else "NOT CALLED")
        except Exception:
            log.exception("table %s: the director call from %s was not journalled", table_id, name)
            code, text = APPLICATION_CODES.start, "CALL NOT RECORDED"
        try:
            drv.show_error(code, text)
        except Exception as e:                  # a device that went away: the director sees the call or the refusal
            log.info("show_error failed: %s", e)

    @staticmethod
    def _refuse(drv: Any, call: str, err: Prevented) -> None:
        from firmware_host.constants import ErrorCode
        code = ErrorCode.INSUFFICIENT_BID if "INSUFFICIENT_BID" in err.codes else ErrorCode.OUT_OF_ROTATION
        try:
            drv.refuse_call(call, int(code), str(err)[:60])
        except Exception as e:                  # a device that went away: the director sees the refusal anyway
            log.info("refuse_call failed: %s", e)

    def _on_commit(self, rt: TableRuntime, row: Row, event: Any) -> None:
        if row.kind != "event" or row.body.get("type") != "board":
            return
        for kind, drv in self.drivers.get(rt.id, []):
            if kind == "reader" and hasattr(drv, "set_board"):
                drv.set_board(rt.table.deal, None)

    async def stop(self) -> None:
        for t in self._tasks:
            t.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self.pool is not None:
            try:
                self.pool.close()                 # stops pumping and closes every driver's link
            except Exception:
                log.exception("closing the device pool")
