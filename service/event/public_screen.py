"""The public screen: the live-results view (travellers, rankings, progress) with, for every board the public
may see, its four hands and its double-dummy analysis (tricks per declarer and strain, par), pushed over
``/ws/results`` whenever it changes and served over ``GET /api/public/results``.

Who sees what is decided elsewhere and only read here: the event's view (``LiveTournament.view``,
``service/event/public_results.py``) or, without an event, the released boards (``Club.results``), both under the
movement's rule (``service/event/board_rule.py``). Hands and the double-dummy figures are added only to a board the
anonymous public may see (released, and not in play at any table unless the director released it), and only
when the regulation shows hands at all (``spectators.hands`` is not ``"never"``): a board not yet public
shows no hand and no par anywhere, whoever asks. A board's hands are its deal as ``HandRecords.deal`` gives it
(``service/event/hand_records.py``): the evening's hand record when the event has a set, else the deal a table read.

The analysis (endplay's solver, through ``table/handrecords/sheets.py``) is computed once per deal, in a
worker thread so the event loop never waits for it; until it is ready the board shows its hands without the
figures, and the push follows when they arrive (the view's ``revision`` counts the analyses done, so a
``since=`` poll sees the change too).
"""
from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from typing import Any

from service.event.analyses import Analyses, DealKey, figures
from service.event.hand_records import HandRecords
from service.event.tournament import LiveTournament
from service.live.club import Club
from service.live.fanout import Fanout, Message
from service.live.hub import Subscriber
from service.live.runtime import TableRuntime
from service.live.visibility import NOTHING, SPECTATOR, BoardRule, Viewer
from service.store.journal import Row
from table.cards import SEATS, Deal, sort_cards
from table.events import TableEvent

log = logging.getLogger(__name__)

RECHECK_S = 1.0                              # a change no listener reports is seen within this


class PublicScreen:
    def __init__(self, club: Club, rule: Callable[[], BoardRule | None],
                 tournament: Callable[[], LiveTournament | None], hand_records: HandRecords | None = None,
                 analyses: Analyses | None = None) -> None:
        self.club = club
        self.hand_records = hand_records or HandRecords(club, tournament)   # each board's deal (``deal``)
        self._rule = rule                     # getters: the director may set up the event while the service runs
        self._tournament = tournament
        self.analyses = analyses or Analyses()               # shared with the hand-record sheets
        self.analyses.on_ready.append(self.wake)
        self._subs: set[Subscriber] = set()
        self.fanout = Fanout()
        self._last: dict[str, str] = {}                   # viewer kind -> the view last sent (no revision)
        self._greeted: dict[str, tuple[tuple[int, int, int], str]] = {}   # kind -> (what it was built at, message)
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        club.listeners.append(self._on_row)
        club.club_listeners.append(lambda row: self.wake())      # a release, a round, the event: at once

    @property
    def rule(self) -> BoardRule | None:
        return self._rule()

    @property
    def tournament(self) -> LiveTournament | None:
        return self._tournament()

    # ------------------------------------------------------------------ what the public may see
    def public_hands(self) -> set[int]:
        """Boards whose hands and figures anyone may see: public under the release rule and, under the
        movement's rule, not in play at any table (unless the director released them)."""
        if self.club.regulation.spectators.hands == "never":
            return set()
        ev, rule = self.tournament, self.rule
        if ev is not None:
            public = ev.public()
        else:
            tables = list(self.club.tables.values())
            public = {n for rt in tables for n in rt.released}
        hidden = rule.hidden(SPECTATOR) if rule is not None else NOTHING
        return {b for b in public if b not in hidden}

    def _deal(self, board: int) -> DealKey | None:
        r = self.hand_records.deal(board)
        return (board, r.deal, r.dealer, r.vulnerable) if r is not None else None

    def _base(self, v: Viewer) -> dict[str, Any]:
        ev, rule = self.tournament, self.rule
        if ev is None:
            return self._fallback(v)
        hidden = rule.hidden(v) if rule is not None and v.role == "seat" else NOTHING
        return ev.view(v, hidden)

    def _fallback(self, v: Viewer) -> dict[str, Any]:
        """No event configured: the released boards (``Club.results``), without pairs or rankings."""
        club, rule = self.club, self.rule
        hidden = rule.hidden(v) if rule is not None else NOTHING
        boards = []
        for b in club.results(v):
            if b["board"] in hidden:
                continue
            rows = [{"section": "", "table": e["table"], "contract": e["contract"], "declarer": e["declarer"],
                     "tricks": e["tricks"], "score_ns": e["score_ns"], "ns_percent": e["ns_percent"],
                     "ew_percent": e["ew_percent"], "adjusted": (e["adjustment"] or {}).get("kind")}
                    for e in b["results"]]
            boards.append({"board": b["board"], "visible": True, "travellers": [{"section": "", "rows": rows}]})
        revision = club.club_seq + sum(rt.seq for rt in club.tables.values())
        return {"event": None, "view": v.role if v.role != "seat" else "table", "table": v.table,
                "revision": revision, "boards": boards, "rankings": [], "progress": []}

    def revision(self) -> int:
        """Moves whenever the view may have changed (the event's or the club's rows, an analysis done)."""
        ev = self.tournament
        base = ev.revision if ev is not None else \
            self.club.club_seq + sum(rt.seq for rt in self.club.tables.values())
        return base + self.analyses.count

    def view(self, v: Viewer) -> dict[str, Any]:
        """What ``v`` sees on the results screen: the release rule's view, with hands and the double-dummy
        figures of the boards the public may see."""
        base = self._base(v)
        shown = self.public_hands()
        boards = []
        for entry in base["boards"]:
            n = entry["board"]
            key = self._deal(n) if entry.get("visible") and n in shown else None
            if key is None:
                boards.append(entry)
                continue
            _b, pbn, dealer, vul = key
            deal = Deal.from_pbn(pbn)
            extra: dict[str, Any] = {"dealer": dealer, "vulnerable": vul,
                                     "hands": {str(s): sort_cards(deal.hands[s]) for s in SEATS}}
            dd = self.analyses.get(key)
            if dd is not None:
                extra["dd"] = figures(dd)
            boards.append({**entry, "deal": extra})
        return {**base, "boards": boards, "revision": self.revision()}

    # ------------------------------------------------------------------ the push (/ws/results)
    def _on_row(self, rt: TableRuntime, row: Row, event: TableEvent | None) -> None:
        self.wake()

    def wake(self) -> None:
        if self._wake is not None:
            self._wake.set()

    def message(self, v: Viewer) -> tuple[str, str]:
        """The message for ``v``, and its view without the revision (an unchanged view is not sent again)."""
        view = self.view(v)
        content = json.dumps({k: x for k, x in view.items() if k != "revision"}, separators=(",", ":"), default=str)
        return json.dumps({"type": "results", "results": view}, separators=(",", ":"), default=str), content

    @staticmethod
    def _kind(v: Viewer) -> str:
        return f"{v.table}:{v.key}" if v.role == "seat" else v.key

    def subscribe(self, sub: Subscriber) -> None:
        """A new subscriber gets the current view at once, then every change."""
        self._subs.add(sub)
        sub.offer_state("results", self._greeting(sub.viewer))
        if self._task is None or self._task.done():
            self._wake = asyncio.Event()
            self._task = asyncio.get_running_loop().create_task(self._run())

    def _greeting(self, v: Viewer) -> str:
        """The current message for ``v``, built once per viewer kind while nothing moved: a thousand spectators
        connecting must not build (and encode) the whole results screen a thousand times."""
        kind = self._kind(v)
        stamp = (self.revision(), self.club.club_seq, sum(rt.seq for rt in self.club.tables.values()))
        known = self._greeted.get(kind)
        if known is not None and known[0] == stamp:
            return known[1]
        text = Message(self.message(v)[0])
        self._greeted[kind] = (stamp, text)
        return text

    def unsubscribe(self, sub: Subscriber) -> None:
        self._subs.discard(sub)

    async def _run(self) -> None:
        assert self._wake is not None
        seen = self.revision()
        while self._subs:
            try:
                await asyncio.wait_for(self._wake.wait(), RECHECK_S)
            except TimeoutError:
                pass
            self._wake.clear()
            now = self.revision()
            if now != seen:
                seen = now
                self._publish()

    def _publish(self) -> None:
        """The view built and encoded once per viewer kind, its bytes handed to every subscriber of that kind in
        slices (``service/live/fanout.py``)."""
        audiences: dict[str, list[Subscriber]] = {}
        for sub in self._subs:
            audiences.setdefault(self._kind(sub.viewer), []).append(sub)
        for kind, subs in audiences.items():
            try:
                text, content = self.message(subs[0].viewer)
            except Exception:                         # a view bug must not stop the others' delivery
                log.exception("results view for %s failed", kind)
                continue
            unchanged = self._last.get(kind) == content
            self._last[kind] = content
            if not unchanged:
                self.fanout.send(subs, "results", Message(text))

    def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
        self.fanout.close()
        self.analyses.close()
