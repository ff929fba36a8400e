"""``create_app(settings)``: the FastAPI application and the composition root. Its lifespan opens the journal,
rebuilds every table from it, builds the event, opens the outbox and the configured devices, starts the simulated
tables (the parts the routers receive: ``service/wiring/container.py``), and undoes all of that at shutdown. Every
``ServiceError`` is answered by one handler (``service/web/http_errors.py``)."""
from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from fastapi.staticfiles import StaticFiles

from service.api.board_start import router as board_start_router
from service.api.boards import router as board_control_router
from service.api.cards import router as cards_router
from service.api.credentials import router as credentials_router
from service.api.dealing import router as dealing_router
from service.api.event import router as tournament_router
from service.api.event_console import router as event_router
from service.api.exports import router as exports_router
from service.api.hand_records import router as hand_records_router
from service.api.language import journalled_language
from service.api.language import router as language_router
from service.api.lead_check import router as lead_check_router
from service.api.tables import router as api_router
from service.api.terminal import router as terminal_router
from service.api.ws import router as ws_router
from service.config.event_plan import default_event_config
from service.config.loading import check_settings
from service.config.settings import Settings
from service.dataconnector.connector import DataConnector
from service.errors import ServiceError
from service.event.analyses import Analyses
from service.event.board_rule import ClubBoardRule
from service.event.dealing_machine import DealingDesk
from service.event.hand_records import HandRecords
from service.event.lead_check import LeadCheck
from service.event.public_screen import PublicScreen
from service.event.reader_pickup import ReaderPickups
from service.live.auth import Tokens
from service.live.club import Club
from service.live.devices import DeviceManager
from service.live.hub import Hub
from service.outbox.delivery import Outbox
from service.sim.simulate import SimulatedClub
from service.store.journal import CLUB, Journal
from service.web.credential_transport import WebSocketCredentials, redact_server_logs
from service.web.hardening import RequestGuard
from service.web.http_errors import service_error_handler
from service.web.pages import STATIC
from service.web.pages import router as pages_router
from service.web.validation_errors import validation_error_handler
from service.wiring.container import Service
from service.wiring.demonstration import deal_the_demonstration, hand_record_deal
from service.wiring.event_install import config_of, install, journalled_event, members_of

log = logging.getLogger(__name__)


def _tokens(settings: Settings, journal: Journal) -> Tokens:
    director = settings.director_token or journal.meta("director_token")
    if director is None:
        director = Tokens.generate()
        journal.set_meta("director_token", director)
    secret = settings.secret or journal.meta("secret")
    if secret is None:
        secret = Tokens.generate()
        journal.set_meta("secret", secret)
    session = journal.meta("session")            # a new database is a new session: new seat credentials
    if session is None:
        session = Tokens.generate()
        journal.set_meta("session", session)
    tokens = Tokens(director, secret, session)
    for row in journal.rows(CLUB):               # revocations, used links, the rounds' marks survive a restart
        tokens.note_row(row)
    return tokens


def simulated_ids(settings: Settings) -> list[str]:
    taken = {t.id for t in settings.tables}
    out: list[str] = []
    i = 1
    while len(out) < settings.simulation.tables:
        if str(i) not in taken:
            out.append(str(i))
        i += 1
    return out


def _scoring_program_lead(svc: Service, table_id: str) -> str | None:
    """The scoring program's lead-card setting for the table's section (Data Connector), until the director sets
    the lead check himself; "enter" keys the lead without a check."""
    dc, ev = svc.dataconnector, svc.tournament
    if dc is None or ev is None or table_id not in ev.where:
        return None
    mode = str(dc.lead_card_entry(ev.where[table_id][0].id))
    return None if mode == "enter" else mode


def journal_stopped(hub: Hub, reason: str) -> None:
    """Tell the director at once that nothing is stored any more (``/api/health`` says so too)."""
    hub.publish(CLUB, {"type": "journal_failed", "detail": f"the journal has stopped: {reason}. Nothing is "
                       "stored or acknowledged until the service is restarted."}, roles=("director",))


def create_app(settings: Settings | None = None,
               on_ready: Callable[[dict[str, Any]], None] | None = None) -> FastAPI:
    settings = check_settings(settings or Settings())

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        journal = Journal(settings.database, settings.synchronous)
        hub = Hub()
        club = Club(settings, journal, hub)
        rows = club.load()
        svc = Service(settings, journal, _tokens(settings, journal), hub, club)
        club.club_listeners.append(svc.tokens.note_row)          # the credentials follow every club row
        svc.language = journalled_language(journal.rows(CLUB))
        event_row, event_rows = journalled_event(journal.rows(CLUB))   # the console's event wins
        event_cfg = config_of(event_row) if event_row is not None else None
        svc.members = members_of(journal.rows(CLUB))
        if event_cfg is None:
            event_row, event_rows = None, list(journal.rows(CLUB))
            event_cfg = settings.event or default_event_config(simulated_ids(settings))
        if event_cfg is not None:                   # before journal.start(): it reads the journalled rounds
            install(svc, event_cfg, event_row.at if event_row is not None else None, event_rows)
        svc.rule = hub.rule = ClubBoardRule(club, svc.tournament).load(journal.rows(CLUB))
        svc.hand_records = HandRecords(club, lambda: svc.tournament).load(journal.rows(CLUB))
        svc.analyses = analyses = Analyses(settings.analysis_nice)
        svc.screen = PublicScreen(club, lambda: svc.rule, lambda: svc.tournament, svc.hand_records, analyses)
        svc.dealing = DealingDesk(club, hub, svc.hand_records, settings).load(journal.rows(CLUB))
        if settings.dataconnector is not None:      # its queues rebuilt; its port: bridgetable serve
            svc.dataconnector = DataConnector(svc).load(journal.rows(CLUB))
        svc.lead_check = LeadCheck(club, lambda: svc.hand_records, lambda t: _scoring_program_lead(svc, t)) \
            .load(journal.rows(CLUB))
        redact_server_logs()                        # uvicorn has configured its loggers by now
        loop = asyncio.get_running_loop()
        journal.start(on_failure=lambda reason: loop.call_soon_threadsafe(journal_stopped, hub, reason))
        club.start()
        app.state.service = svc
        # every deal of the hand records analysed ahead of time, now and whenever a set is put (a deal a table
        # read without a set: when the public screen or the sheets first ask): nobody waits for the solver
        hand_records = svc.hand_records

        def analyse_hand_records() -> None:
            analyses.warm((r.board, r.deal, r.dealer, r.vulnerable) for r in hand_records.all())

        hand_records.on_change.append(analyse_hand_records)
        analyse_hand_records()
        if settings.uploads:                        # before devices and robots: it must see every new row
            svc.uploads = Outbox(club, settings.database, settings.uploads)
            await svc.uploads.start()
        svc.devices = DeviceManager(club, settings)
        svc.devices.call_limit = svc.limits.calls.take      # a Director key floods no more than a seat page
        n_devices = svc.devices.start()
        if svc.devices.reader_seats:                # reader tables start their boards from the hands picked up
            svc.pickups = ReaderPickups(club, svc.devices, lambda: svc.tournament, svc.hand_records)
        # a director's event: the robots have left; with the Data Connector on they play only its event (it starts them)
        if settings.simulation.tables and event_row is None and svc.dataconnector is None:
            await deal_the_demonstration(svc)      # its boards are a hand-record set the console shows
            svc.simulation = SimulatedClub(club, settings.simulation, simulated_ids(settings),
                                           next_board=svc.tournament.next_board if svc.tournament else None,
                                           hand_record=hand_record_deal(svc))
            svc.simulation.start()
        svc.info = {"director_token": svc.tokens.director_token, "database": settings.database,
                    "journal_rows": rows, "tables": sorted(club.tables), "devices": n_devices}
        log.info("service ready: %d tables, %d journal rows replayed, %d devices", len(club.tables), rows, n_devices)
        # What start-up built (tables replayed from the journal, drivers, the libraries) lives as long as the
        # service: out of the cyclic collector's sight, a full collection no longer walks it while device frames
        # wait (one took 85 ms in bench/device_latency.py; docs/PERFORMANCE.md).
        if settings.freeze_heap:
            gc.collect()
            gc.freeze()
        if on_ready is not None:
            on_ready(svc.info)
        try:
            yield
        finally:
            if svc.dealing is not None:
                await svc.dealing.close()
            if svc.simulation is not None:
                await svc.simulation.stop()
            if svc.devices is not None:
                await svc.devices.stop()
            if svc.uploads is not None:
                await svc.uploads.stop()
            if svc.screen is not None:
                svc.screen.close()
            journal.close()
            club.close()
            gc.unfreeze()                           # a later app in this process starts from a clean slate

    app = FastAPI(title="bridgetable", version="0.1.0", lifespan=lifespan, docs_url=None, redoc_url=None,
                  description="Electronic bridge tables: the law engine's tables, the journal, the director "
                              "console and live views. Credentials: `Authorization: Bearer <token>` (the "
                              "director's, or a seat's from `POST /api/signin`); a WebSocket offers the "
                              "subprotocols `bridgetable, bearer.<token>` (docs/security.md).")

    app.add_exception_handler(ServiceError, service_error_handler)
    app.add_exception_handler(RequestValidationError, validation_error_handler)
    app.add_middleware(WebSocketCredentials)
    app.add_middleware(RequestGuard, max_body=settings.max_body_bytes)
    app.include_router(api_router)
    app.include_router(credentials_router)
    app.include_router(tournament_router)
    app.include_router(cards_router)
    app.include_router(language_router)
    app.include_router(exports_router)
    app.include_router(board_control_router)
    app.include_router(event_router)
    app.include_router(terminal_router)
    app.include_router(hand_records_router)
    app.include_router(dealing_router)
    app.include_router(board_start_router)
    app.include_router(lead_check_router)
    app.include_router(ws_router)
    app.include_router(pages_router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app
