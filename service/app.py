"""``create_app(settings)``: the FastAPI application. Its lifespan opens the journal, rebuilds every table
from it, opens the configured devices, starts the simulated tables, and undoes all of that at shutdown."""
from __future__ import annotations

import gc
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles

from . import api, pages, ws
from . import event as live_event
from .auth import AuthError, Tokens
from .club import Club, Rejected
from .devices import DeviceManager
from .hub import Hub
from .journal import Journal
from .outbox import Outbox
from .pages import STATIC
from .settings import Settings
from .simulate import SimulatedClub

log = logging.getLogger(__name__)


@dataclass
class Service:
    settings: Settings
    journal: Journal
    tokens: Tokens
    hub: Hub
    club: Club
    devices: DeviceManager | None = None
    simulation: SimulatedClub | None = None
    uploads: Outbox | None = None               # the live-upload outbox, when targets are configured
    event: live_event.LiveEvent | None = None   # the event scored live on /results (service/event.py)
    info: dict[str, Any] = field(default_factory=dict)


def _tokens(settings: Settings, journal: Journal) -> Tokens:
    director = settings.director_token or journal.meta("director_token")
    if director is None:
        director = Tokens.generate()
        journal.set_meta("director_token", director)
    secret = settings.secret or journal.meta("secret")
    if secret is None:
        secret = Tokens.generate()
        journal.set_meta("secret", secret)
    return Tokens(director, secret)


def simulated_ids(settings: Settings) -> list[str]:
    taken = {t.id for t in settings.tables}
    out: list[str] = []
    i = 1
    while len(out) < settings.simulation.tables:
        if str(i) not in taken:
            out.append(str(i))
        i += 1
    return out


def create_app(settings: Settings | None = None,
               on_ready: Callable[[dict[str, Any]], None] | None = None) -> FastAPI:
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        journal = Journal(settings.database, settings.synchronous)
        hub = Hub()
        club = Club(settings, journal, hub)
        rows = club.load()
        svc = Service(settings, journal, _tokens(settings, journal), hub, club)
        event_cfg = settings.event or live_event.default_event_config(simulated_ids(settings))
        if event_cfg is not None:                   # before journal.start(): it reads the journalled rounds
            svc.event = live_event.LiveEvent(event_cfg, club)
            svc.event.attach(journal.rows(live_event.CLUB))
        journal.start()
        club.start()
        app.state.service = svc
        if settings.uploads:                        # before devices and robots: it must see every new row
            svc.uploads = Outbox(club, settings.database, settings.uploads)
            await svc.uploads.start()
        svc.devices = DeviceManager(club, settings)
        n_devices = svc.devices.start()
        if settings.simulation.tables:
            svc.simulation = SimulatedClub(club, settings.simulation, simulated_ids(settings),
                                           next_board=svc.event.next_board if svc.event is not None else None)
            svc.simulation.start()
        svc.info = {"director_token": svc.tokens.director_token, "database": settings.database,
                    "journal_rows": rows, "tables": sorted(club.tables), "devices": n_devices}
        log.info("service ready: %d tables, %d journal rows replayed, %d devices", len(club.tables), rows, n_devices)
        # What start-up built (tables replayed from the journal, drivers, the libraries) lives as long as the
        # service: out of the cyclic collector's sight, a full collection no longer walks it while device frames
        # wait (one took 85 ms in bench/device_latency.py; docs/PERFORMANCE.md).
        gc.collect()
        gc.freeze()
        if on_ready is not None:
            on_ready(svc.info)
        try:
            yield
        finally:
            if svc.simulation is not None:
                await svc.simulation.stop()
            if svc.devices is not None:
                await svc.devices.stop()
            if svc.uploads is not None:
                await svc.uploads.stop()
            journal.close()
            club.close()
            gc.unfreeze()                           # a later app in this process starts from a clean slate

    app = FastAPI(title="bridgetable", version="0.1.0", lifespan=lifespan,
                  description="Electronic bridge tables: the law engine's tables, the journal, the director "
                              "console and live views. Tokens: `Authorization: Bearer <token>` or `?token=`.")

    @app.exception_handler(Rejected)
    async def _rejected(request: Request, err: Rejected) -> JSONResponse:
        return JSONResponse({"detail": str(err), **err.extra}, status_code=err.status)

    @app.exception_handler(AuthError)
    async def _auth(request: Request, err: AuthError) -> JSONResponse:
        return JSONResponse({"detail": str(err)}, status_code=err.status)

    app.include_router(api.router)
    app.include_router(live_event.router)
    app.include_router(ws.router)
    app.include_router(pages.router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app
