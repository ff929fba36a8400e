"""The club: every table's runtime, the journal, and the one path an event takes to be acknowledged.

``submit`` (for the REST API, the device drivers and the simulated players alike):

1. parse the event (malformed: ``Invalid``; nothing changed);
2. under the table's lock: check who may post it, try it on the live engine (``TableError`` -> ``Conflict``,
   the table is rebuilt from its journal so nothing of the event remains); a device in prevent mode refuses
   an event that would flag a preventable irregularity (``Prevented``, nothing changes);
3. append it to the journal and wait until it is durable (a journal failure -> ``JournalError``, an
   ``Unavailable``; the table rebuilt);
   a table whose next board is held (``TableRuntime.held``: its hands picked up are being checked) refuses calls
   and cards;
4. only then: record it in the table's board history, feed the spectators' delayed copy, publish the new
   views, alert the director to each flagged irregularity — and return the acknowledgement.

The work after step 1 runs shielded from the caller's cancellation (a client that hangs up mid-request
cannot leave the engine ahead of the journal).
"""
from __future__ import annotations

import asyncio
import dataclasses
import enum
import logging
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from typing import Any, Protocol

from service.config.settings import Settings
from service.errors import Conflict, Invalid, NotFound, Prevented, Superseded
from service.live.board_results import AdjustmentError, adjustment, board_results
from service.live.director_calls import DirectorCalls
from service.live.free_text import EXPLANATION_CHARS, one_line
from service.live.hub import Hub
from service.live.lawtext import statement
from service.live.obligations import Obligations
from service.live.permissions import authorize
from service.live.runtime import BoardRecord, TableRuntime
from service.live.spectators import SpectatorFeed
from service.live.visibility import Viewer, visible_irregularities
from service.store.journal import CLUB, NEXT, Journal, JournalError, Row, utcnow
from table.editions import edition
from table.events import (
    BoardStarted,
    CallMade,
    CardPlayed,
    ClaimMade,
    ContractRecorded,
    EventError,
    ResultRecorded,
    TableEvent,
    event_from_dict,
    to_dict,
)
from table.irregularity import Irregularity
from table.machine import TableError
from table.texts import Text, translatable

log = logging.getLogger(__name__)

PREVENTABLE = {
    "box": frozenset({"INSUFFICIENT_BID", "BID_OUT_OF_ROTATION", "PASS_OUT_OF_ROTATION", "DOUBLE_OUT_OF_ROTATION",
                      "REDOUBLE_OUT_OF_ROTATION", "INADMISSIBLE_DOUBLE", "INADMISSIBLE_REDOUBLE",
                      "CALL_IN_VIOLATION_OF_PASS_OBLIGATION", "BID_ABOVE_SEVEN", "CALL_AFTER_FINAL_PASS",
                      "CHANGE_OF_CALL"}),
    "reader": frozenset({"OPENING_LEAD_OUT_OF_TURN", "LEAD_OUT_OF_TURN_DEFENDER", "LEAD_OUT_OF_TURN_DECLARER",
                         "LEAD_FROM_WRONG_HAND", "PLAY_OUT_OF_TURN", "PREMATURE_PLAY", "PREMATURE_LEAD", "REVOKE",
                         "REVOKE_TRICK12", "FAILURE_TO_PLAY_PENALTY_CARD", "CARD_ALREADY_PLAYED"}),
}

HELD = (CallMade, CardPlayed, ClaimMade, ContractRecorded, ResultRecorded)   # what a held table refuses


class AnyBoard(enum.Enum):
    """``Club.submit``'s default: the event applies whatever board the table is on."""
    ANY = "any"


class TournamentRules(Protocol):
    """What the club asks of the event it runs (``service/event/tournament.py``)."""

    def public_changed(self) -> None:
        """A board became public, or hidden again (the pages' data move on)."""

    def still_to_play(self, table_id: str | None) -> set[int]:
        """Boards ``table_id`` has still to play (a seat never sees their results)."""

    def scheduled_boards(self, table_id: str) -> AbstractSet[int]:
        """The boards the movement schedules at ``table_id``, in any round."""

    def board_laws(self, table_id: str) -> str | None:
        """The law edition of a board started at ``table_id`` now (None: the regulation's)."""


Listener = Callable[[TableRuntime, Row, TableEvent | None], None]


class Club:
    def __init__(self, settings: Settings, journal: Journal, hub: Hub) -> None:
        self.settings = settings
        self.regulation = settings.regulation
        self.journal = journal
        self.hub = hub
        self.tables: dict[str, TableRuntime] = {}
        self.feeds: dict[str, SpectatorFeed] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self.director_released: set[int] = set()
        self.ledger = Obligations(self.tables)           # who still has to play what (service/live/obligations.py)
        self.public_boards: frozenset[int] = frozenset()  # boards whose results and hands anyone may see
        self._public_key: tuple[int, int] | None = None
        self.club_seq = 0
        self.listeners: list[Listener] = []
        self.club_listeners: list[Callable[[Row], None]] = []   # told of each club-wide row once it is durable
        self.tournament: TournamentRules | None = None     # the movement-aware release rule and seat filter
        self._configs = {t.id: t for t in settings.tables}
        self.events_acknowledged = 0
        self.table_kinds: dict[str, str] = {}            # "scoring" for a scoring-only table; absent: played
        self.calls = DirectorCalls()

    # ------------------------------------------------------------------ tables
    def add_table(self, table_id: str) -> TableRuntime:
        rt = self.tables.get(table_id)
        if rt is None:
            rt = self.tables[table_id] = TableRuntime(table_id, self.regulation)
            rt.kind = self.table_kinds.get(table_id, "played")
            self.feeds[table_id] = SpectatorFeed(table_id, self.regulation, self._spectators_changed)
            self._locks[table_id] = asyncio.Lock()
            rt.embargoed = self.feeds[table_id].replica.embargoed = self.ledger.elsewhere(table_id)
            rt.released = self.feeds[table_id].replica.released = self.public_boards
            self.ledger.add_table(table_id)
        return rt

    def table(self, table_id: str) -> TableRuntime:
        rt = self.tables.get(table_id)
        if rt is None:
            raise NotFound(Text("refusal.no_table", "no table '{table}'", table=table_id))
        return rt

    def lock(self, table_id: str) -> asyncio.Lock:
        self.table(table_id)
        return self._locks[table_id]

    def load(self) -> int:
        """Rebuild every table by replaying its journal (start-up); returns the number of rows read."""
        n = 0
        for t in self.settings.tables:
            self.add_table(t.id)
        for row in self.journal.rows():
            n += 1
            if row.table_id == CLUB:
                self.club_seq = row.seq
                if row.kind == "release":
                    self.director_released.add(int(row.body["board"]))
                elif row.kind == "late_play" and row.body.get("on"):
                    self.director_released.discard(int(row.body["board"]))   # to be played again
                elif row.kind == "table_kind":
                    self.table_kinds[str(row.body["table"])] = str(row.body["kind"])
                    if str(row.body["table"]) in self.tables:
                        self.tables[str(row.body["table"])].kind = str(row.body["kind"])
                self.calls.apply_row(row)
                continue
            self.add_table(row.table_id).apply_row(row)
            self.feeds[row.table_id].push(row, notify=False)
        self.ledger.follow(None)                  # the event, once attached, follows its movement instead
        self._refresh_released(publish=False)
        return n

    def start(self) -> None:
        for feed in self.feeds.values():
            feed.start()

    def close(self) -> None:
        for feed in self.feeds.values():
            feed.close()
        for rt in self.tables.values():
            rt.close()

    # ------------------------------------------------------------------ events
    def parse(self, data: Any) -> TableEvent:
        if hasattr(data, "type") and not isinstance(data, dict):
            return data  # type: ignore[no-any-return]
        try:
            event = event_from_dict(data)
        except EventError as err:
            raise Invalid(err.args[0]) from err             # its Text, if it has one: a page words it
        if isinstance(event, CallMade) and event.explanation is not None:     # a player's words: one clean line
            event.explanation = one_line(event.explanation, EXPLANATION_CHARS, "the explanation") or None
        return event

    async def submit(self, table_id: str, data: Any, actor: str, viewer: Viewer | None = None,
                     device: str | None = None, over: BoardRecord | None | AnyBoard = AnyBoard.ANY
                     ) -> tuple[Row, list[Irregularity]]:
        """Apply, journal, publish; returns the journal row and the irregularities the event flagged. With
        ``over``, only while the table's current board is still that one (else ``Superseded``): checked under
        the table's lock, so an event that reached the lock first (the director's board, in the journal's write)
        is never overwritten by one decided before it."""
        rt = self.table(table_id)
        event = self.parse(data)               # Invalid: malformed, nothing changes
        return await asyncio.shield(self._submit(rt, event, actor, viewer, device, over))

    async def _submit(self, rt: TableRuntime, event: TableEvent, actor: str, viewer: Viewer | None,
                      device: str | None, over: BoardRecord | None | AnyBoard = AnyBoard.ANY
                      ) -> tuple[Row, list[Irregularity]]:
        async with self._locks[rt.id]:
            if over is not AnyBoard.ANY and rt.current is not over:
                raise Superseded(Text("refusal.superseded", "table {table} has another board since", table=rt.id))
            if isinstance(event, ResultRecorded) and self.kind(rt.id) != "scoring":
                raise Conflict(Text("refusal.result_at_played_table", "table {table} plays its boards with readers: "
                                    "a result is keyed only at a scoring-only table ({path})", table=rt.id,
                                    path="POST /api/tables/{id}/kind"))
            if rt.held is not None and isinstance(event, HELD):
                raise Conflict(rt.held)
            if viewer is not None:
                event = authorize(rt, viewer, event, scoring=self.kind(rt.id) == "scoring")
            event = self._with_laws(rt, event)
            try:
                flagged = rt.try_event(event)
            except TableError as err:
                raise Conflict(err.args[0]) from err        # its Text, if it has one: a page words it
            except Exception as err:                    # an engine bug: the table was rebuilt
                log.exception("table %s: the engine failed on %s", rt.id, event)
                raise Conflict(Text("refusal.engine_failed", "the law engine could not apply this event ({error})",
                                    error=f"{type(err).__name__}: {err}")) from err
            if device is not None and flagged and self.mode(rt.id, device, getattr(event, "seat", None)) == "prevent":
                blocked = sorted({i.code for i in flagged if i.code in PREVENTABLE.get(device, ())})
                if blocked:
                    rt.rebuild()
                    why: Text = Text("refusal.prevented", "refused in prevent mode (Law 80E regulation): ")
                    for i, code in enumerate(blocked):      # each irregularity worded by its code on a page
                        why += (", " if i else "") + Text("refusal.prevented_code", "{code}", code=code)
                    raise Prevented(why, blocked)
            row = Row(rt.id, rt.seq + 1, utcnow(), actor, "event", to_dict(event))
            try:
                await self.journal.append(row)
            except JournalError:
                rt.rebuild()
                raise
            rt.commit(row, event)
            self.events_acknowledged += 1
            self._after_commit(rt, row, event, flagged)
            return row, flagged

    def _with_laws(self, rt: TableRuntime, event: TableEvent) -> TableEvent:
        """A board started at a table of the event carries the event's law edition when it is not the table's own
        (the regulation's): the journal says under which laws the board was played, and a restart replays it so."""
        if not isinstance(event, BoardStarted) or event.laws is not None or self.tournament is None:
            return event
        laws = self.tournament.board_laws(rt.id)
        if laws is None or laws == edition(self.regulation.law_edition).name:
            return event
        return dataclasses.replace(event, laws=laws)

    def mode(self, table_id: str, device: str, seat: Any) -> str:
        cfg = self._configs.get(table_id)
        if cfg is not None and seat is not None:
            sd = cfg.seats.get(str(seat))  # type: ignore[call-overload]
            own = (sd.box_mode if device == "box" else sd.reader_mode) if sd is not None else None
            if own:
                return str(own)
        return self.regulation.modes.bidding_box if device == "box" else self.regulation.modes.seat_reader

    def _after_commit(self, rt: TableRuntime, row: Row, event: TableEvent | None,
                      flagged: list[Irregularity]) -> None:
        self.feeds[rt.id].push(row)
        self.ledger.note_row(rt, (int(row.body["board"]),) if row.kind in ("adjustment", "confirmation") else ())
        self._refresh_released()
        self.hub.publish_state(rt, ("director", "seat"))
        board = rt.board_number
        for irr in flagged:
            d = irr.to_dict()
            d["law_text"] = statement(irr.law)
            d["open"] = irr.open
            self.hub.publish(rt.id, {"type": "flagged", "table": rt.id, "board": board, "seq": row.seq,
                                     "irregularity": d}, roles=("director",))
        for listener in self.listeners:
            try:
                listener(rt, row, event)
            except Exception:
                log.exception("listener failed on %s#%s", rt.id, row.seq)

    def _spectators_changed(self, replica: TableRuntime) -> None:
        self.hub.publish_state(replica, ("spectator",))

    # ------------------------------------------------------------------ results, adjustments, release
    def _refresh_released(self, publish: bool = True) -> None:
        """The boards anyone may see (``public_boards``, every table's ``released``): those no table still has
        to play (unless the regulation leaves release to the director alone), and those the director released.
        Cheap when nothing changed; when a board becomes public only the spectators of a table showing it are
        told."""
        key = (self.ledger.changes, len(self.director_released))   # every change moves one of them
        if key == self._public_key:
            return
        self._public_key = key
        done = self.ledger.done if self.regulation.results_release != "director" else frozenset()
        new = frozenset(done | self.director_released)
        if new == self.public_boards:
            return
        changed = new ^ self.public_boards
        self.public_boards = new
        for tid, rt in self.tables.items():
            replica = self.feeds[tid].replica
            rt.released = replica.released = new
            if publish and replica.board_number in changed:
                self._spectators_changed(replica)
        if self.tournament is not None:
            self.tournament.public_changed()

    async def adjust(self, table_id: str, number: int, body: dict[str, Any], actor: str = "director") -> Row:
        rt = self.table(table_id)
        async with self._locks[table_id]:
            rec = rt.boards.get(number)
            extra: dict[str, Any] = {}
            if rec is None or rec.not_played:
                self._check_not_played(table_id, number, body, rec is None)
                extra = {"not_played": True}
            try:
                adj = adjustment(body, rec.vulnerable if rec is not None else "")
            except AdjustmentError as err:
                raise Invalid(err.args[0]) from err         # its Text: a page words it
            row = Row(table_id, rt.seq + 1, utcnow(), actor, "adjustment", {"board": number, **adj, **extra})
            await asyncio.shield(self.write(row))
            rt.commit(row)
            self._after_commit(rt, row, None, [])
            return row

    def _check_not_played(self, table_id: str, number: int, body: dict[str, Any], never: bool) -> None:
        """A board the table never started takes only an artificial score (Law 12C1: "not played") or its
        cancellation, and only a board the movement gives that table."""
        if body.get("kind") not in ("artificial", "cancel"):
            raise Invalid(Text("refusal.adjust_not_played", "table {table} has not played board {board}: only an "
                               "artificial adjusted score (not played) or its cancellation applies",
                               table=table_id, board=number))
        if never and body.get("kind") == "cancel":
            raise NotFound(Text("refusal.no_adjustment", "table {table} has no adjustment on board {board} to cancel",
                                table=table_id, board=number))
        if self.tournament is not None and number not in self.tournament.scheduled_boards(table_id):
            raise NotFound(Text("refusal.not_in_movement", "the movement does not give board {board} to table {table}",
                                board=number, table=table_id))

    # ------------------------------------------------------------------ the terminal's rows
    def kind(self, table_id: str) -> str:
        """``scoring`` (real cards, results keyed at the table) or ``played`` (readers and bidding boxes)."""
        return self.table(table_id).kind

    async def set_table_kind(self, table_id: str, kind: str, actor: str = "director") -> Row:
        """Make a table scoring-only or played (journalled; the event set-up may call it for each table)."""
        self.table(table_id)
        if kind not in ("scoring", "played"):
            raise Invalid(Text("refusal.table_kind", "a table's kind is 'scoring' or 'played'"))
        row = await self.append_club("table_kind", {"table": table_id, "kind": kind}, actor)
        self.table_kinds[table_id] = self.tables[table_id].kind = kind
        self.hub.publish_state(self.tables[table_id], ("director", "seat"))
        return row

    async def call_director(self, table_id: str, seat: str | None, reason: str = "call",
                            actor: str = "director", board: int | None = None, code: str | None = None,
                            law: str | None = None, note: str | None = None) -> dict[str, Any]:
        """Journal a call for the director and push it to the director's stream at once. ``board``: the board
        the call is about (default: the table's current one); ``code`` and ``law``: what the call is about;
        ``note``: the player's own words (cleaned: ``service/live/free_text.py``)."""
        rt = self.table(table_id)
        body: dict[str, Any] = {"table": table_id, "seat": seat, "board": board or rt.board_number,
                                "reason": reason, **translatable(reason, "reason")}     # a Text: a page words it
        if code:
            body["code"] = code
        if law:
            body["law"] = law
        if note:
            body["note"] = note
        row = await self.append_club("director_call", body, actor)
        call = self.calls.apply_row(row)
        assert call is not None
        self.hub.publish(table_id, {"type": "director_call", **call}, roles=("director",))
        return call

    async def answer_call(self, number: int, actor: str = "director", ruling: str | None = None) -> dict[str, Any]:
        """Mark a call answered; ``ruling``: the director's ruling in words, kept with the answer."""
        call = self.calls.get(number)
        if call is None:
            raise NotFound(Text("refusal.no_call", "no director call {number}", number=number))
        if call["answered"]:
            raise Conflict(Text("refusal.call_answered", "director call {number} was answered at {time}", number=number,
                                time=call["answered"]))
        row = await self.append_club("director_call_answer", {"id": number, **({"ruling": ruling} if ruling else {})},
                                     actor)
        self.calls.apply_row(row)
        self.hub.publish(call["table"], {"type": "director_call_answered", **call}, roles=("director",))
        return call

    async def confirm(self, table_id: str, number: int, body: dict[str, Any], actor: str) -> Row:
        """Journal the opponents' answer to a board's result (``service/api/terminal.py`` checks who answers)."""
        rt = self.table(table_id)
        async with self._locks[table_id]:
            row = Row(table_id, rt.seq + 1, utcnow(), actor, "confirmation", {"board": number, **body})
            await asyncio.shield(self.write(row))
            rt.commit(row)
            self._after_commit(rt, row, None, [])
            return row

    async def release(self, number: int, actor: str = "director", force: bool = False) -> Row:
        """The director releases a board's results and hands to everyone. A board some table still has to play
        is released only with ``force`` (``Conflict`` naming those tables otherwise), and even then never to a
        pair that still has to play it (``service/event/board_rule.py``)."""
        owing = self.ledger.tables_owing(number)
        if owing and not force:
            raise Conflict(Text("refusal.release_owing", "board {board} is still to be played at table(s) {tables}: "
                                "release it anyway only with force", board=number, tables=", ".join(owing)),
                           tables=owing)
        # released only once durable; the listeners' wake-up runs after this returns (no await in between)
        row = await self.append_club("release", {"board": number, **({"force": True} if owing else {})}, actor)
        self.director_released.add(number)
        self._refresh_released()
        return row

    def late_play_changed(self, table_id: str, board: int, on: bool) -> None:
        """Late play granted (or withdrawn): the board is owed again by the table unless it played it; a grant
        withdraws a release of the board (``load`` replays the same)."""
        if on:
            self.director_released.discard(board)
        self.ledger.note(table_id, (board,))
        self._refresh_released()
        self.hub.publish_state(self.tables[table_id], ("director", "seat"))

    async def append_club(self, kind: str, body: dict[str, Any], actor: str = "director") -> Row:
        """Journal a club-wide row (a release, a round, a revocation, a sign-in); the journal numbers it in the
        transaction that writes it, so concurrent requests never collide on a number nor leave one unused."""
        row = Row(CLUB, NEXT, utcnow(), actor, kind, body)
        await asyncio.shield(self.write(row))
        for listener in self.club_listeners:
            try:
                listener(row)
            except Exception:
                log.exception("club listener failed on %s", kind)
        return row

    async def write(self, row: Row) -> None:
        """Append ``row`` to the journal and wait until it is durable (``JournalError`` if it cannot be)."""
        await self.journal.append(row)
        if row.table_id == CLUB:
            self.club_seq = max(self.club_seq, row.seq)

    def results(self, viewer: Viewer) -> list[dict[str, Any]]:
        numbers = sorted({n for rt in self.tables.values() for n in rt.boards})
        if viewer.role == "seat":                       # never a board the seat's table has to play
            hide = self.ledger.table_owed.get(viewer.table or "", set())
            numbers = [n for n in numbers if n not in hide]
        out = []
        for n in numbers:
            tables = [rt for rt in self.tables.values()
                      if viewer.role == "director" or n in rt.released]
            entries = board_results(n, tables)
            if entries:
                out.append({"board": n, "released": all(n in rt.released for rt in tables),
                            "results": entries})
        return out

    def flagged_for(self, rt: TableRuntime, viewer: Viewer, flagged: list[Irregularity]) -> list[dict[str, Any]]:
        return visible_irregularities(rt, viewer, flagged)
