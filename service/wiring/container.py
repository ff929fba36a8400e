"""The running service's parts, as ``create_app`` (``service/app.py``) assembles them at start-up and the
routers receive them (``deps.service``)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from service.config.settings import Settings
from service.event.analyses import Analyses
from service.event.board_rule import ClubBoardRule
from service.event.dealing_machine import DealingDesk
from service.event.hand_records import HandRecords
from service.event.lead_check import LeadCheck
from service.event.public_screen import PublicScreen
from service.event.reader_pickup import ReaderPickups
from service.event.tournament import LiveTournament
from service.live.auth import Tokens
from service.live.club import Club
from service.live.devices import DeviceManager
from service.live.hub import Hub
from service.live.limits import Limits
from service.outbox.delivery import Outbox
from service.sim.simulate import SimulatedClub
from service.store.journal import Journal


@dataclass
class Service:
    settings: Settings
    journal: Journal
    tokens: Tokens
    hub: Hub
    club: Club
    devices: DeviceManager | None = None
    simulation: SimulatedClub | None = None
    uploads: Outbox | None = None                 # the live-upload outbox, when targets are configured
    tournament: LiveTournament | None = None      # the event scored live on /results (service/event/tournament.py)
    rule: ClubBoardRule | None = None             # who sees which board (service/event/board_rule.py)
    screen: PublicScreen | None = None            # the public screen's view and push (service/event/public_screen.py)
    members: dict[str, str] = field(default_factory=dict)   # the imported member list: number -> name
    info: dict[str, Any] = field(default_factory=dict)
    limits: Limits = field(init=False)            # what one client may hold or do (service/live/limits.py)
    language: str | None = None                   # the club's default page language (service/api/language.py)
    analyses: Analyses | None = None              # double-dummy, ahead of time (service/event/analyses.py)
    hand_records: HandRecords | None = None       # the event's hand records (service/event/hand_records.py)
    lead_check: LeadCheck | None = None           # the lead keyed at scoring-only tables (service/event/lead_check.py)
    pickups: ReaderPickups | None = None          # boards started from hands read (service/event/reader_pickup.py)
    dataconnector: Any = None                     # the scoring program's endpoint (service/dataconnector/)
    dealing: DealingDesk | None = None            # the console's dealing machine (event/dealing_machine.py)

    def __post_init__(self) -> None:
        self.limits = Limits(self.settings.limits, lambda table, alert: self.hub.publish(table, alert, ("director",)))
