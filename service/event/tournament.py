"""The event as the service runs it: the session (pairs or teams, sections, movements), the round each table
is in, and the results fed to ``results.Session`` as the tables complete their boards.

``LiveTournament(config, club)`` builds a :class:`results.Session` from the ``[event]`` configuration
(``service/config/settings.py``, planned by ``service/config/event_plan.py``: a Mitchell, a Howell, a teams match or
round robin, or a table of rounds read with ``Movement.from_text``), maps the service's table ids to movement
tables (table ``"1"`` is movement table 1 unless ``tables`` says otherwise), and follows the club through
``Club.listeners``:

* a table that completes a board (a keyed result once the opponents confirm it; or gets a Law 12 adjustment
  on it, or has one cancelled) enters or
  replaces that table's :class:`results.BoardResult`; the pairs come from the movement (table + round +
  board -> NS and EW entrants);
* a ``board`` event checks the board against the table's current round (``expected_boards``): a board of
  its next round moves the table on to that round; any other board is flagged to the director as a
  possible wrong board (Law 15, a ``flagged`` message with code ``WRONG_BOARD``) and is *not* refused —
  what to do is the director's call. The director can also set the round (``POST /api/event/round``,
  journalled, so it survives a restart);
* the club's release rule: under ``results_release = "all_tables"`` a board is released only when every
  table the movement schedules to play it has completed it (``service/event/public_results.py``), not just the
  tables that happen to have started it.

Nothing here is stored of its own: after a restart the event is rebuilt from the tables the journal
rebuilt (and the journalled round changes, round clock and players' names: club rows ``round``, ``clock`` and
``players``). An event set up from the console (``service/api/event_console.py``) counts only what happened after its
own journal row (``since``): the boards an earlier event played are not its boards.
``GET /api/public/results`` (``service/api/event.py``) serves the live-results page.
"""
from __future__ import annotations

import logging
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from datetime import datetime
from typing import Any

from results import BoardResult, Entrant, Movement, ResultsError, Session
from results.scoring import Award, award_from_percent
from service.config.event_plan import SectionPlan, build_session
from service.config.settings import EDITIONS, EventConfig
from service.errors import Conflict, Invalid, NotFound
from service.event.clock import RoundClock
from service.event.pair_names import PairKey, PairNames, direction_of
from service.event.public_results import (
    UNITS,
    results_payload,
    schedule_of,
    session_subset,
    unmapped,
)
from service.live.club import Club
from service.live.runtime import TableRuntime
from service.live.visibility import Viewer
from service.store.journal import CLUB, Row
from table.calls import parse_call
from table.cards import parse_card
from table.editions import edition
from table.events import TableEvent
from table.texts import Text, translatable

log = logging.getLogger(__name__)

LAW15 = ("Law 15: a board not designated for this round. If no player has played it before, the director "
         "normally lets the score stand and may have the pairs play the right board later; a board a player has "
         "already played is not scored again (adjusted score).")
MAX_ALERTS = 200

def _expected(mv: Movement, table: int, rnd: int) -> tuple[int, ...]:
    try:
        return mv.expected_boards(table, rnd)
    except ResultsError:
        return ()


def _played(rows: Iterable[Row]) -> tuple[tuple[str, ...], tuple[tuple[int, str], ...], tuple[str, ...]]:
    """A board played at the table: its calls from the dealer on, the alerted ones (index, written explanation or
    "") and its cards in the order played (the first is the opening lead), for the exports; all empty for a result
    keyed at a scoring-only table."""
    calls: list[str] = []
    alerts: list[tuple[int, str]] = []
    cards: list[str] = []
    for r in rows:
        if r.kind != "event":
            continue
        kind = r.body.get("type")
        try:
            if kind == "call":
                calls.append(parse_call(str(r.body["call"])))
                if r.body.get("alert"):
                    alerts.append((len(calls) - 1, str(r.body.get("explanation") or "")))
            elif kind == "card":
                cards.append(parse_card(str(r.body["card"])))
        except (KeyError, ValueError):
            continue
    return tuple(calls), tuple(alerts), tuple(cards)


# ---------------------------------------------------------------------------------------------- the live event
def wrong_board_words(board: int, table: str, rnd: int, boards: Sequence[int], later: int | None,
                      later_boards: Sequence[int]) -> Text:
    """Why ``board`` is a wrong board at ``table`` (Law 15): not one of its ``boards`` of round ``rnd``, nor of its
    ``later`` round's (None: no later round) -- the one wording of the event's alert and of a refused start."""
    words = (Text("event.wrong_board", "board {board} is not one of table {table}'s boards in round {round} "
                  "({boards})", board=board, table=table, round=rnd, boards=", ".join(map(str, boards)))
             if boards else
             Text("event.wrong_board_sit_out", "board {board} is not one of table {table}'s boards in round "
                  "{round} (none: a sit-out)", board=board, table=table, round=rnd))
    if later is not None:
        words += Text("event.wrong_board_next", " nor of round {round} ({boards})", round=later,
                      boards=", ".join(map(str, later_boards)))
    return words


class LiveTournament:
    def __init__(self, cfg: EventConfig, club: Club, since: str | None = None) -> None:
        self.cfg = cfg
        self.club = club
        self.since = since or ""                 # only boards started from then on are this event's
        self.clock = RoundClock()
        self.names = PairNames(teams=cfg.scoring == "IMP")     # one entry per pair for the session
        self.law_edition = cfg.law_edition or club.regulation.law_edition     # the boards its tables start
        self.session, self.plans = build_session(cfg, self.law_edition)
        if not self.session.date:                # the exports' date: the day the event was set up (PBN's form)
            started = len(self.since) >= 10 and self.since[4] == "-"
            day = self.since[:10] if started else datetime.now().date().isoformat()
            self.session.date = day.replace("-", ".")
        self.where: dict[str, tuple[SectionPlan, int]] = {tid: (p, mt) for p in self.plans
                                                          for tid, mt in p.tables.items()}
        self.table_ids = {(p.id, mt): tid for p in self.plans for tid, mt in p.tables.items()}
        self.schedule = schedule_of((p.id, p.movement, p.tables) for p in self.plans)
        # table -> its boards: the results screen's progress asks for every table at every push, and walking
        # the schedule per table (500 tables x 1,000 boards) stalled the event loop for a tenth of a second
        by_table: dict[str, set[int]] = {}
        for b, ts in self.schedule.items():
            for t in ts:
                by_table.setdefault(t, set()).add(b)
        self._by_table = {t: frozenset(bs) for t, bs in by_table.items()}
        self.rounds: dict[str, int] = {tid: p.movement.rounds[0] for tid, (p, _mt) in self.where.items()}
        self.entered: dict[tuple[str, int], BoardResult] = {}
        self.alerts: deque[dict[str, Any]] = deque(maxlen=MAX_ALERTS)
        self.late: dict[str, set[int]] = {}           # table -> boards of an earlier round it may play later
        self.revision = 0
        self._views: dict[str, tuple[int, dict[str, Any]]] = {}
        self._subset: tuple[tuple[int, frozenset[int]], Session] | None = None
        self._last_board = max(self.schedule) if self.schedule else 0
        self._orders: dict[str, tuple[list[int], dict[int, int]]] = {}    # next_board's order per table
        self.session.subscribe(lambda _update: self._bump())
        for tid in self.where:
            club.add_table(tid)

    # ------------------------------------------------------------------ start-up and following the club
    def attach(self, club_rows: Iterable[Row] = ()) -> None:
        """Rebuild from the tables the journal rebuilt (and the journalled round changes), then follow the
        club: its listener, its release rule, the seat filter of its results."""
        steps: list[tuple[str, int, Any]] = []
        for tid in self.where:
            for rec in self.club.tables[tid].boards.values():
                if rec.not_played:                       # never started: a director's score, not a board event
                    continue
                if rec.started_at >= self.since:
                    steps.append((rec.started_at, 0, (tid, rec.number, rec.rows[0].seq if rec.rows else 0)))
        for row in club_rows:
            if row.table_id == CLUB and row.kind == "law_edition":
                self._apply_edition(row.body)     # before any board of the event (set_law_edition)
            elif row.table_id == CLUB and row.kind in ("round", "clock", "players", "late_play"):
                steps.append((row.at, 1, row))
        for at, kind, data in sorted(steps, key=lambda s: (s[0], s[1])):
            if kind == 0:
                tid, number, seq = data
                self._board_started(tid, number, seq, publish=False, at=at)
            elif data.kind == "round":
                self._apply_round(data.body, data.at)
            elif data.kind == "clock":
                self.clock.apply(data.body, data.at, list(self.where))
            elif data.kind == "late_play":
                self._apply_late(data.body)
            else:
                self._apply_names(data.body)
        for tid in self.where:
            rt = self.club.tables[tid]
            for n in list(rt.boards):
                self._sync(rt, n)
        self.club.listeners.append(self.on_row)
        self.club.tournament = self
        self.club.ledger.follow(self)
        self.club._refresh_released(publish=False)

    def on_row(self, rt: TableRuntime, row: Row, event: TableEvent | None) -> None:
        """``Club.listeners``: called after every acknowledged row."""
        typ = row.body.get("type") if row.kind == "event" else None
        if rt.id not in self.where:
            if typ == "board" or rt.table.state == "board_complete":
                self._bump()                     # a table outside the event holds its boards back too
            return
        if row.kind in ("adjustment", "confirmation"):       # a keyed result counts once confirmed
            self._sync(rt, int(row.body["board"]))
            self._bump()
        elif typ == "board":
            self._board_started(rt.id, int(row.body["board"]), row.seq, publish=True, at=row.at)
            for n in list(rt.boards):
                self._sync(rt, n)
            self._bump()
        elif row.kind == "event" and rt.table.state == "board_complete" and rt.current is not None:
            self._sync(rt, rt.current.number)
            self._bump()

    def _bump(self) -> None:
        self.revision += 1

    # ------------------------------------------------------------------ rounds and the wrong-board check
    def expected_boards(self, table_id: str) -> tuple[int, ...]:
        """The boards ``table_id`` should play in its current round (empty: not in the event, or a sit-out)."""
        if table_id not in self.where:
            return ()
        plan, mt = self.where[table_id]
        return _expected(plan.movement, mt, self.rounds[table_id])

    def _next_round(self, table_id: str) -> int | None:
        plan, mt = self.where[table_id]
        cur = self.rounds[table_id]
        return next((r for r in plan.movement.rounds if r > cur and _expected(plan.movement, mt, r)), None)

    def _scheduled_at(self, table_id: str) -> frozenset[int]:
        return self._by_table.get(table_id, frozenset())

    def scheduled_boards(self, table_id: str) -> frozenset[int]:
        """The boards the movement gives ``table_id`` in any round (``Club.adjust``: a board not played)."""
        return self._scheduled_at(table_id)

    def _board_started(self, table_id: str, number: int, seq: int, publish: bool, at: str = "") -> None:
        if number in self.expected_boards(table_id):
            if at:
                self.clock.first_board(table_id, at)
            return
        if number in self.late.get(table_id, ()):
            return                                   # late play: the director allowed this board of an earlier round
        nxt = self._next_round(table_id)
        plan, mt = self.where[table_id]
        if nxt is not None and number in _expected(plan.movement, mt, nxt):
            self.rounds[table_id] = nxt              # the table has moved on to its next round
            if at:
                self.clock.moved(table_id, at)
            return
        mine = self._scheduled_at(table_id)
        played = self.club.ledger.played.get(table_id, set())   # a replaced board is not played (Law 15 still)
        if number not in mine and mine <= played:
            log.info("table %s: board %d after the table's last round (outside the event)", table_id, number)
            return
        self._alert(table_id, number, seq, publish)

    def _alert(self, table_id: str, number: int, seq: int, publish: bool) -> None:
        rnd, exp = self.rounds[table_id], self.expected_boards(table_id)
        nxt = self._next_round(table_id)
        plan, mt = self.where[table_id]
        detail = wrong_board_words(number, table_id, rnd, exp, nxt,
                                   _expected(plan.movement, mt, nxt) if nxt is not None else ())
        irr = {"code": "WRONG_BOARD", "law": "15", "seat": None, "phase": "board", "detail": detail,
               **translatable(detail, "detail"),
               "disposition": None, "open": True, "law_text": LAW15}
        msg = {"type": "flagged", "table": table_id, "board": number, "seq": seq, "source": "event",
               "round": rnd, "expected": list(exp), "irregularity": irr}
        self.alerts.append(msg)
        self._bump()
        log.warning("table %s: %s", table_id, detail)
        if publish:
            self.club.hub.publish(table_id, msg, roles=("director",))

    def _apply_round(self, body: dict[str, Any], at: str) -> None:
        """A journalled round change: ``{"round": r, "tables": [...]}`` (default: all) or ``{"rounds": {table:
        r}}`` (``advance``); a table that enters another round starts its round clock then."""
        targets = body.get("rounds") or {tid: body["round"] for tid in body.get("tables") or list(self.where)}
        for tid, rnd in targets.items():
            if tid in self.where and int(rnd) in self.where[tid][0].movement.rounds:
                if self.rounds[tid] != int(rnd) or body.get("rounds"):
                    self.clock.moved(tid, at)
                self.rounds[tid] = int(rnd)

    async def advance(self, tables: list[str] | None = None, actor: str = "director") -> Row:
        """The director moves tables (default: every table not in its last round) to their next round."""
        ids = list(tables) if tables else [t for t, (plan, _mt) in self.where.items()
                                           if self.rounds[t] < plan.movement.rounds[-1]]
        if not ids:
            raise Conflict(Text("refusal.all_last_round", "every table is in its last round"))
        targets: dict[str, int] = {}
        for tid in ids:
            if tid not in self.where:
                raise NotFound(Text("refusal.table_not_in_event", "table '{table}' is not in the event", table=tid))
            later = [r for r in self.where[tid][0].movement.rounds if r > self.rounds[tid]]
            if not later:
                raise Conflict(Text("refusal.last_round", "table {table} is in its last round ({round})", table=tid,
                                    round=self.rounds[tid]))
            targets[tid] = later[0]
        row = await self.club.append_club("round", {"rounds": targets}, actor)
        self._apply_round(row.body, row.at)
        self._bump()
        return row

    async def set_clock(self, minutes: float | None, restart: bool, tables: list[str] | None = None,
                        actor: str = "director") -> Row:
        """The round's length in minutes (``None``: no clock); ``restart`` begins the tables' rounds now."""
        for tid in tables or ():
            if tid not in self.where:
                raise NotFound(Text("refusal.table_not_in_event", "table '{table}' is not in the event", table=tid))
        body: dict[str, Any] = {"minutes": minutes, "restart": restart}
        if tables:
            body["tables"] = list(tables)
        row = await self.club.append_club("clock", body, actor)
        self.clock.apply(row.body, row.at, list(self.where))
        self._bump()
        return row

    async def set_law_edition(self, name: str, actor: str = "director") -> Row | None:
        """The event's law edition, before any of its tables has started a board (journalled: a club row
        ``law_edition``); ``Conflict`` in words after that: one board is ruled under one law book at every table
        that plays it. None: the edition is already ``name``."""
        if name not in EDITIONS:
            raise Invalid(Text("refusal.no_edition", "law edition '{edition}' is not available (available: {editions})",
                               edition=name, editions=", ".join(EDITIONS)))
        if name == self.law_edition:
            return None
        started = self.started_tables()
        if started:
            now = edition(self.law_edition).name
            raise Conflict(Text("refusal.edition_locked", "boards have started at table {tables} under the {edition} "
                                "laws: the law edition cannot change within an event (every table plays a board "
                                "under the same laws). Set up a new event to play under another edition.",
                                tables=", ".join(started), edition=now), code="EDITION_LOCKED",
                           tables=started, law_edition=self.law_edition)
        row = await self.club.append_club("law_edition", {"law_edition": name}, actor)
        self._apply_edition(row.body)
        return row

    def _apply_edition(self, body: dict[str, Any]) -> None:
        self.law_edition = str(body["law_edition"])
        self.session.laws = edition(self.law_edition).name
        self._bump()

    def clock_of(self, table_id: str, now: datetime) -> dict[str, Any]:
        """The table's round clock, with ``late`` when its time ran out before it finished the round's boards."""
        rt = self.club.tables[table_id]
        finished = all(rt.completed(b) for b in self.expected_boards(table_id))
        return self.clock.status(table_id, finished, now)

    # ------------------------------------------------------------------ players' names, pair by pair
    def pair_at(self, table_id: str, direction: str, rnd: int | None = None) -> int | None:
        """The pair (entrant) sitting ``direction`` at ``table_id`` in ``rnd`` (default: its current round)."""
        plan, mt = self.where[table_id]
        s = plan.movement.at(mt, self.rounds[table_id] if rnd is None else rnd)
        return s.ns if direction == "NS" else s.ew

    def _pair_key(self, table_id: str, rnd: int, direction: str) -> PairKey | None:
        pair = self.pair_at(table_id, direction, rnd)
        return None if pair is None else self.names.key(self.where[table_id][0].id, pair, direction)

    def names_at(self, table_id: str, rnd: int, direction: str) -> list[str]:
        """The names of the pair sitting ``direction`` at the table in ``rnd``, wherever the pair entered them."""
        return self.names.of(self._pair_key(table_id, rnd, direction))

    def players_at(self, table_id: str) -> dict[str, Any]:
        """The table's two pairs in its current round and their names (public: the results show them), with the
        names' ``version`` (higher is later)."""
        rnd = self.rounds[table_id]
        return {"round": rnd, "version": self.names.version,
                **{d: {"pair": self.pair_at(table_id, d, rnd), "names": self.names_at(table_id, rnd, d)}
                   for d in ("NS", "EW")}}

    async def set_names(self, table_id: str, names: dict[str, str], actor: str) -> Row:
        """Names (already shown as ``service/event/members.py`` shows them) of one pair's seats at the table's
        round: they stay the pair's for the session (``service/event/pair_names.py``). Every page of the table
        is sent the table's names at once (a ``players`` message on its stream)."""
        directions = {direction_of(seat) for seat in names}
        if len(directions) != 1:
            raise Invalid(Text("refusal.one_pair_seats", "give the seats of one pair: N and S, or E and W"))
        direction = directions.pop()
        rnd = self.rounds[table_id]
        pair = self.pair_at(table_id, direction, rnd)
        if pair is None:
            raise Conflict(Text("refusal.no_pair_sits", "no pair sits {side} at table {table} in round {round}",
                                side=direction, table=table_id, round=rnd))
        row = await self.club.append_club("players", {"table": table_id, "round": rnd, "pair": pair,
                                                      "names": names}, actor)
        self._apply_names(row.body)
        self.club.hub.publish(table_id, {"type": "players", "table": table_id, **self.players_at(table_id)},
                              roles=("seat", "director"))
        return row

    def _apply_names(self, body: dict[str, Any]) -> None:
        tid, rnd = str(body["table"]), int(body["round"])
        if tid not in self.where or not body["names"]:
            return
        direction = direction_of(next(iter(body["names"])))
        key = self._pair_key(tid, rnd, direction)
        if key is None:
            return
        self.names.enter(key, {str(seat): str(name) for seat, name in body["names"].items()})
        self._entrant_names(key[0], key[1])

    def _entrant_names(self, section: str, pair: int) -> None:
        """The results name the pair (a team: both its pairs) as the session's names store has it."""
        plan = next(p for p in self.plans if p.id == section)
        names = self.names.of_entrant(section, pair)
        if not names or pair not in plan.movement.entrants:
            return
        sec = self.session.sections[section]
        old = sec.entrants.get(pair) or Entrant(pair)
        sec.entrants[pair] = Entrant(pair, tuple(names), team_name=old.team_name, ids=old.ids)
        self._subset = None
        self._bump()

    async def set_round(self, rnd: int, tables: list[str] | None = None, actor: str = "director") -> Row:
        """The director puts tables (default: all) in round ``rnd``; journalled."""
        ids = list(tables) if tables else list(self.where)
        for tid in ids:
            if tid not in self.where:
                raise NotFound(Text("refusal.table_not_in_event", "table '{table}' is not in the event", table=tid))
            rounds = self.where[tid][0].movement.rounds
            if rnd not in rounds:
                raise Invalid(Text("refusal.round_range", "table {table}'s movement has rounds {first}..{last}",
                                   table=tid, first=rounds[0], last=rounds[-1]))
        row = await self.club.append_club("round", {"round": rnd, "tables": ids}, actor)
        self._apply_round(row.body, row.at)
        self._bump()
        return row

    def _apply_late(self, body: dict[str, Any]) -> None:
        boards = self.late.setdefault(str(body["table"]), set())
        (boards.add if body.get("on") else boards.discard)(int(body["board"]))

    async def set_late_play(self, table_id: str, board: int, on: bool, actor: str = "director") -> Row:
        """Late play (journalled): the director lets ``table_id`` play ``board``, one of its boards in the
        movement, after its round: starting it raises no wrong-board alert; its result still counts for the
        pairs the movement seats there for it, and the board's results stay private until it is played (the
        release rule waits for every table the movement gives it)."""
        if table_id not in self.where:
            raise NotFound(Text("refusal.table_not_in_event", "table '{table}' is not in the event", table=table_id))
        if board not in self._scheduled_at(table_id):
            raise Invalid(Text("refusal.not_in_movement", "the movement does not give board {board} to table {table}",
                               board=board, table=table_id))
        row = await self.club.append_club("late_play", {"table": table_id, "board": board, "on": on}, actor)
        self._apply_late(row.body)
        self.club.late_play_changed(table_id, board, on)     # owed again: hidden from its pairs and the public
        self._bump()
        return row

    # ------------------------------------------------------------------ results into the session
    def _award(self, pct: Any) -> Award:
        return award_from_percent(float(pct), imps=self.session.scoring.value != "MP")

    def _result(self, rt: TableRuntime, n: int) -> BoardResult | None:
        rec = rt.boards.get(n)
        if rec is None or rec.started_at < self.since:
            return None                                   # none, or an earlier event's board
        plan, mt = self.where[rt.id]
        sittings = [s for s in plan.movement.sittings if s.table == mt and n in s.boards and not s.sit_out]
        if not sittings:
            return None                                   # not this table's board: flagged at its start
        s = next((x for x in sittings if x.round == self.rounds[rt.id]), sittings[0])
        base: dict[str, Any] = {"board": n, "ns": s.ns, "ew": s.ew, "table": mt, "round": s.round}
        adj = rec.adjustment
        try:
            if adj and adj.get("kind") == "artificial":
                return BoardResult(**base, artificial=(self._award(adj["ns"]), self._award(adj["ew"])))
            if adj and adj.get("kind") == "assigned":
                score = int(adj["score_ns"])
                return BoardResult(**base, contract=adj.get("contract"), declarer=adj.get("declarer"),
                                   tricks=adj.get("tricks"), assigned=(score, score))
            res = rt.result(n) or {}
            if not rt.completed(n) or res.get("score_ns") is None:
                return None
            lead = next((r.body.get("lead") for r in rec.rows if r.kind == "event" and r.body.get("type") == "result"),
                        None)                             # a keyed result's opening lead, for the traveller
            auction, alerts, play = _played(rec.rows)
            return BoardResult(**base, contract=res.get("contract"), declarer=res.get("declarer"),
                               tricks=res.get("tricks"), score_ns=int(res["score_ns"]),
                               lead=lead or next(iter(play), None), auction=auction, alerts=alerts, play=play)
        except (ResultsError, TypeError, ValueError) as err:
            log.warning("table %s board %d: no result for the session: %s", rt.id, n, err)
            return None

    def _sync(self, rt: TableRuntime, n: int) -> None:
        key = (rt.id, n)
        new, old = self._result(rt, n), self.entered.get(key)
        if new == old:
            return
        sid = self.where[rt.id][0].id
        try:
            if old is not None and (new is None or new.key != old.key):
                self.session.remove_result(old.board, old.ns, old.ew, sid)
                self.entered.pop(key, None)
            if new is not None:
                self.session.add_result(new, sid)
                self.entered[key] = new
        except ResultsError as err:
            log.warning("table %s board %d: the session refused the result: %s", rt.id, n, err)

    # ------------------------------------------------------------------ who may see what
    def _state(self) -> tuple[dict[str, set[int]], dict[str, set[int]]]:
        completed: dict[str, set[int]] = {}
        started: dict[str, set[int]] = {}
        for tid, rt in self.club.tables.items():
            mine = {n for n, rec in rt.boards.items() if rec.started_at >= self.since}
            started[tid] = mine
            completed[tid] = {n for n in mine if rt.completed(n)}
        return completed, started

    def has_play(self) -> bool:
        """Whether any table of the event has started a board of it (a replacement then needs the director's
        explicit word)."""
        return any(rec.started_at >= self.since for tid in self.where for rec in self.club.tables[tid].boards.values())

    def board_laws(self, table_id: str) -> str | None:
        """The law edition a board started at ``table_id`` is played under (stamped on its journalled ``board``
        event, so a restart replays it under the same laws); None: a table outside the event keeps the
        regulation's."""
        return edition(self.law_edition).name if table_id in self.where else None

    def started_tables(self) -> list[str]:
        """The event's tables that have started a board of it."""
        return sorted(tid for tid in self.where
                      if any(rec.started_at >= self.since for rec in self.club.tables[tid].boards.values()))

    def detach(self) -> None:
        """Stop following the club (the event is being replaced)."""
        if self.on_row in self.club.listeners:
            self.club.listeners.remove(self.on_row)

    def public(self) -> set[int]:
        """Boards everyone may see (``Club.public_boards``: played at every table that had to, or released)."""
        return set(self.club.public_boards)

    def still_to_play(self, table_id: str | None) -> set[int]:
        """Boards ``table_id`` still has to play (``service/live/obligations.py``)."""
        return set(self.club.ledger.table_owed.get(table_id, ())) if table_id is not None else set()

    def public_changed(self) -> None:
        """``Club._refresh_released``: a board became public (or hidden again); the pages' data move on."""
        self._bump()

    def sittings_by_board(self) -> dict[tuple[str, int], tuple[tuple[str, int], ...]]:
        """(service table, board) -> the pairs (section, entrant) the movement seats there for the board; a
        movement table no service table plays is kept as :func:`unmapped` (it never plays anything)."""
        out: dict[tuple[str, int], list[tuple[str, int]]] = {}
        for plan in self.plans:
            by_number = {mt: tid for tid, mt in plan.tables.items()}
            for s in plan.movement.sittings:
                if s.sit_out or s.ns is None or s.ew is None:
                    continue
                tid = by_number.get(s.table, unmapped(plan.id, s.table))
                for b in s.boards:
                    out.setdefault((tid, b), []).extend(((plan.id, s.ns), (plan.id, s.ew)))
        return {k: tuple(v) for k, v in out.items()}

    # ------------------------------------------------------------------ the page's data
    def summary(self) -> dict[str, Any]:
        s = self.session
        unit = "VPs" if s.vp and s.scoring.value == "IMP" else UNITS.get(s.scoring.value, "")
        return {"name": s.name, "scoring": s.scoring.value, "kind": s.kind, "unit": unit, "date": s.date,
                "policy": self.club.regulation.results_release, "law_edition": self.law_edition,
                "sections": [{"id": p.id, "movement": p.movement.name, "kind": p.movement.kind,
                              "rounds": len(p.movement.rounds), "boards": len(p.movement.boards),
                              "tables": dict(p.tables)} for p in self.plans]}

    def progress(self, completed: dict[str, set[int]],
                 tables: Mapping[str, TableRuntime] | None = None) -> list[dict[str, Any]]:
        """Where each table is; ``tables``: the copies to read (the spectators' delayed ones), else the live."""
        out = []
        for tid, (plan, mt) in sorted(self.where.items(), key=lambda kv: (kv[1][0].id, kv[1][1])):
            exp = self.expected_boards(tid)
            done = completed.get(tid, set())
            rt = (tables or self.club.tables)[tid]
            out.append({"table": tid, "section": plan.id, "movement_table": mt, "round": self.rounds[tid],
                        "rounds": len(plan.movement.rounds), "boards": list(exp),
                        "done": [b for b in exp if b in done], "board": rt.board_number,
                        "finished": self._scheduled_at(tid) <= done,
                        "kind": self.club.tables[tid].kind})          # scoring-only or played: no secret
        return out

    def view(self, v: Viewer, hidden: AbstractSet[int] = frozenset()) -> dict[str, Any]:
        """The live-results data for ``v``: the public's, a seat's, or the director's (everything). ``hidden``:
        the boards the movement's rule hides from ``v`` (``service/event/board_rule.py``), never shown."""
        key = "director" if v.role == "director" else f"table:{v.table}" if v.role == "seat" else "public"
        if hidden and v.role != "director":
            key += ":" + ",".join(map(str, sorted(hidden)))
        cached = self._views.get(key)
        if cached is not None and cached[0] == self.revision:
            return cached[1]
        completed, started = self._state()
        reasons: dict[int, str] = {}
        if v.role == "director":
            visible = set(self.schedule) | {b for (_t, b) in self.entered}
        else:
            table = v.table if v.role == "seat" else None
            public = self.public()
            if table is not None and self.club.regulation.results_release == "immediate":
                public |= self.club.ledger.played.get(table, set())   # a table sees the boards it played at once
            visible = public - set(hidden)
            if table is not None:          # the table's own rule wins over any release
                mine = self.still_to_play(table) | set(hidden)
                visible -= mine
                reasons = {b: "your_table" for b in mine}
        out = results_payload(self.session, visible, schedule=self.schedule, completed=completed, started=started,
                              table_ids=self.table_ids, reasons=reasons, scored=self._scored(visible))
        out.update({"event": self.summary(), "view": "director" if v.role == "director" else
                    "table" if v.role == "seat" else "public", "table": v.table if v.role == "seat" else None,
                    "revision": self.revision, "progress": self.progress(completed)})
        if v.role == "director":
            out["alerts"] = list(self.alerts)
        self._views = {k: e for k, e in self._views.items() if e[0] == self.revision}
        self._views[key] = (self.revision, out)
        return out

    def _scored(self, visible: set[int]) -> Session:
        """The session restricted to ``visible`` (shared by every view with the same boards, per revision)."""
        with_results = {b for (_t, b) in self.entered}
        if with_results <= visible:
            return self.session
        key = (self.session.revision, frozenset(visible & with_results))
        if self._subset is None or self._subset[0] != key:
            self._subset = (key, session_subset(self.session, key[1]))
        return self._subset[1]

    def next_board(self, table_id: str, number: int) -> int:
        """For the simulated tables: the board after ``number`` at ``table_id`` in the movement's order (round
        by round); after the table's last board, on past the event's boards."""
        if table_id not in self.where:
            return number + 1
        # the table's order, built once: a 500-table Mitchell has 500 rounds and 1,000 boards, and building it
        # at every board of every table kept the service from starting
        known = self._orders.get(table_id)
        if known is None:
            plan, mt = self.where[table_id]
            order: list[int] = []
            seen: set[int] = set()
            for r in plan.movement.rounds:
                for b in _expected(plan.movement, mt, r):
                    if b not in seen:
                        seen.add(b)
                        order.append(b)
            known = self._orders[table_id] = (order, {b: i for i, b in enumerate(order)})
        order, index = known
        if number == 0 and order:
            return order[0]
        i = index.get(number)
        if i is not None and i + 1 < len(order):
            return order[i + 1]
        return max(number, self._last_board) + 1
