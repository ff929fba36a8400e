"""The public screen: the live-results view (travellers, rankings, progress) with, for every board the public
may see, its four hands and its double-dummy analysis (tricks per declarer and strain, par), pushed over
``/ws/results`` whenever it changes and served over ``GET /api/public/results``.

Who sees what is decided elsewhere and only read here: the event's view (``LiveTournament.view``,
``service/event/public_results.py``) or, without an event, the released boards (``Club.results``), both under the
movement's rule (``service/event/board_rule.py``). Hands and the double-dummy figures are added only to a board the
anonymous public may see (released, and not in play at any table unless the director released it), and only
when the regulation shows hands at all (``spectators.hands`` is not ``"never"``): a board not yet public
shows no hand and no par anywhere, whoever asks. A board's hands are its deal as ``HandRecords.deals`` gives it
(``service/event/hand_records.py``): the evening's hand record when the event has a set, else the deal a table read.

The analysis (endplay's solver, through ``table/handrecords/sheets.py``) is computed once per deal, in a
worker thread so the event loop never waits for it; until it is ready the board shows its hands without the
figures, and the push follows when they arrive (the view's ``revision`` counts the analyses done, so a
``since=`` poll sees the change too).
"""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from service.event.analyses import Analyses, DealKey, figures
from service.event.hand_records import HandRecords
from service.event.tournament import LiveTournament
from service.live import patches
from service.live.club import Club
from service.live.fanout import Fanout, Message, Patch
from service.live.hub import Subscriber
from service.live.runtime import TableRuntime
from service.live.visibility import NOTHING, SPECTATOR, BoardRule, Viewer
from service.store.journal import Row
from table.cards import SEATS, Deal, sort_cards
from table.events import TableEvent

log = logging.getLogger(__name__)

RECHECK_S = 1.0                              # a change no listener reports is seen within this


@dataclass(frozen=True)
class _Version:
    """A viewer kind's latest results view: what it was built at, its number, its pieces and its whole message."""
    stamp: tuple[int, int, int]
    seq: int
    pieces: patches.Pieces
    whole: Message


def _whole(seq: int, p: patches.Pieces) -> Message:
    return Message(f'{{"type":"results","seq":{seq},"results":{patches.whole(p)}}}')


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
        self._versions: dict[str, _Version] = {}           # viewer kind -> its latest version
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
        deals = self.hand_records.deals() if shown else {}      # once per view, not a scan of the tables per board
        boards = []
        for entry in base["boards"]:
            n = entry["board"]
            r = deals.get(n) if entry.get("visible") and n in shown else None
            key: DealKey | None = (n, r.deal, r.dealer, r.vulnerable) if r is not None else None
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

    @staticmethod
    def _kind(v: Viewer) -> str:
        return f"{v.table}:{v.key}" if v.role == "seat" else v.key

    def subscribe(self, sub: Subscriber) -> None:
        """A new subscriber gets its kind's current version whole at once, then every change as a patch."""
        greeting = self._greeting(sub.viewer)
        self._subs.add(sub)
        if greeting is not None:
            sub.offer_state("results", greeting)
        if self._task is None or self._task.done():
            self._wake = asyncio.Event()
            self._task = asyncio.get_running_loop().create_task(self._run())

    def _stamp(self) -> tuple[int, int, int]:
        return self.revision(), self.club.club_seq, sum(rt.seq for rt in self.club.tables.values())

    def _greeting(self, v: Viewer) -> Message | None:
        """The kind's latest version whole, brought up to date first if anything moved since it was built (its
        other subscribers then receive the change, so that every one of them holds the same version): a thousand
        spectators connecting must not build (and encode) the whole results screen a thousand times."""
        kind = self._kind(v)
        known = self._versions.get(kind)
        if known is None or known.stamp != self._stamp():
            self._advance(kind, v, [s for s in self._subs if self._kind(s.viewer) == kind])
            known = self._versions.get(kind)
        return known.whole if known is not None else None

    def _advance(self, kind: str, v: Viewer, subs: list[Subscriber]) -> None:
        """Build ``kind``'s view anew; if it changed (the revision alone does not count), number it as the kind's
        next version and hand ``subs`` the change: a patch, or the view whole if that is not much larger."""
        stamp = self._stamp()
        try:
            new = patches.pieces(self.view(v))
        except Exception:                         # a view bug must not stop the others' delivery
            log.exception("results view for %s failed", kind)
            return
        old = self._versions.get(kind)
        if old is not None and not patches.changed(old.pieces, new, ignore=("revision",)):
            # nothing to push; a greeting from now on shows the newest revision under the same number
            self._versions[kind] = _Version(stamp, old.seq, new, _whole(old.seq, new))
            return
        seq = old.seq + 1 if old is not None else 1
        version = self._versions[kind] = _Version(stamp, seq, new, _whole(seq, new))
        if not subs:
            return
        if old is None:
            self.fanout.send(subs, "results", version.whole)
            return
        text = (f'{{"type":"results_patch","from":{old.seq},"seq":{seq},"set":['
                + ",".join(patches.ops(old.pieces, new)) + "]}")
        self.fanout.send(subs, "results", Patch(text, version.whole) if 2 * len(text) < len(version.whole)
                         else version.whole)

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
        """Every viewer kind's view built and encoded once, its change handed to every subscriber of that kind in
        slices (``service/live/fanout.py``)."""
        audiences: dict[str, list[Subscriber]] = {}
        for sub in self._subs:
            audiences.setdefault(self._kind(sub.viewer), []).append(sub)
        for kind, subs in audiences.items():
            self._advance(kind, subs[0].viewer, subs)

    def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
        self.fanout.close()
        self.analyses.close()
