"""The evening's hand records: for each board of the running event its deal, dealer and vulnerability.

One store for every source (a scoring program over the Data Connector, the console's import or secure set, the
demonstration's set), and the one place that says which deal a board has (``deal``): the hand-record sheets, the
public screen's hands and analysis and the result exports all read it. A set is
journalled as a club row ``hand_records`` tied to its event (the event's ``since``), so a restart rebuilds it and
an earlier event's set never applies to a new one. A set names exactly the event's boards (none missing, none
extra, none twice) and may be replaced only until the event's first board starts.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from service.errors import Conflict, Invalid
from service.event.tournament import LiveTournament
from service.live.club import Club
from service.store.journal import CLUB, Row
from table.board import dealer_for, vulnerability_for
from table.cards import CardError, Deal
from table.texts import Text


@dataclass(frozen=True)
class HandRecord:
    board: int
    deal: str            # PBN, North first
    dealer: str
    vulnerable: str


def record(board: int, deal: str, dealer: str | None = None, vulnerable: str | None = None) -> HandRecord:
    """A board's record from a PBN deal (``Invalid`` if it is not 52 cards in four hands of 13); dealer and
    vulnerability default to the board number's (Law 2)."""
    try:
        pbn = Deal.from_pbn(deal).to_pbn()
    except (CardError, ValueError) as err:
        why = err.args[0] if err.args and isinstance(err.args[0], str) else str(err)    # a Text: a page words it
        raise Invalid(Text("refusal.not_a_deal", "board {board}: not a deal: ", board=board) + why) from None
    return HandRecord(board, pbn, dealer or str(dealer_for(board)), vulnerable or str(vulnerability_for(board)))


def _listed(numbers: list[int]) -> str:
    return ", ".join(map(str, numbers))


class HandRecords:
    """The journalled sets; ``hand_record(board)`` reads the running event's."""

    def __init__(self, club: Club, event: Callable[[], LiveTournament | None]) -> None:
        self.club = club
        self._event = event                                    # the running event, whichever it is now
        self._sets: dict[str, dict[int, HandRecord]] = {}     # event's since -> board -> record
        self._sources: dict[str, str] = {}                    # event's since -> file name, "generated", ...
        self.on_change: list[Callable[[], None]] = []         # called after a set is put (e.g. analyse its deals)

    def load(self, rows: Iterable[Row]) -> HandRecords:
        for row in rows:
            self.apply_row(row)
        return self

    def apply_row(self, row: Row) -> None:
        if row.table_id == CLUB and row.kind == "hand_records":
            self._sets[str(row.body["event"])] = {int(b["board"]): HandRecord(int(b["board"]), str(b["deal"]),
                                                                               str(b["dealer"]), str(b["vulnerable"]))
                                                  for b in row.body["boards"]}
            self._sources[str(row.body["event"])] = str(row.body.get("source") or "")

    @property
    def event(self) -> LiveTournament | None:
        return self._event()

    def _current(self) -> dict[int, HandRecord]:
        ev = self.event
        return self._sets.get(ev.since, {}) if ev is not None else {}

    def hand_record(self, board: int) -> HandRecord | None:
        return self._current().get(board)

    def source(self) -> str | None:
        """Where the running event's set came from (a file name, ``generated``, ``dealing machine``, the
        scoring program); None while there is none."""
        ev = self.event
        return self._sources.get(ev.since) if ev is not None and ev.since in self._sets else None

    def all(self) -> list[HandRecord]:
        return [r for _n, r in sorted(self._current().items())]

    def deals(self) -> dict[int, HandRecord]:
        """Each board's deal as the sheets, the public screen and the exports print it, by board number: the
        evening's hand record when the event has one, else the deal the first table (in table order) that dealt
        the board read. One pass over what the tables started (linear in it)."""
        found: dict[int, HandRecord] = {}
        for tid in sorted(self.club.tables, key=lambda t: (len(t), t)):         # table order: "2" before "10"
            for n, rec in self.club.tables[tid].boards.items():
                if rec.deal and n not in found:
                    found[n] = HandRecord(n, str(rec.deal), rec.dealer, rec.vulnerable)
        found.update(self._current())                                          # the hand record wins
        return dict(sorted(found.items()))

    def check(self, records: list[HandRecord]) -> None:
        """``Invalid`` unless ``records`` are the event's boards, each once; ``Conflict`` once play began."""
        ev = self.event
        if ev is None:
            raise Conflict(Text("refusal.records_no_event", "no event is set up: hand records belong to an event's "
                                "boards"))
        numbers = Counter(r.board for r in records)
        twice = sorted(n for n, k in numbers.items() if k > 1)
        boards = set(ev.schedule)
        missing, extra = sorted(boards - set(numbers)), sorted(set(numbers) - boards)
        # each problem a keyed piece (not an English parameter), joined with "; " as before
        problems = ([Text("refusal.records_twice", "board(s) given twice: {boards}", boards=_listed(twice))]
                    if twice else []) + \
                   ([Text("refusal.records_missing", "missing board(s): {boards}", boards=_listed(missing))]
                    if missing else []) + \
                   ([Text("refusal.records_extra", "board(s) not in the event: {boards}", boards=_listed(extra))]
                    if extra else [])
        if problems:
            message: str = Text("refusal.records_mismatch", "the hand records do not match the event's boards: ")
            for k, problem in enumerate(problems):
                message = message + ("; " if k else "") + problem
            raise Invalid(message)
        if ev.has_play():
            raise Conflict(Text("refusal.records_started", "the event's first board has started: its hand "
                                "records can no longer be replaced"))

    async def put(self, records: list[HandRecord], actor: str = "director", source: str = "") -> Row:
        """Journal ``records`` as the running event's set (checked first: nothing changes when refused)."""
        self.check(records)
        ev = self.event
        assert ev is not None
        boards = [{"board": r.board, "deal": r.deal, "dealer": r.dealer, "vulnerable": r.vulnerable}
                  for r in sorted(records, key=lambda r: r.board)]
        body: dict[str, Any] = {"event": ev.since, "boards": boards, "source": source or actor}
        row = await self.club.append_club("hand_records", body, actor)
        self.apply_row(row)
        for listener in self.on_change:
            listener()
        return row
