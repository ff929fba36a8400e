"""The five queues the scoring program polls: results, player data, participations, hand records and TD calls.

An item is a journalled club row ``dc_queue`` (its journal id is the item's id, so ids rise in the order the
items were made and survive a restart); accepting is a club row ``dc_accept`` with the last id the scoring
program took. "New" is every item after the accepted id; "all" is every item of the session.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from service.store.journal import Row

from .wire import Command, DataType

QUEUES = ("results", "player_data", "participations", "handrecords", "td_calls")
DATA_TYPE = {"results": DataType.RESULTS, "player_data": DataType.PLAYER_DATA,
             "participations": DataType.PARTICIPATIONS, "handrecords": DataType.HANDRECORDS,
             "td_calls": DataType.TD_CALLS}
POLL_NEW = {Command.POLL_NEW_RESULTS: "results", Command.POLL_NEW_PLAYER_DATA: "player_data",
            Command.POLL_NEW_PARTICIPATIONS: "participations", Command.POLL_NEW_HANDRECORDS: "handrecords",
            Command.POLL_NEW_TD_CALLS: "td_calls"}
POLL_ALL = {Command.POLL_ALL_RESULTS: "results", Command.POLL_ALL_PLAYER_DATA: "player_data",
            Command.POLL_ALL_PARTICIPATIONS: "participations", Command.POLL_ALL_HANDRECORDS: "handrecords",
            Command.POLL_ALL_TD_CALLS: "td_calls"}
ACCEPT = {Command.ACCEPT_RESULTS: "results", Command.ACCEPT_PLAYER_DATA: "player_data",
          Command.ACCEPT_PARTICIPATIONS: "participations", Command.ACCEPT_HANDRECORDS: "handrecords",
          Command.ACCEPT_TD_CALLS: "td_calls"}


@dataclass
class Queue:
    items: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    accepted: int = 0

    def new(self) -> list[tuple[int, dict[str, Any]]]:
        return [(i, item) for i, item in self.items if i > self.accepted]


class Queues:
    """The session's queues as the journal holds them (``apply_row`` for each ``dc_queue``/``dc_accept``)."""

    def __init__(self) -> None:
        self.session = ""
        self.queues = {name: Queue() for name in QUEUES}
        self.keys: dict[str, dict[str, Any]] = {}     # an item's key (table and board ...) -> its latest content

    def reset(self, session: str) -> None:
        self.session = session
        self.queues = {name: Queue() for name in QUEUES}
        self.keys = {}

    def apply_row(self, row: Row) -> None:
        body = row.body
        if body.get("session") != self.session or row.id is None:
            return
        if row.kind == "dc_queue":
            self.queues[str(body["queue"])].items.append((row.id, body["item"]))
            if body.get("key"):
                self.keys[str(body["key"])] = body["item"]
        elif row.kind == "dc_accept":
            q = self.queues[str(body["queue"])]
            q.accepted = max(q.accepted, int(body["upto"]))
