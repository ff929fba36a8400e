"""The service configuration: pydantic models of a club's settings (read from a file by
``service/config/loading.py``, or built in code). They describe; checks that need the domain (building the
event's movements) are made where the domain is built.

A file names the tables, each seat's device URLs, the regulation (Law 80E: law edition, flag or prevent
mode per device, screens, who may choose a rectification, result release, what spectators see), the
director's token and the SQLite path. Everything has a default, so ``Settings()`` is a working club with
no tables (``--simulate N`` adds simulated ones).
"""
from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from service.errors import ConfigError

__all__ = ["ConfigError", "DeviceModes", "EventConfig", "EventSectionConfig", "LimitsConfig", "MovementConfig",
           "Regulation", "SeatDevices", "Settings", "SimulationConfig", "SpectatorPolicy", "TableConfig",
           "UploadTarget"]

TABLE_ID = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
Mode = Literal["flag", "prevent"]
EDITIONS = ("wbf1997-cba1999", "wbf2017")    # the seed, and the 2017 WBF Laws (table/editions.py)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DeviceModes(_Strict):
    """Law 80E per device kind: ``flag`` records an irregular call or card and flags it; ``prevent`` refuses
    the irregularities the device can refuse (an insufficient bid, a call or lead out of turn, a revoke)."""
    bidding_box: Mode = "flag"
    seat_reader: Mode = "flag"


class SpectatorPolicy(_Strict):
    delay_s: float = Field(default=10.0, ge=0, le=3600,
                           description="seconds between an event and its showing to spectators")
    hands: Literal["never", "released", "delayed"] = Field(
        default="released", description="hands of a board in play: never; once its result is released; or whenever the "
        "spectator view is delayed (delay_s > 0)")


class Regulation(_Strict):
    law_edition: str = "wbf1997-cba1999"
    screens: bool = False
    player_rulings: bool = True            # a player entitled to a choice may make it from his seat (Law 10C2)
    results_release: Literal["immediate", "all_tables", "director"] = "all_tables"
    modes: DeviceModes = DeviceModes()
    spectators: SpectatorPolicy = SpectatorPolicy()

    @field_validator("law_edition")
    @classmethod
    def _edition(cls, v: str) -> str:
        if v not in EDITIONS:
            raise ValueError(f"law edition {v!r} is not available (available: {', '.join(EDITIONS)})")
        return v


class SeatDevices(_Strict):
    """The devices at one seat: a URL each (``socket://``, a device path, ``sim://``, ``usb://``); the serial
    number is optional (identity comes from the handshake; without one, whatever answers on the URL is
    bound to this seat); a mode overrides the regulation's for this device."""
    reader: str | None = None
    reader_serial: str | None = None
    reader_mode: Mode | None = None
    box: str | None = None
    box_serial: str | None = None
    box_mode: Mode | None = None


class TableConfig(_Strict):
    id: str
    seats: dict[Literal["N", "E", "S", "W"], SeatDevices] = {}

    @field_validator("id", mode="before")
    @classmethod
    def _id(cls, v: Any) -> str:
        table_id = str(v)
        if not TABLE_ID.match(table_id):
            raise ValueError("a table id is 1-32 letters, digits, '-' or '_'")
        return table_id


class SimulationConfig(_Strict):
    tables: int = Field(default=0, ge=0, le=1000)
    pace_s: float = Field(default=1.5, ge=0, description="mean seconds between two actions at a simulated table")
    irregularity_rate: float = Field(default=0.35, ge=0, le=1,
                                     description="chance that a board gets a seeded irregularity")
    ruling_wait_s: float = Field(default=20.0, ge=0, description="how long robots wait for a ruling before playing on")
    seed: int = 1
    boards: int = Field(default=0, ge=0, description="boards per table, 0 for endless")


class MovementConfig(_Strict):
    """The event's movement (``service/config/event_plan.py``, ``docs/results.md``): a builder of ``results.movement``
    (``kind`` mitchell / howell / teams / round_robin with its numbers) or a table-of-rounds ``file``."""
    kind: Literal["mitchell", "howell", "teams", "round_robin"] | None = None
    file: str | None = Field(default=None, description="a table of rounds read with results.Movement.from_text")
    text: str | None = Field(default=None, description="the same table of rounds given inline (a scoring program's "
                                                       "movement, service/dataconnector/)")
    tables: int | None = Field(default=None, ge=2, le=500, description="mitchell: tables")
    pairs: int | None = Field(default=None, ge=3, le=500, description="howell: pairs")
    teams: int | None = Field(default=None, ge=2, le=200, description="round_robin: teams")
    boards: int | None = Field(default=None, ge=1, le=999, description="teams: the match's boards")
    rounds: int | None = Field(default=None, ge=1, description="mitchell: fewer rounds than the movement allows")
    boards_per_round: int = Field(default=2, ge=1, le=99)
    even: Literal["skip", "relay"] = "skip"
    arrow_switch: list[int] = []
    one_winner: bool = Field(default=False, description="mitchell: arrow-switch the last quarter of the rounds")
    absent: list[int] = []
    first_board: int = Field(default=1, ge=1)
    name: str | None = None

    @model_validator(mode="after")
    def _one(self) -> MovementConfig:
        if [self.kind, self.file, self.text].count(None) != 2:
            raise ValueError("a movement is one of a kind (mitchell, howell, teams, round_robin), a file or a text, "
                             "not both")
        return self


class EventSectionConfig(_Strict):
    id: str = Field(default="A", pattern=r"^[A-Za-z0-9_-]{1,8}$")
    movement: MovementConfig
    tables: dict[str, int] = Field(default={}, description="service table id -> movement table number (default: "
                                                   "'<id>1' is table 1 ...)")
    entrants: dict[int, list[str] | str] = Field(default={},
                                                 description="entrant number -> player names, or a team name")


class EventConfig(_Strict):
    """The event the service scores and shows on /results (``service/event/tournament.py``). One section (``movement``,
    ``tables``, ``entrants`` here; table ``"1"`` is movement table 1 by default) or ``sections``."""
    name: str = "Club session"
    scoring: Literal["MP", "XIMP", "BUTLER", "TP", "IMP"] = "MP"
    movement: MovementConfig | None = None
    tables: dict[str, int] = {}
    entrants: dict[int, list[str] | str] = {}
    sections: list[EventSectionConfig] = []
    date: str | None = None
    site: str | None = None
    vp: bool = Field(default=False, description="teams: rank by WBF victory points")
    law_edition: str | None = Field(default=None, description="the event's law edition (wbf1997-cba1999 or wbf2017) "
                                    "for the boards its tables start; default: the regulation's")

    @field_validator("law_edition")
    @classmethod
    def _edition(cls, v: str | None) -> str | None:
        if v is not None and v not in EDITIONS:
            raise ValueError(f"law edition {v!r} is not available (available: {', '.join(EDITIONS)})")
        return v

    @model_validator(mode="after")
    def _checked(self) -> EventConfig:
        if (self.movement is None) == (not self.sections):
            raise ValueError("an event has a movement (one section) or sections, not both")
        if self.sections and (self.tables or self.entrants):
            raise ValueError("with sections, tables and entrants go in each section")
        return self


class UploadTarget(_Strict):
    """One live-upload target (``service/outbox/delivery.py``, ``docs/upload.md``): a signed JSON webhook, or a
    BBO-style LIN feed POSTed to a URL or written as ``<table>-<board>.lin`` files into a directory."""
    name: str = Field(..., pattern=r"^[A-Za-z0-9_-]{1,32}$")
    kind: Literal["webhook", "lin"]
    url: str | None = Field(default=None, pattern=r"^https?://", description="where to POST")
    directory: str | None = Field(default=None, description="lin only: write files here instead of POSTing")
    secret: str | None = Field(default=None, min_length=16, description="HMAC-SHA256 key of the signature header")
    timeout_s: float = Field(default=10.0, gt=0, le=300)
    max_attempts: int = Field(default=0, ge=0, description="give up after this many failed attempts; 0 = never")
    backoff_base_s: float = Field(default=1.0, gt=0, le=3600)
    backoff_cap_s: float = Field(default=300.0, gt=0, le=86400)
    max_in_flight: int = Field(default=4, ge=1, le=64)
    only_released: bool | None = Field(default=None, description="hold a board until its result is released "
                                          "(Laws 16B, 90B4); default true for lin, false for webhook")

    @model_validator(mode="after")
    def _complete(self) -> UploadTarget:
        if self.kind == "webhook" and (not self.url or not self.secret):
            raise ValueError(f"upload {self.name!r}: a webhook needs a url and a secret (it signs every payload)")
        if self.kind == "webhook" and self.directory:
            raise ValueError(f"upload {self.name!r}: a webhook POSTs to its url; directory is for lin feeds")
        if self.kind == "lin" and bool(self.url) == bool(self.directory):
            raise ValueError(f"upload {self.name!r}: a lin feed needs either a url or a directory")
        if self.only_released is None:
            self.only_released = self.kind == "lin"
        return self


class LimitsConfig(_Strict):
    """How much one client, and all of them, may hold or do (``docs/security.md``, "Limits")."""
    header_timeout_s: float = Field(default=10.0, gt=0, le=300, description="a connection that has not sent a "
                                    "whole request (request line, headers, body) within this is closed")
    connections: int = Field(default=0, ge=0, description="open connections in total; 0: the open-file limit less "
                             "headroom for the journal, devices and one accept burst")
    connections_per_address: int = Field(default=64, ge=1, description="open connections from one client address "
                                         "(behind a reverse proxy every client has the proxy's: raise it)")
    listen_backlog: int = Field(default=1024, ge=16, le=65535, description="connections the system holds until "
                                "the service accepts them (a burst waits instead of being dropped; at most the "
                                "system's net.core.somaxconn)")
    accept_batch: int = Field(default=128, ge=16, le=4096, description="connections accepted in one go before any "
                              "is counted: part of the headroom below the open-file limit")
    spectator_streams: int = Field(default=500, ge=1, description="anonymous WebSocket streams in total")
    spectator_streams_per_address: int = Field(default=16, ge=1, description="anonymous WebSocket streams from "
                                               "one client address")
    director_calls_per_seat: int = Field(default=3, ge=1, description="calls for the director one seat may make "
                                         "within call_window_s")
    director_calls_per_table: int = Field(default=6, ge=1, description="calls for the director one table's seats "
                                          "may make within call_window_s")
    call_window_s: float = Field(default=60.0, gt=0, le=3600)
    card_redemptions: int = Field(default=12, ge=1, description="sign-ins with one table card within "
                                  "card_window_s; beyond them the director is alerted once and they are refused")
    card_window_s: float = Field(default=600.0, gt=0, le=86400)
    refusal_log_s: float = Field(default=60.0, gt=0, le=3600, description="refusals are logged as one line per "
                                 "client and reason per this many seconds, with a count")


class DataConnectorConfig(_Strict):
    """The scoring program's Data Connector endpoint (``service/dataconnector/``): its credentials and port."""
    club_id: str = Field(..., min_length=1, max_length=64, description="the club id the scoring program sends")
    licence_key: str = Field(..., min_length=1, max_length=128,
                             description="the licence key the scoring program sends")
    port: int = Field(default=5079, ge=0, le=65535, description="the Data Connector's port (the protocol's 5079)")
    host: str | None = Field(default=None, description="address to listen on (default: the service's)")
    table_kind: Literal["played", "scoring"] = Field(
        default="scoring", description="the kind of the tables InitializeEvent sets up: played (cards and readers) "
                                      "or scoring (Bridgemate-style: the result keyed at the table)")


class Settings(_Strict):
    database: str = "bridgetable.db"
    synchronous: Literal["FULL", "NORMAL"] = "FULL"
    director_token: str | None = Field(default=None, min_length=8)
    secret: str | None = Field(default=None, min_length=16,
                               description="signs seat tokens; kept in the database if absent")
    max_body_bytes: int = Field(default=1_000_000, ge=1024, le=100_000_000,
                                description="a request body longer than this is refused (413)")
    analysis_nice: int = Field(default=19, ge=0, le=19,
                               description="the double-dummy solver's nice value (Linux): 19 gives every core to the "
                                           "tables first; lower it on a machine kept busy by other work, where the "
                                           "solver at 19 may wait minutes for the hand-record sheets")
    freeze_heap: bool = Field(default=True,
                              description="after start-up, one full garbage collection and gc.freeze(): what start-up "
                                          "built is kept out of the cyclic collector's later walks; off where the "
                                          "service shares its process (a test suite's ServiceThread)")
    regulation: Regulation = Regulation()
    tables: list[TableConfig] = []
    simulation: SimulationConfig = SimulationConfig()
    public_url: str | None = None
    event: EventConfig | None = Field(default=None, description="the event scored live on /results (docs/results.md)")
    decks: str | None = Field(default=None, description="the club's learned decks (JSON written by drivers.decks); "
                                                   "without it every tag a seat reader sees is unknown")
    uploads: list[UploadTarget] = Field(default=[], description="live-upload targets (docs/upload.md)")
    limits: LimitsConfig = LimitsConfig()
    dataconnector: DataConnectorConfig | None = Field(default=None, description="the scoring program's Data Connector "
                                                      "endpoint (docs/data-connector.md); off without it")

    @field_validator("tables")
    @classmethod
    def _unique(cls, v: list[TableConfig]) -> list[TableConfig]:
        ids = [t.id for t in v]
        if len(set(ids)) != len(ids):
            raise ValueError("table ids must be unique")
        return v

    @field_validator("uploads")
    @classmethod
    def _unique_uploads(cls, v: list[UploadTarget]) -> list[UploadTarget]:
        names = [u.name for u in v]
        if len(set(names)) != len(names):
            raise ValueError("upload target names must be unique")
        return v

