"""One table as the service holds it: the law engine's ``Table`` plus the boards it has played.

``TableRuntime`` applies journal rows (at start-up, and after each acknowledged event) and tries new events
on the live ``Table``. When an event cannot apply (``TableError``), the engine fails, a device in prevent
mode refuses the event, or the journal cannot store it, the table is rebuilt from the rows of its current
board: the engine resets at each board event, so those rows are the whole state, and nothing of the
refused event remains.
"""
from __future__ import annotations

import logging
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any

from service.config.settings import Regulation
from service.store.journal import Row
from table.board import dealer_for, vulnerability_for
from table.events import BoardStarted, RulingGiven, TableEvent, event_from_dict
from table.irregularity import Irregularity
from table.machine import Table, TableError
from table.texts import Text

log = logging.getLogger(__name__)


def summarize(table: Table) -> dict[str, Any]:
    """The result of the board on ``table`` as it stands."""
    c = table.contract
    return {"contract": "PASS" if table.passed_out else (str(c) if c else None),
            "declarer": (c.declarer if c else None), "tricks": table.tricks, "score_ns": table.score_ns,
            "status": table.status, "complete": table.state == "board_complete"}


@dataclass
class BoardRecord:
    number: int
    deal: str | None
    dealer: str
    vulnerable: str
    rows: list[Row] = field(default_factory=list)
    result: dict[str, Any] | None = None          # frozen when the next board starts
    adjustment: dict[str, Any] | None = None       # Law 12
    irregularities: list[dict[str, Any]] = field(default_factory=list)
    started_at: str = ""
    not_played: bool = False                       # never dealt here: the director's artificial score stands
    keyed_by: str | None = None                    # the actor who keyed the result (a scoring-only table)
    confirmation: dict[str, Any] | None = None     # the opponents' answer to the result (the last one)

    @property
    def awaiting_confirmation(self) -> bool:
        """A keyed result counts only once the opponents accepted it (``docs/service.md``)."""
        return self.keyed_by is not None and not (self.confirmation or {}).get("accept")


def confirming_side(rec: BoardRecord, declarer: str | None) -> str:
    """The side that answers a board's result: the side that did not key it (a scoring-only table's terminal),
    else the declarer's opponents; East-West on a passed-out board."""
    if rec.keyed_by and rec.keyed_by.startswith("seat:"):
        return "EW" if rec.keyed_by.rsplit(":", 1)[-1] in ("N", "S") else "NS"
    return "NS" if declarer in ("E", "W") else "EW"


class TableRuntime:
    def __init__(self, table_id: str, regulation: Regulation) -> None:
        self.id = table_id
        self.regulation = regulation
        self.kind = "played"                            # or "scoring": real cards, the result keyed at the table
        self.table = Table(name=table_id, laws=regulation.law_edition)
        self.seq = 0
        self.current: BoardRecord | None = None
        self.boards: dict[int, BoardRecord] = {}
        self.updated_at: str | None = None
        self.released: AbstractSet[int] = frozenset()  # board numbers whose results are public
        self.embargoed: AbstractSet[int] = frozenset()  # boards another table still has to play (vugraph hands)
        self.devices: list[Any] = []                   # drivers at this table (health for the director)
        self.replay_errors: list[str] = []
        # why the table's next board is held before its first call (the reader tables' pickup,
        # service/event/reader_pickup.py), in words; calls and cards are refused meanwhile (Club.submit)
        self.held: str | None = None
        # irregularities already ruled on that stay open while the table complies (a refused insufficient bid
        # waits for the replacement call, 27B; a cancelled bid out of rotation for RHO's call, 31A): they
        # no longer wait for a choice. Object ids of the live engine's irregularities -> the option chosen;
        # reset with the engine.
        self.ruled: dict[int, str] = {}
        # The current board's result as of the last journalled row, once that row completed it. The live
        # ``table`` runs ahead of the journal while an event awaits its write (``Club._submit``); readers
        # outside the table's lock (the results page, the release rule) must not count a board complete,
        # nor read its score, before the row that completed it is durable.
        self._committed_result: dict[str, Any] | None = None

    # ------------------------------------------------------------------ queries
    @property
    def board_number(self) -> int | None:
        return self.current.number if self.current else None

    def completed(self, number: int) -> bool:
        """Board ``number`` is over at this table as the journal stands: played to the end, or left for
        the next board."""
        rec = self.boards.get(number)
        return rec is not None and not rec.awaiting_confirmation \
            and (rec is not self.current or self._committed_result is not None)

    def finished(self, number: int) -> bool:
        """Board ``number`` was played to the end here with a result (a keyed one accepted by the opponents):
        a board merely left for the next one (replaced) is not finished (``service/live/obligations.py``)."""
        rec = self.boards.get(number)
        if rec is None or rec.not_played or rec.awaiting_confirmation:
            return False
        if rec is self.current:
            return self._committed_result is not None
        return bool(rec.result and rec.result.get("complete"))

    def result(self, number: int) -> dict[str, Any] | None:
        rec = self.boards.get(number)
        if rec is None:
            return None
        if rec is self.current:
            return self._committed_result or summarize(self.table)
        return rec.result

    def awaits_choice(self, irr: Irregularity) -> bool:
        """An open irregularity whose rectification nobody has chosen yet."""
        return irr.open and bool(irr.options) and id(irr) not in self.ruled

    def ruling_for(self, irr: Irregularity) -> str | None:
        """The option chosen for an irregularity still open while the table complies with it."""
        return self.ruled.get(id(irr)) if irr.open else None

    # ------------------------------------------------------------------ applying
    def _apply(self, event: TableEvent) -> list[Irregularity]:
        if isinstance(event, BoardStarted):
            self.ruled.clear()
        target, option = None, ""
        if isinstance(event, RulingGiven):
            option = event.option
            target = next((i for i in reversed(self.table.irregularities) if i.code == event.code and i.open), None)
            if target is not None and id(target) in self.ruled and event.code not in ("REVOKE", "REVOKE_TRICK12"):
                raise TableError(Text("refusal.already_ruled", "{code} has already been ruled on; the table now "
                                      "complies with that ruling", code=event.code))
        flagged = self.table.apply(event)
        if target is not None and target.open:
            self.ruled[id(target)] = option
        return flagged

    def try_event(self, event: TableEvent) -> list[Irregularity]:
        """Apply a new event to the live table. On any failure the table is rebuilt and the error re-raised."""
        if isinstance(event, BoardStarted) and self.current is not None:
            self._freeze_current()
        try:
            return self._apply(event)
        except Exception:
            self.rebuild()
            raise

    def commit(self, row: Row, event: TableEvent | None = None) -> None:
        """Record a row that is now in the journal (its event already applied by ``try_event``)."""
        self.seq = row.seq
        self.updated_at = row.at
        if row.kind == "event":
            if row.body.get("type") == "board":
                b = event if isinstance(event, BoardStarted) else None
                self.current = BoardRecord(int(row.body["board"]), row.body.get("deal"),
                                           str(b.dealer) if b else str(row.body.get("dealer") or ""),
                                           str(b.vulnerable) if b else str(row.body.get("vulnerable") or ""),
                                           started_at=row.at)
                prev = self.boards.get(self.current.number)
                if prev is not None and prev.not_played:   # played after all: the adjustment stands until cancelled
                    self.current.adjustment = prev.adjustment
                self.boards[self.current.number] = self.current
            if self.current is not None:
                self.current.rows.append(row)
                if row.body.get("type") == "result":
                    self.current.keyed_by = row.actor
                    if row.actor.startswith("seat:"):    # a seat's correction is answered again (the director's
                        self.current.confirmation = None  # change after the opponents accepted stands)
            self._note_completion()
        elif row.kind == "adjustment":
            n = int(row.body["board"])
            rec = self.boards.get(n)
            if rec is None and row.body.get("not_played"):      # a board the table never started (Law 12C1)
                rec = self.boards[n] = BoardRecord(n, None, str(dealer_for(n)), str(vulnerability_for(n)),
                                                   started_at=row.at, not_played=True)
            if rec is not None:
                rec.adjustment = None if row.body.get("kind") == "cancel" else row.body
                rec.rows.append(row)
                if rec.not_played and rec.adjustment is None:  # cancelled: never started again
                    del self.boards[n]
        elif row.kind == "confirmation":
            rec = self.boards.get(int(row.body["board"]))
            if rec is not None:
                rec.confirmation = row.body
                rec.rows.append(row)

    def apply_row(self, row: Row) -> None:
        """Replay one journal row (start-up, or a delayed spectator copy); an engine refusal is logged."""
        event = None
        if row.kind == "event":
            try:
                event = event_from_dict(row.body)
                if isinstance(event, BoardStarted) and self.current is not None:
                    self._freeze_current()
                self._apply(event)
            except Exception as err:        # a row the engine of today refuses: keep it in the record
                msg = f"{self.id}#{row.seq}: {err}"
                self.replay_errors.append(msg)
                log.warning("replay: %s", msg)
        self.commit(row, event)

    def _freeze_current(self) -> None:
        rec = self.current
        assert rec is not None
        rec.result = summarize(self.table)
        rec.irregularities = [i.to_dict() for i in self.table.irregularities]

    def _note_completion(self) -> None:
        complete = self.current is not None and self.table.state == "board_complete"
        self._committed_result = summarize(self.table) if complete else None

    def rebuild(self) -> None:
        """A fresh engine fed the current board's journal rows."""
        self.table.close()
        self.table = Table(name=self.id, laws=self.regulation.law_edition)
        self.ruled.clear()
        if self.current is None:
            return
        for row in self.current.rows:
            if row.kind != "event":
                continue
            try:
                self._apply(event_from_dict(row.body))
            except (TableError, Exception) as err:     # as apply_row: keep going
                log.warning("rebuild %s#%s: %s", self.id, row.seq, err)
        self._note_completion()

    def close(self) -> None:
        self.table.close()
