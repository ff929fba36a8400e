"""The dealing machine in the console: the evening's hand records dealt and verified card by card.

The director names the machine (a serial port such as ``/dev/ttyUSB0``, ``socket://HOST:PORT``, or ``sim``: a
simulated machine, offered only when the service runs simulated tables). The machine deals the evening's hand
records (``service/event/hand_records.py``) and nothing else: the host tells it each card's pocket
(DEAL_BOARD), so there is no set but the one sent, and a service without hand records refuses to deal.

The driver (``drivers/dealer.py``, the same ``deal_set`` as ``bridgetable deal verify``) runs on a worker
thread of its own: it blocks while it reads the machine and while the volunteer fixes a board, and the
service's event loop never waits for it. Everything it reports (each problem as its card is read, each board's
verification, a board waiting for the volunteer's fix) becomes a snapshot of the run, pushed to the director's
``/ws/club`` stream as ``{"type": "dealing", ...}`` and read by ``GET /api/event/dealing``. A board that failed
waits for the director's answer (``decide``): ``continue`` (the volunteer did what the console said), ``redeal``
(the cards are back in the machine), ``skip`` or ``abort``.

At the end the dealt set is compared with the evening's hand records: for each board, the cards where the
machine read them, with the console's corrections applied on a board fixed by hand. Equal, the boards on the
tables are the hand records; otherwise the console names the boards to deal again. A run that ends is
journalled (club row ``dealing``), so a restart still shows what was dealt and fixed.
"""
from __future__ import annotations

import asyncio
import logging
import queue
import threading
from collections.abc import Iterable
from typing import Any

from drivers.dealer import BoardResult, BoardStop, BoardVerifier, DealerDriver, Decision, Problem
from drivers.errors import DriverError
from service.config.settings import Settings
from service.errors import Conflict, Invalid, NotFound
from service.event.hand_records import HandRecord, HandRecords
from service.live.club import Club
from service.live.hub import Hub
from service.store.journal import CLUB, Row
from table.board import Vulnerability
from table.cards import CardError, Deal, Seat
from table.handrecords.base import HandRecordBoard
from table.texts import Text, translatable

log = logging.getLogger(__name__)

SIMULATED = "sim"
MAX_LOG = 200                  # problems kept in the snapshot (a whole evening's worth; older ones drop)
FIXES = ("WRONG_POCKET", "WRONG_CARD", "MISSING_CARD")    # problems whose card the volunteer puts where it belongs


def decided(decision: str, board: int) -> Text:
    """The log's line for the director's ``decision`` on ``board`` (retry: the board was not dealt)."""
    return {"continue": Text("dealing.decided_continue", "Board {board}: fixed by hand as the console said; the "
                             "dealing goes on.", board=board),
            "redeal": Text("dealing.decided_redeal", "Board {board}: the cards are back in the machine; it is dealt "
                           "again.", board=board),
            "retry": Text("dealing.decided_retry", "Board {board}: done as the console said; it is dealt again.",
                          board=board),
            "skip": Text("dealing.decided_skip", "Board {board}: skipped; deal it later.", board=board),
            "abort": Text("dealing.decided_abort", "Board {board}: the dealing was stopped.", board=board)}[decision]


def as_board(r: HandRecord) -> HandRecordBoard:
    return HandRecordBoard.of(r.board, Deal.from_pbn(r.deal), r.dealer, Vulnerability(r.vulnerable))


def dealt_deal(read: dict[str, str], fixes: list[Problem]) -> Deal | None:
    """The board's four pockets: each card where the machine read it, then moved as the console told the
    volunteer (a card in the wrong pocket to its own, a missing card into its owner's pocket). None when
    that is not a whole deal."""
    pockets = dict(read)
    for p in fixes:
        if p.kind in FIXES and p.card is not None:
            pockets[p.card] = p.belongs or p.pocket or pockets.get(p.card, "")
    hands: dict[str, list[str]] = {s: [] for s in "NESW"}
    for card, seat in pockets.items():
        if seat in hands:
            hands[seat].append(card)
    try:
        return Deal({Seat(s): cards for s, cards in hands.items()})
    except CardError:
        return None


class _ReadingDealer(DealerDriver):
    """The driver, keeping where the machine put each card of each board's last attempt, and that attempt's
    problems (a redeal leaves the first attempt's behind)."""

    def __init__(self, url: str, **kwargs: Any) -> None:
        super().__init__(url, **kwargs)
        self.read: dict[int, dict[str, str]] = {}
        self.last_problems: dict[int, list[Problem]] = {}

    def deal_board(self, record: HandRecordBoard, **kwargs: Any) -> BoardVerifier:
        v = super().deal_board(record, **kwargs)
        self.read[record.board] = {card: pocket for card, (pocket, _uid) in v.dealt.items()}
        self.last_problems[record.board] = list(v.problems)
        return v


def _words(err: Exception) -> str:
    """An error's message, its Text when it is one (a page words the run's ``error`` by its ``error_parts``)."""
    return err.args[0] if err.args and isinstance(err.args[0], str) else str(err)


def _problem(p: Problem) -> dict[str, Any]:
    return {"board": p.board, "kind": p.kind, "message": p.message, **translatable(p.message, "message"),
            "blocking": p.blocking, "card": p.card, "pocket": p.pocket, "belongs": p.belongs}


class DealingRun:
    """One run of the machine over the set: its state, kept by the worker thread, read by the loop."""

    def __init__(self, number: int, machine: str, records: list[HandRecord], event: str = "") -> None:
        self.event = event                 # the event's ``since``: a run belongs to the event it dealt for
        self.number = number               # the service's runs, counted: a page tells a new run from an old one
        self.version = 0                   # counted up at each push: a page keeps the newest snapshot it got
        self.machine = machine
        self.records = records
        self.state = "connecting"          # connecting, dealing, waiting, done, failed
        self.device: str | None = None
        self.current: int | None = None
        self.boards: dict[int, dict[str, Any]] = {r.board: {"board": r.board, "status": "to_deal", "attempts": 0,
                                                            "problems": []} for r in records}
        self.log: list[dict[str, Any]] = []
        self.stop: dict[str, Any] | None = None
        self.dealt: dict[int, str] | None = None            # board -> PBN, once the run is over
        self.fixed: list[int] = []
        self.error: str | None = None
        self.decisions: queue.Queue[str] = queue.Queue()

    def to_row(self) -> dict[str, Any]:
        """What the journal keeps of a run that ended (club row ``dealing``)."""
        return {"event": self.event, "run": self.number, "machine": self.machine, "device": self.device,
                "state": self.state, "error": self.error, "boards": list(self.boards.values()), "problems": self.log,
                "dealt": {str(n): d for n, d in sorted((self.dealt or {}).items())}, "fixed": self.fixed}

    @classmethod
    def from_row(cls, body: dict[str, Any]) -> DealingRun:
        run = cls(int(body["run"]), str(body["machine"]), [], str(body["event"]))
        run.boards = {int(b["board"]): dict(b) for b in body["boards"]}
        run.device, run.state, run.error = body.get("device"), str(body["state"]), body.get("error")
        run.log = list(body.get("problems") or [])
        run.dealt = {int(n): str(d) for n, d in (body.get("dealt") or {}).items()}
        run.fixed = [int(n) for n in body.get("fixed") or []]
        return run

    def snapshot(self, records: list[HandRecord]) -> dict[str, Any]:
        """The run as it stands; its outcome against ``records``, the hand records as they are now."""
        done = sum(1 for b in self.boards.values() if b["status"] != "to_deal")
        outcome = compare(self.dealt, self.fixed, records) if self.dealt is not None else None
        return {"run": self.number, "version": self.version, "state": self.state, "machine": self.machine,
                "device": self.device, "current": self.current,
                "total": len(self.boards), "done": done, "boards": [dict(b) for b in self.boards.values()],
                "problems": list(self.log), "stop": self.stop, "outcome": outcome, "error": self.error,
                **translatable(self.error or "", "error")}


def compare(dealt: dict[int, str], fixed: list[int], records: list[HandRecord]) -> dict[str, Any]:
    """The dealt set against the evening's hand records as they are now (replaced since, they differ)."""
    now = {r.board: Deal.from_pbn(r.deal) for r in records}
    differ = sorted(n for n, d in dealt.items() if n not in now or now[n] != Deal.from_pbn(d))
    not_dealt = sorted(n for n in now if n not in dealt)
    equal = not differ and not not_dealt
    message: Text
    if equal:
        message = (Text("dealing.equal", "The dealt set is the evening's hand records: {count} boards, every card "
                        "checked", count=len(dealt))
                   + (Text("dealing.equal_fixed", " (fixed by hand as the console said: board {boards}).",
                           boards=", ".join(map(str, fixed))) if fixed else "."))
    else:
        message = Text("dealing.differs", "The dealt set is not yet the evening's hand records (")
        if not_dealt:
            message += Text("dealing.not_dealt", "not dealt: board {boards}", boards=", ".join(map(str, not_dealt)))
        if differ:
            message += ("; " if not_dealt else "") + Text("dealing.different", "different from the hand records: "
                                                          "board {boards}", boards=", ".join(map(str, differ)))
        message += Text("dealing.differs_end", "): deal those boards again.")
    return {"equal": equal, "message": message, **translatable(message, "message"),
            "dealt": {str(n): d for n, d in sorted(dealt.items())},
            "fixed_by_hand": fixed, "not_dealt": not_dealt, "differ": differ}


class DealingDesk:
    """The console's dealing machine: at most one run at a time, on its own thread."""

    def __init__(self, club: Club, hub: Hub, hand_records: HandRecords, settings: Settings) -> None:
        self.club = club
        self.hub = hub
        self.hand_records = hand_records
        self.settings = settings
        self.run: DealingRun | None = None
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._closing = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ended: dict[str, DealingRun] = {}               # event's since -> its last run that ended

    def load(self, rows: Iterable[Row]) -> DealingDesk:
        """The last run of each event from the journal: a restart still shows what was dealt and fixed."""
        for row in rows:
            if row.table_id == CLUB and row.kind == "dealing":
                run = DealingRun.from_row(row.body)
                self._ended[run.event] = run
        return self

    def _shown(self) -> DealingRun | None:
        """The running event's run: the one on now, else its last that ended."""
        ev = self.hand_records.event
        since = ev.since if ev is not None else None
        if self.run is not None and self.run.event == since:
            return self.run
        return self._ended.get(since) if since is not None else None

    # ------------------------------------------------------------------ the console's requests
    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            run = self._shown()
            return run.snapshot(self.hand_records.all()) if run is not None else {"state": "idle"}

    async def start(self, machine: str, faults: str | None = None, connect_timeout: float = 5.0) -> dict[str, Any]:
        """Deal the evening's hand records on ``machine``; answers once the machine is connected (``Conflict``
        when it cannot be reached within ``connect_timeout`` seconds: nothing was dealt)."""
        if self.hand_records.event is None:
            raise NotFound(Text("refusal.dealing_no_event", "no event is set up: set up the event and import its hand "
                                "records first"))
        records = self.hand_records.all()
        if not records:
            raise Conflict(Text("refusal.dealing_no_records", "the evening has no hand records: the machine deals the "
                                "hand records, so import the session's file or generate a set first"))
        machine = machine.strip()
        sim_kwargs = self._simulated(machine, faults)
        with self._lock:
            if self.run is not None and self.run.state in ("connecting", "dealing", "waiting"):
                raise Conflict(Text("refusal.dealing_busy", "the machine is already dealing (board {board}): finish or "
                                    "abort that run first", board=self.run.current or "-"))
            number = max([r.number for r in (self.run, *self._ended.values()) if r is not None], default=0) + 1
            run = self.run = DealingRun(number, "simulated machine" if sim_kwargs is not None else machine, records,
                                        self.hand_records.event.since)
        self._loop = asyncio.get_running_loop()
        connected: asyncio.Future[str | None] = self._loop.create_future()
        self._thread = threading.Thread(target=self._work, args=(run, machine, sim_kwargs, connect_timeout,
                                                                 connected), name="dealing-machine", daemon=True)
        self._thread.start()
        why = await connected
        if why is not None:
            raise Conflict(why)
        return self.snapshot()

    def decide(self, board: int, decision: str) -> dict[str, Any]:
        """The volunteer's fix for the board waiting (``continue``, ``redeal``, ``skip``, ``abort``)."""
        with self._lock:
            run = self._shown()
            stop = run.stop if run is not None else None
            if run is None or stop is None:
                raise Conflict(Text("refusal.dealing_no_stop", "no board is waiting for a decision"))
            if stop["board"] != board:
                raise Conflict(Text("refusal.dealing_other_stop", "board {board} is waiting, not board {board2}",
                                    board=stop["board"], board2=board))
            if decision not in stop["choices"]:
                raise Invalid(Text("refusal.dealing_choice", "'{decision}' is not a choice for board {board} now "
                                   "({choices})", decision=decision, board=board,
                                   choices=", ".join(stop["choices"])))
            run.stop = None
            run.state = "dealing"
            line = decided(decision if decision != "continue" or "redeal" in stop["choices"] else "retry", board)
            run.log.append({"board": board, "kind": "DECISION", "decision": decision, "blocking": False,
                            "message": line, **translatable(line, "message")})
            del run.log[:-MAX_LOG]
            run.decisions.put(decision)
        self._push(run)
        return self.snapshot()

    async def close(self) -> None:
        """The service stops: a board waiting is aborted, the machine's link closed."""
        self._closing.set()
        run = self.run
        if run is not None:
            run.decisions.put(Decision.ABORT.value)
        if self._thread is not None:
            await asyncio.to_thread(self._thread.join, 10)

    # ------------------------------------------------------------------ the worker thread
    def _simulated(self, machine: str, faults: str | None) -> dict[str, Any] | None:
        if machine.lower() != SIMULATED:
            if faults:
                raise Invalid(Text("refusal.dealing_faults_sim", "faults are for the simulated machine only "
                                   '(machine "sim")'))
            if not machine:
                raise Invalid(Text("refusal.dealing_name", "name the dealing machine: its serial port "
                                   "(e.g. /dev/ttyUSB0) or socket://HOST:PORT"))
            return None
        if not self.settings.simulation.tables:
            raise Conflict(Text("refusal.dealing_sim_only", "a simulated dealing machine is offered only when "
                                "the service runs simulated tables (make run); give the real machine's serial port"))
        from hw_sim.dealer_sim import DealerFaults
        from hw_sim.errors import DealerFaultError
        try:
            DealerFaults.parse(faults)
        except DealerFaultError as err:
            raise Invalid(str(err)) from None
        return {"faults": faults}

    def _push(self, run: DealingRun) -> None:
        with self._lock:
            run.version += 1
            msg = {"type": "dealing", **run.snapshot(self.hand_records.all())}
        self._call(self.hub.publish, CLUB, msg, ("director",))

    def _call(self, fn: Any, *args: Any) -> None:
        """``fn(*args)`` on the service's loop (the hub and the futures belong to it)."""
        loop = self._loop
        try:
            if loop is not None:
                loop.call_soon_threadsafe(fn, *args)
        except RuntimeError:                      # the loop has closed: the service is gone
            pass

    def _set(self, run: DealingRun, **changes: Any) -> None:
        with self._lock:
            for k, v in changes.items():
                setattr(run, k, v)
        self._push(run)

    def _work(self, run: DealingRun, machine: str, sim_kwargs: dict[str, Any] | None, connect_timeout: float,
              connected: asyncio.Future[str | None]) -> None:
        def settle(why: str | None) -> None:
            if not connected.done():
                connected.set_result(why)

        def answer(why: str | None) -> None:
            self._call(settle, why)

        from drivers.decks import DeckRegistry
        sim = None
        kwargs: dict[str, Any] = {}
        try:
            if sim_kwargs is not None:
                from hw_sim.dealer_sim import SimulatedDealer
                sim = SimulatedDealer("inproc", sim_kwargs["faults"])
                kwargs = sim.driver_kwargs(DeckRegistry())
                machine = sim.url
            elif self.settings.decks:
                kwargs["decks"] = DeckRegistry.load(self.settings.decks)
            driver = _ReadingDealer(machine, **kwargs)
        except (DriverError, OSError) as err:
            self._set(run, state="failed", error=_words(err))
            answer(Text("refusal.dealing_unusable", "the dealing machine cannot be used: {error}", error=err))
            if sim is not None:
                sim.close()
            return
        started, error = False, None
        try:
            try:
                driver.pump(0.05)
                if not driver.connected and driver.open_failures:     # no such port: say so now, not in 5 s
                    raise DriverError(Text("refusal.dealing_cannot_open", "the dealing machine at {machine} cannot be "
                                           "opened ({error})", machine=machine, error=driver.last_error))
                driver.wait_ready(connect_timeout)
            except DriverError as err:
                self._set(run, state="failed", error=_words(err))
                answer(_words(err))                 # a Text stays one
                return
            self._set(run, state="dealing", device=driver.serial)
            answer(None)
            started = True
            driver.deal_set([as_board(r) for r in run.records], operator=lambda stop: self._wait(run, stop),
                            on_problem=lambda p: self._problem(run, p),
                            progress=lambda _k, _n, result: self._board_done(run, result), timeout=30.0)
        except DriverError as err:
            log.warning("dealing on %s stopped: %s", machine, err)
            error = _words(err)
        except Exception as err:                # the run ends in words, never a silent dead thread
            log.exception("dealing on %s failed", machine)
            error = f"the dealing stopped: {err}"
        finally:
            answer(Text("refusal.dealing_stopped_early", "the dealing machine stopped before it connected"))
            driver.close()
            if sim is not None:
                sim.close()
            if started:
                self._end(run, driver, error)

    def _problem(self, run: DealingRun, p: Problem) -> None:
        with self._lock:
            run.current = p.board
            run.log.append(_problem(p))
            del run.log[:-MAX_LOG]
            b = run.boards.get(p.board)
            if b is not None and p.kind not in b["problems"]:
                b["problems"] = [*b["problems"], p.kind]
        self._push(run)

    def _board_done(self, run: DealingRun, result: BoardResult) -> None:
        with self._lock:
            b = run.boards.get(result.board)
            if b is not None:
                b.update(status=result.status, attempts=result.attempts,
                         problems=sorted({p.kind for p in result.problems}))
            later = [n for n, x in run.boards.items() if x["status"] == "to_deal"]
            run.current = later[0] if later else None
        self._push(run)

    def _wait(self, run: DealingRun, stop: BoardStop) -> str:
        """A board failed: show the volunteer's instructions and wait for the director's answer."""
        if self._closing.is_set():
            return Decision.ABORT.value
        self._set(run, state="waiting", current=stop.board, stop={
            "board": stop.board, "attempt": stop.attempt, "message": stop.message,
            **translatable(stop.message, "message"),
            "choices": [c.value for c in stop.choices], "problems": [_problem(p) for p in stop.problems]})
        return run.decisions.get()

    def _end(self, run: DealingRun, driver: _ReadingDealer, error: str | None) -> None:
        """The run is over (finished, aborted or the machine lost: ``error``): its dealt set, journalled (club
        row ``dealing``) so that a restart still shows what was dealt."""
        dealt: dict[int, str] = {}
        with self._lock:
            run.state, run.error, run.current, run.stop = ("failed" if error else "done"), error, None, None
            for n, b in run.boards.items():
                if b["status"] in ("ok", "fixed_by_hand"):
                    fixes = driver.last_problems.get(n, []) if b["status"] == "fixed_by_hand" else []
                    deal = dealt_deal(driver.read.get(n, {}), fixes)
                    if deal is not None:
                        dealt[n] = deal.to_pbn()
            run.dealt = dealt
            run.fixed = sorted(n for n, b in run.boards.items() if b["status"] == "fixed_by_hand")
            body = run.to_row()
            self._ended[run.event] = run
        self._push(run)
        loop = self._loop
        if loop is None:
            return
        try:
            asyncio.run_coroutine_threadsafe(self.club.append_club("dealing", body, "director"), loop).result(30)
        except Exception:                       # the run stays on screen; the journal reports its own failure
            log.exception("the dealing run could not be journalled")


