"""The running service's parts, as ``create_app`` (``service/app.py``) assembles them at start-up and the
routers receive them (``deps.service``)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .auth import Tokens
from .board_rule import ClubBoardRule
from .club import Club
from .devices import DeviceManager
from .hand_records import HandRecords
from .hub import Hub
from .journal import Journal
from .outbox import Outbox
from .public_screen import PublicScreen
from .settings import Settings
from .simulate import SimulatedClub
from .tournament import LiveTournament


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
    tournament: LiveTournament | None = None      # the event scored live on /results (service/tournament.py)
    rule: ClubBoardRule | None = None             # who sees which board (service/board_rule.py)
    screen: PublicScreen | None = None            # the public screen's view and push (service/public_screen.py)
    members: dict[str, str] = field(default_factory=dict)   # the imported member list: number -> name
    info: dict[str, Any] = field(default_factory=dict)
    language: str | None = None                   # the club's default page language (service/language_api.py)
    hand_records: HandRecords | None = None       # the event's hand records (service/hand_records.py)
    dataconnector: Any = None                     # the scoring program's endpoint (service/dataconnector/)
