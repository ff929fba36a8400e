"""The session model: an event (pairs or teams) with its sections, movements, entrants and results,
scored board by board as results arrive, with travellers and rankings.

A :class:`Session` takes results one at a time (:meth:`Session.add_result`); each one rescores only
its board's traveller and replaces that board's contribution to the entrants' totals, so live pages
can be refreshed after every result. Every change bumps :attr:`Session.revision` and is passed to the
subscribers (:meth:`Session.subscribe`) as an :class:`Update`; results stay provisional until
:meth:`Session.publish` marks a revision official (Law 79C / 92B correction periods are the service's
clock, not ours).

Conventions (beyond :mod:`results.scoring`):

- Matchpoints are computed within a section; a board's top comes from the number of result lines it
  has in that section (Neuberg to that number; ``n_max="movement"`` factors to the number of times the
  movement says the board is played).
- Pairs ranking: the percentage of the matchpoints available on the boards played (sum of matchpoints
  over sum of tops). A two-field Mitchell (no arrow switch) ranks NS and EW separately.
- Law 88 (1997) / 12C2(c) (2017): a pair given average plus scores the higher of 60 % and its percentage
  on the boards it played that were not artificially scored; under the 2017 Laws (``laws="2017"``) a pair
  given average minus likewise scores the lower of 40 % and that percentage (``law88=False`` turns both
  off).
- IMP pairs (cross-IMPs, Butler) and total points: the sum over the boards played.
- Teams: each two-table match scores IMPs per board once both rooms are in; an artificial score in
  either room gives each team its award (+3/0/-3, Law 86A); rooms that played different forms of a
  fouled board give both teams 0 IMPs (a regulation choice, Law 87B); ``knockout=True`` averages
  non-balancing IMP results (Law 86B). Teams are ranked by total IMPs, or by victory points
  (``vp=True``, WBF continuous scale) per match.
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, NotRequired, TypedDict

from table.board import Vulnerability, vulnerability_for
from table.editions import edition
from table.scoring import parse_contract, score_ns
from table.texts import Text

from .errors import ResultEntryError, ResultsError
from .movement import Movement
from .scoring import (
    ARTIFICIAL_PERCENT,
    Artificial,
    Award,
    Line,
    LineScore,
    artificial_session_percent,
    award_imps,
    butler_board,
    cross_imps_board,
    imps,
    matchpoint_board,
    wbf_vp,
)

__all__ = ["Scoring", "Entrant", "BoardResult", "Section", "Session", "Traveller", "RankRow", "Update", "Match"]

log = logging.getLogger(__name__)


class Scoring(StrEnum):
    MATCHPOINTS = "MP"
    CROSS_IMPS = "XIMP"
    BUTLER = "BUTLER"
    TOTAL_POINTS = "TP"
    TEAMS_IMPS = "IMP"          # two-table team matches


@dataclass(frozen=True)
class Entrant:
    """A pair (two names) or a team (a name and its players). ``ids``: national ids, as the players."""
    number: int
    names: tuple[str, ...] = ()
    team_name: str | None = None
    ids: tuple[str, ...] = ()

    @property
    def display(self) -> str:
        if self.team_name:
            return self.team_name
        return " - ".join(self.names) if self.names else str(self.number)


@dataclass(frozen=True)
class BoardResult:
    """One table's result on one board: a table result (contract, declarer, tricks -> ``score_ns``),
    an assigned adjusted score (Law 12C2: ``assigned = (score NS is judged on, score EW is judged on)``,
    both from NS's side, split when they differ) or an artificial one (Law 12C1: ``artificial =
    (NS award, EW award)``). ``group`` names the form of a fouled board that was played (Law 87)."""
    board: int
    ns: int
    ew: int
    table: int | None = None
    round: int | None = None
    contract: str | None = None          # "4SX", "3NT", "PASS"
    declarer: str | None = None          # N E S W
    tricks: int | None = None            # declarer's total tricks
    lead: str | None = None              # "SA"
    score_ns: int | None = None
    assigned: tuple[int, int] | None = None
    artificial: tuple[Award, Award] | None = None
    group: str | None = None
    auction: tuple[str, ...] = ()        # the calls from the dealer on ("1S", "Pass", "X"), a board played out
    alerts: tuple[tuple[int, str], ...] = ()     # the alerted calls: (index in auction, written explanation or "")
    play: tuple[str, ...] = ()           # the cards in the order played ("SA", "HT"); the first is the lead

    def __post_init__(self) -> None:
        kinds = sum(x is not None for x in (self.score_ns, self.assigned, self.artificial))
        if kinds != 1:
            raise ResultEntryError(f"board {self.board} {self.ns} v {self.ew}: give exactly one of a table score, "
                                   "an assigned score or an artificial award")
        if self.ns == self.ew:
            raise ResultEntryError(f"board {self.board}: entrant {self.ns} cannot play itself")

    @classmethod
    def played(cls, board: int, ns: int, ew: int, contract: str, declarer: str | None = None,
               tricks: int | None = None, *, vulnerability: Vulnerability | None = None, **kw: Any) -> BoardResult:
        """A table result; the score comes from the contract (Law 77). ``contract`` ``"PASS"`` for a
        passed-out board (0); vulnerability defaults from the board number (Law 2)."""
        c = parse_contract(contract, declarer)
        if c is None:
            return cls(board, ns, ew, contract="PASS", score_ns=0, **kw)
        if declarer is None or tricks is None:
            raise ResultEntryError(f"board {board}: contract {contract} needs a declarer and tricks")
        vul = vulnerability or vulnerability_for(board)
        return cls(board, ns, ew, contract=str(c), declarer=declarer, tricks=tricks,
                   score_ns=score_ns(c, vul, tricks), **kw)

    @property
    def key(self) -> tuple[int, int, int]:
        return (self.board, self.ns, self.ew)

    @property
    def kind(self) -> str:
        return "artificial" if self.artificial else "assigned" if self.assigned else "table"

    def line(self) -> Line:
        if self.artificial:
            return Line(art_ns=self.artificial[0], art_ew=self.artificial[1], group=self.group)
        if self.assigned:
            return Line(self.assigned[0], self.assigned[1], group=self.group)
        return Line(self.score_ns, self.score_ns, group=self.group)


@dataclass
class Traveller:
    """One board's results in a section with what each line earned (same order)."""
    board: int
    results: list[BoardResult]
    scores: list[LineScore]
    top: float | None = None


@dataclass
class RankRow:
    place: int
    tied: bool
    entrant: int
    label: str
    display: str
    score: float                 # percentage (MP), IMPs (IMP pairs, teams), VPs (teams with vp), points (TP)
    total: float                 # matchpoints / IMPs summed
    top: float                   # matchpoints available (MP), else 0
    boards: int
    field: str = "all"

    @property
    def place_text(self) -> str:
        return f"{self.place}=" if self.tied else str(self.place)


class Match(TypedDict):
    """A teams match: the teams, its boards, how many are scored, the IMPs each team won, VPs with ``vp``."""
    round: int
    team: int
    opponent: int
    boards: list[int]
    boards_scored: int
    imps: float
    opponent_imps: float
    vp: NotRequired[float]
    opponent_vp: NotRequired[float]


@dataclass(frozen=True)
class Update:
    """A change to the session: what the service needs to refresh pages and queue uploads."""
    revision: int
    section: str
    board: int
    action: str                  # "added", "replaced", "removed", "published"
    result: BoardResult | None = None
    provisional: bool = True


@dataclass
class Section:
    id: str
    movement: Movement
    entrants: dict[int, Entrant] = field(default_factory=dict)
    results: dict[tuple[int, int, int], BoardResult] = field(default_factory=dict)
    travellers: dict[int, Traveller] = field(default_factory=dict)
    # entrant -> board -> (value, top, artificial award or None) for the ranking
    board_scores: dict[int, dict[int, tuple[float, float, Award | None]]] = field(default_factory=dict)

    def entrant(self, number: int) -> Entrant:
        return self.entrants.get(number) or Entrant(number)


class Session:
    """An event's session: sections with movements, scored incrementally (see the module notes)."""

    def __init__(self, name: str, scoring: Scoring | str, sections: Movement | Sequence[Section], *,
                 kind: str | None = None, date: str | None = None, site: str | None = None,
                 entrants: Iterable[Entrant] = (), deals: dict[int, str] | None = None,
                 n_max: str = "results", law88: bool = True, butler_trim: int = 1, vp: bool = False,
                 knockout: bool = False, check_boards: bool = True, laws: str | None = None) -> None:
        self.name = name
        self.laws = edition(laws).name           # the law edition of the session-percentage rule
        self.scoring = Scoring(scoring)
        if isinstance(sections, Movement):
            sections = [Section("A", sections)]
        self.sections: dict[str, Section] = {s.id: s for s in sections}
        if not self.sections:
            raise ResultsError("a session needs at least one section")
        teams = self.scoring is Scoring.TEAMS_IMPS
        self.kind = kind or ("teams" if teams else "pairs")
        if teams and any(s.movement.kind != "teams" for s in self.sections.values()):
            raise ResultsError(Text("session.teams_movement", "teams IMP scoring needs a teams movement (teams_match "
                                    "/ round_robin_teams)"))
        self.date, self.site = date, site
        self.deals: dict[int, str] = dict(deals or {})
        if n_max not in ("results", "movement"):
            raise ResultsError("n_max must be 'results' or 'movement'")
        self.n_max, self.law88, self.butler_trim = n_max, law88, butler_trim
        self.vp, self.knockout, self.check_boards = vp, knockout, check_boards
        for e in entrants:
            self.add_entrant(e)
        self.revision = 0
        self.published_revision: int | None = None
        self._subscribers: list[Callable[[Update], None]] = []

    # --------------------------------------------------------------------------- entry
    def add_entrant(self, entrant: Entrant, section: str | None = None) -> None:
        for s in ([self.sections[section]] if section else self.sections.values()):
            if section or entrant.number in s.movement.entrants:
                s.entrants[entrant.number] = entrant

    def subscribe(self, callback: Callable[[Update], None]) -> Callable[[], None]:
        """Call ``callback(update)`` after every change; returns a function that unsubscribes."""
        self._subscribers.append(callback)
        return lambda: self._subscribers.remove(callback)

    def section(self, section: str | None = None) -> Section:
        if section is None:
            if len(self.sections) != 1:
                raise ResultsError("name the section: this session has " + ", ".join(self.sections))
            return next(iter(self.sections.values()))
        try:
            return self.sections[section]
        except KeyError:
            raise ResultsError(f"no section {section!r}") from None

    def expected_boards(self, table: int, round: int, section: str | None = None) -> tuple[int, ...]:
        """The boards a table should have in a round (for the at-table wrong-board check)."""
        return self.section(section).movement.expected_boards(table, round)

    def add_result(self, result: BoardResult, section: str | None = None) -> Update:
        """Enter (or correct: same board, NS and EW) a result; rescore its board; tell subscribers."""
        sec = self.section(section)
        mv = sec.movement
        if self.check_boards:
            sitting = mv.sitting_for(result.ns, result.ew, result.board)
            if sitting is None:
                raise ResultEntryError(f"section {sec.id}: {mv.label(result.ns)} (NS) v {mv.label(result.ew)} (EW) "
                                       f"do not play board {result.board} in movement {mv.name!r}")
            if result.table is not None and result.table != sitting.table or \
                    result.round is not None and result.round != sitting.round:
                raise ResultEntryError(f"board {result.board}: the movement puts {result.ns} v {result.ew} at table "
                                       f"{sitting.table} round {sitting.round}, "
                                       f"not table {result.table} round {result.round}")
            if result.table is None or result.round is None:
                result = replace(result, table=sitting.table, round=sitting.round)
        action = "replaced" if result.key in sec.results else "added"
        sec.results[result.key] = result
        self._rescore(sec, result.board)
        return self._notify(Update(self.revision + 1, sec.id, result.board, action, result))

    def add_results(self, results: Iterable[BoardResult], section: str | None = None) -> None:
        for r in results:
            self.add_result(r, section)

    def remove_result(self, board: int, ns: int, ew: int, section: str | None = None) -> Update:
        sec = self.section(section)
        try:
            old = sec.results.pop((board, ns, ew))
        except KeyError:
            raise ResultEntryError(f"no result for board {board} {ns} v {ew}") from None
        self._rescore(sec, board)
        return self._notify(Update(self.revision + 1, sec.id, board, "removed", old))

    def publish(self) -> Update:
        """Mark the current revision as the official score (start of the Law 79C / 92B periods)."""
        self.published_revision = self.revision + 1
        return self._notify(Update(self.revision + 1, "", 0, "published", provisional=False))

    def _notify(self, update: Update) -> Update:
        self.revision = update.revision
        for cb in list(self._subscribers):
            try:
                cb(update)
            except Exception:                    # a broken page must not lose a result
                log.exception("results subscriber failed on revision %s", update.revision)
        return update

    # ------------------------------------------------------------------------- scoring
    def _rescore(self, sec: Section, board: int) -> None:
        results = sorted((r for r in sec.results.values() if r.board == board),
                         key=lambda r: (r.round or 0, r.table or 0, r.ns, r.ew))
        for boards in sec.board_scores.values():
            boards.pop(board, None)
        if not results:
            sec.travellers.pop(board, None)
            return
        if self.scoring is Scoring.TEAMS_IMPS:
            scores = self._score_teams(sec, board, results)
            sec.travellers[board] = Traveller(board, results, scores)
            return
        lines = [r.line() for r in results]
        top: float | None = None
        if self.scoring is Scoring.MATCHPOINTS:
            n_max = None
            if self.n_max == "movement":
                n_max = max(len(lines), sum(1 for s in sec.movement.sittings if not s.sit_out and board in s.boards))
            scores = matchpoint_board(lines, n_max=n_max)
            top = scores[0].top
        elif self.scoring is Scoring.CROSS_IMPS:
            scores = cross_imps_board(lines)
        elif self.scoring is Scoring.BUTLER:
            scores = butler_board(lines, trim=self.butler_trim)
        else:
            scores = [LineScore(float(ln.views[0]), float(-ln.views[1])) if not ln.artificial else LineScore(0.0, 0.0)
                      for ln in lines]
        sec.travellers[board] = Traveller(board, results, scores, top)
        for r, s in zip(results, scores):
            t = s.top or 0.0
            sec.board_scores.setdefault(r.ns, {})[board] = (s.ns, t, r.artificial[0] if r.artificial else None)
            sec.board_scores.setdefault(r.ew, {})[board] = (s.ew, t, r.artificial[1] if r.artificial else None)

    def _score_teams(self, sec: Section, board: int, results: list[BoardResult]) -> list[LineScore]:
        """Pair each result with the other room of its match; each line's ``ns``/``ew`` are the IMPs of
        the team sitting NS / EW at that table."""
        by_pair = {(r.ns, r.ew): r for r in results}
        out = []
        for r in results:
            other = by_pair.get((r.ew, r.ns))
            if other is None:
                out.append(LineScore(0.0, 0.0))          # the other room is not in yet
                continue
            ns_imps, ew_imps = _team_imps(r, other, self.knockout)
            out.append(LineScore(ns_imps, ew_imps))
            # team r.ns: NS here, EW there. Record once per team per board (from the table where it is NS).
            sec.board_scores.setdefault(r.ns, {})[board] = (ns_imps, 0.0, r.ew)   # third: opponent team
        return out

    def traveller(self, board: int, section: str | None = None) -> Traveller | None:
        return self.section(section).travellers.get(board)

    def boards(self, section: str | None = None) -> list[int]:
        return sorted(self.section(section).travellers)

    def travellers(self, section: str | None = None) -> list[Traveller]:
        """The section's travellers in board order."""
        sec = self.section(section)
        return [sec.travellers[b] for b in sorted(sec.travellers)]

    # ------------------------------------------------------------------------- ranking
    def ranking(self, section: str | None = None) -> list[RankRow]:
        sec = self.section(section)
        if self.scoring is Scoring.TEAMS_IMPS:
            return self._rank_teams(sec)
        rows = []
        mv = sec.movement
        for e in mv.entrants:
            boards = sec.board_scores.get(e, {})
            if self.scoring is Scoring.MATCHPOINTS:
                total, top = self._mp_total(boards)
                score = 100.0 * total / top if top else 0.0
            else:
                total = sum(v for v, _t, _a in boards.values())
                top, score = 0.0, total
            en = sec.entrant(e)
            rows.append(RankRow(0, False, e, mv.label(e), en.display, score, total, top, len(boards), mv.field_of(e)))
        return _place(rows)

    def _mp_total(self, boards: dict[int, tuple[float, float, Award | None]]) -> tuple[float, float]:
        """Sum of matchpoints and of tops, with the session-percentage rule of the edition (Law 88, 12C2(c))."""
        real_mp = sum(v for v, _t, a in boards.values() if a is None)
        real_top = sum(t for _v, t, a in boards.values() if a is None)
        own = 100.0 * real_mp / real_top if real_top else 0.0
        total, top = real_mp, real_top
        for v, t, a in boards.values():
            if a is None:
                continue
            if self.law88 and a in (Artificial.PLUS, Artificial.MINUS):
                percent = artificial_session_percent(a is Artificial.MINUS, own if real_top else None, self.laws)
                if percent != ARTIFICIAL_PERCENT[a]:
                    v = t * percent / 100.0
            total += v
            top += t
        return total, top

    def matches(self, section: str | None = None) -> list[Match]:
        """Teams: one :class:`Match` per match of the movement."""
        sec = self.section(section)
        mv = sec.movement
        out: list[Match] = []
        seen: set[tuple[int, frozenset[int]]] = set()
        for s in mv.sittings:
            a, b = s.ns, s.ew
            if a is None or b is None:             # a sit-out
                continue
            key = (s.round, frozenset((a, b)))
            if key in seen:
                continue
            seen.add(key)
            # a board's team IMPs are signed (+10 to the winner, -10 to the loser): a match shows the IMPs
            # each team won (10-0), so the margin counts the board once
            ia = sum(max(0.0, sec.board_scores.get(a, {}).get(bd, (0.0,))[0]) for bd in s.boards)
            ib = sum(max(0.0, sec.board_scores.get(b, {}).get(bd, (0.0,))[0]) for bd in s.boards)
            done = sum(1 for bd in s.boards if bd in sec.board_scores.get(a, {}))
            m: Match = {"round": s.round, "team": a, "opponent": b, "boards": list(s.boards), "boards_scored": done,
                        "imps": ia, "opponent_imps": ib}
            if self.vp:
                m["vp"], m["opponent_vp"] = wbf_vp(ia - ib, len(s.boards))
            out.append(m)
        return out

    def _rank_teams(self, sec: Section) -> list[RankRow]:
        totals: dict[int, float] = {e: 0.0 for e in sec.movement.entrants}
        imp_totals: dict[int, float] = dict(totals)
        boards: dict[int, int] = {e: 0 for e in totals}
        for m in self.matches(sec.id):
            imp_totals[m["team"]] += m["imps"] - m["opponent_imps"]
            imp_totals[m["opponent"]] += m["opponent_imps"] - m["imps"]
            boards[m["team"]] += m["boards_scored"]
            boards[m["opponent"]] += m["boards_scored"]
            if self.vp:
                totals[m["team"]] += m["vp"]
                totals[m["opponent"]] += m["opponent_vp"]
        score = totals if self.vp else imp_totals
        rows = [RankRow(0, False, e, sec.movement.label(e), sec.entrant(e).display, score[e], imp_totals[e], 0.0,
                        boards[e]) for e in totals]
        return _place(rows)


def _team_imps(here: BoardResult, there: BoardResult, knockout: bool) -> tuple[float, float]:
    """IMPs for the team NS at ``here`` and the team EW at ``here`` (who is NS ``there``)."""
    if here.artificial or there.artificial:
        def award(r: BoardResult, side: int) -> float:
            return award_imps(r.artificial[side]) if r.artificial else 0.0
        # each team's award: from whichever room carries one (both rooms: the sum)
        return award(here, 0) + award(there, 1), award(here, 1) + award(there, 0)
    if here.group != there.group:
        return 0.0, 0.0                           # fouled: the rooms did not play the same board
    h_ns, h_ew = here.line().views
    t_ns, t_ew = there.line().views
    ns_team = float(imps(h_ns - t_ew))     # NS here is EW there, judged on there's EW view
    ew_team = float(imps(t_ns - h_ew))
    if knockout and ns_team != -ew_team:
        avg = (ns_team - ew_team) / 2
        return avg, -avg
    return ns_team, ew_team


def _place(rows: list[RankRow]) -> list[RankRow]:
    out: list[RankRow] = []
    for fld in sorted({r.field for r in rows}):
        group = sorted((r for r in rows if r.field == fld), key=lambda r: (-round(r.score, 9), r.entrant))
        for i, r in enumerate(group):
            same_prev = i > 0 and round(group[i - 1].score, 9) == round(r.score, 9)
            same_next = i + 1 < len(group) and round(group[i + 1].score, 9) == round(r.score, 9)
            r.place = group[i - 1].place if same_prev else i + 1
            r.tied = same_prev or same_next
            out.append(r)
    return out
