"""Putting an event in place, at start-up or when the director sets one up from the console: the
``LiveTournament`` (``service/event/tournament.py``) is built, the previous one stops following the club, and every part
that asks the event (the club's release rule, the seat tokens' round, the board rule, the simulated tables) is
pointed at the new one, so they never disagree.

The journal decides which event runs: the latest ``event`` club row (``POST /api/event``) wins over the settings'
``[event]``; only the club rows after it (rounds, clock, names) are its own.
"""
from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from pydantic import ValidationError

from service.config.settings import EventConfig
from service.event.tournament import LiveTournament
from service.store.journal import CLUB, Row
from service.wiring.container import Service

log = logging.getLogger(__name__)


def journalled_event(rows: Iterable[Row]) -> tuple[Row | None, list[Row]]:
    """The latest journalled event row (or None) and the club rows after it (all of them without one)."""
    club = [r for r in rows if r.table_id == CLUB]
    last = next((r for r in reversed(club) if r.kind == "event"), None)
    return last, [r for r in club if last is None or r.seq > last.seq]


def members_of(rows: Iterable[Row]) -> dict[str, str]:
    """The latest imported member list (club rows ``members``)."""
    out: dict[str, str] = {}
    for r in rows:
        if r.table_id == CLUB and r.kind == "members":
            out = {str(k): str(v) for k, v in r.body.get("members", {}).items()}
    return out


def config_of(row: Row) -> EventConfig | None:
    try:
        return EventConfig.model_validate(row.body["config"])
    except (KeyError, ValidationError) as err:
        log.error("the journalled event (club row %d) cannot be read: %s", row.seq, err)
        return None


def install(svc: Service, cfg: EventConfig, since: str | None, club_rows: Iterable[Row] = ()) -> LiveTournament:
    """Run ``cfg`` (planned already: ``build_session`` raises before anything changes) in place of the
    current event."""
    old = svc.tournament
    ev = LiveTournament(cfg, svc.club, since)
    if old is not None:
        old.detach()
    ev.attach(club_rows)
    svc.tournament = ev
    svc.tokens.round_of = lambda table: ev.rounds.get(table, 0)
    if svc.rule is not None:
        svc.rule.set_event(ev)
    if svc.simulation is not None:
        svc.simulation.next_board = ev.next_board
    return ev


def publish_tables(svc: Service, table_ids: Iterable[str]) -> None:
    """Show the event's tables (new ones too) to the console and the seats at once."""
    for tid in table_ids:
        rt = svc.club.tables.get(tid)
        if rt is not None:
            svc.hub.publish_state(rt, ("director", "seat"))


def event_body(cfg: EventConfig) -> dict[str, Any]:
    """The journalled form of an event set up from the console."""
    return {"config": cfg.model_dump(mode="json")}
