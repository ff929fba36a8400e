"""Scoring a board across the field: matchpoints (Law 78A), IMPs (78B: teams, cross-IMPs, Butler),
total points (78C), adjusted scores (Law 12C, 86, 88) and fouled boards (Law 87).

Everything here is a pure function of the board's result lines (:class:`Line`). A line carries the
score North-South is judged on and the score East-West is judged on, both from North-South's side:
they are the same number for a table result, and may differ for a split (non-balancing) assigned
adjusted score (Law 12C2). An artificial adjusted score (Law 12C1) carries an :class:`Award` per side
instead of a score, again possibly non-balancing.

Conventions (the laws leave them to regulation, Law 78D; each is a parameter where it varies):

- Matchpoints are in Law 78A units, 2 per result beaten and 1 per tie (top = 2 (n - 1)); percentages
  are matchpoints / top.
- Boards with different numbers of results, artificial scores and fouled-board groups are factored
  with Neuberg's formula ``(mp + 1) * N / n - 1`` (``table.scoring.neuberg``) to ``N`` = the number of
  result lines on the board (or ``n_max``, e.g. the most times any board was played). A lone result
  then scores 50 %.
- A split assigned score: each other line is compared with both of its scores, half weight each.
- Artificial awards: average plus 60 %, average 50 %, average minus 40 % of the top (Law 12C1); in IMPs
  +3 / 0 / -3 (Law 86A). Law 88 (average plus is at least the pair's session percentage) is applied by
  the ranking (:mod:`results.session`), which knows the session percentage.
- Artificial lines take no part in the other lines' comparisons, except in cross-IMPs with
  ``artificial_in_field="mirror"``: each other line then counts minus the artificial line's NS IMPs as
  its comparison with it (OKbridge's convention, seen in the corpus).
- Butler datum: the mean of the board's scores without the ``trim`` (default 1) highest and ``trim``
  lowest when there are more than ``2 * trim + 1`` scores (otherwise the plain mean), rounded to the
  nearest multiple of 10, an exact 5 away from zero (e.g. 933.3 -> 930, 445 -> 450, -445 -> -450), as
  many regulations do. The rounding is what keeps every difference from the datum a multiple of 10, as the
  IMP scale's bands (0-10, 20-40, ..., 3500-3990, 4000+) assume: an unrounded mean gives differences
  such as 15 or 3995 that fall between the bands.
- Fouled boards (Law 87): lines carry a ``group`` (the form of the board they played, e.g. a hash of
  the cards actually held); each group is scored alone, then factored (Neuberg) to the whole board's
  line count, so every group shares the same top. In IMPs, cross-IMPs and datum are per group.
"""
from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from enum import StrEnum

from table.editions import edition

from .errors import ResultsError

__all__ = ["Artificial", "Award", "Line", "LineScore", "ARTIFICIAL_PERCENT", "ARTIFICIAL_IMPS",
           "matchpoint_board", "cross_imps_board", "butler_board", "butler_datum", "round_datum",
           "team_board_imps", "knockout_average", "wbf_vp", "total_points", "percent_of_field", "parse_award",
           "award_text", "award_percent", "award_imps", "percent_to_imps", "award_from_percent",
           "IMP_UPPER", "imps", "neuberg", "artificial_session_percent", "weighted_assigned_matchpoints"]


# Law 78B: upper bound of each IMP band, 0 IMP up to 10, ..., 23 IMP up to 3990; 24 beyond.
IMP_UPPER = (10, 40, 80, 120, 160, 210, 260, 310, 360, 420, 490, 590, 740, 890, 1090, 1290,
             1490, 1740, 1990, 2240, 2490, 2990, 3490, 3990)


def imps(difference: int) -> int:
    """Convert a total-point difference to IMPs, keeping its sign (Law 78B)."""
    n = bisect_left(IMP_UPPER, abs(difference))     # first band whose upper bound >= |difference|
    return n if difference >= 0 else -n


def neuberg(mp: float, n_results: int, n_max: int) -> float:
    """Factor a score from a board with n_results results up to n_max (standard Neuberg formula).

    Not seed law: factoring is left to the sponsoring organization's regulations (Law 78D).
    Same 2-per-beat units as :func:`matchpoint_board`: (mp + 1) * n_max / n_results - 1.
    """
    if n_results < 1 or n_max < n_results:
        raise ResultsError(f"need 1 <= n_results <= n_max, got {n_results}, {n_max}")
    return (mp + 1) * n_max / n_results - 1


class Artificial(StrEnum):
    """Law 12C1 artificial adjusted scores."""
    PLUS = "A+"          # not at fault: average plus
    AVERAGE = "A="       # partly at fault (or nobody): average
    MINUS = "A-"         # directly at fault: average minus


#: Percentages of the top for an artificial award in matchpoints (Law 12C1).
ARTIFICIAL_PERCENT = {Artificial.PLUS: 60.0, Artificial.AVERAGE: 50.0, Artificial.MINUS: 40.0}
#: IMPs for an artificial award (Law 86A; the 0 for average is implied).
ARTIFICIAL_IMPS = {Artificial.PLUS: 3.0, Artificial.AVERAGE: 0.0, Artificial.MINUS: -3.0}

#: An artificial award: one of the three, or an explicit value (a percentage in matchpoint scoring,
#: IMPs in IMP scoring) that the director gives.
Award = Artificial | float


def parse_award(text: str) -> Award:
    """``"A+"``, ``"A="``/``"A"``, ``"A-"``, or a number (``"60"``, ``"-3"``)."""
    if not isinstance(text, str):
        raise ResultsError(f"not an artificial award: {text!r} (A+, A=, A- or a number)")
    t = text.strip().upper()
    if t in ("A", "A=", "AVE", "AVG"):
        return Artificial.AVERAGE
    if t in ("A+", "AVE+", "AVG+"):
        return Artificial.PLUS
    if t in ("A-", "AVE-", "AVG-"):
        return Artificial.MINUS
    try:
        value = float(t)
    except ValueError:
        raise ResultsError(f"not an artificial award: {text!r} (A+, A=, A- or a number)") from None
    if not math.isfinite(value):
        raise ResultsError(f"not an artificial award: {text!r} (a number must be finite)")
    return value


def award_percent(award: Award, table: Mapping[Artificial, float] | None = None) -> float:
    """An award as a percentage of the top in matchpoint scoring (Law 12C1): 60 / 50 / 40 for average
    plus / average / average minus (or ``table``'s), an explicit value as it is."""
    if isinstance(award, Artificial):
        return (table or ARTIFICIAL_PERCENT)[award]
    return float(award)


def award_imps(award: Award, table: Mapping[Artificial, float] | None = None) -> float:
    """An award in IMPs (Law 86A): +3 / 0 / -3 (or ``table``'s), an explicit value as it is."""
    if isinstance(award, Artificial):
        return (table or ARTIFICIAL_IMPS)[award]
    return float(award)


def percent_to_imps(percent: float) -> float:
    """A percentage award in IMPs, on the line through average (50 %, 0 IMPs) and average plus (60 %,
    +3 IMPs, Law 86A), to two decimals: 70 % -> +6, 45 % -> -1.5."""
    plus = Artificial.PLUS
    per_percent = ARTIFICIAL_IMPS[plus] / (ARTIFICIAL_PERCENT[plus] - ARTIFICIAL_PERCENT[Artificial.AVERAGE])
    return round((percent - ARTIFICIAL_PERCENT[Artificial.AVERAGE]) * per_percent, 2)


def award_from_percent(percent: float, *, imps: bool) -> Award:
    """A director's award given as a percentage of the top, in the session's unit: exactly 60, 50 or 40 is
    average plus, average or average minus (scored by the session's own rules, Law 88 included); any
    other percentage stays a percentage in matchpoint scoring and becomes :func:`percent_to_imps` in IMP
    scoring."""
    value = float(percent)
    if not 0.0 <= value <= 100.0:
        raise ResultsError(f"an award percentage is 0..100, not {percent!r}")
    for award, pct in ARTIFICIAL_PERCENT.items():
        if value == pct:
            return award
    return percent_to_imps(value) if imps else value


def artificial_session_percent(at_fault: bool, session_percent: float | None, laws: str | None = None) -> float:
    """A pairs contestant's artificial score, in percent, on a board it could not play, by the law edition
    (``table.editions``): not at fault, average plus but at least its session percentage (1997 Law 88,
    2017 12C2(c)); at fault, average minus, and under the 2017 Laws at most its session percentage
    (12C2(c) is symmetrical). ``session_percent``: its percentage on the other boards, None if unknown."""
    return edition(laws).artificial_percent(at_fault, session_percent)


def weighted_assigned_matchpoints(components: Sequence[tuple[int, float]], others: Sequence[int]) -> float:
    """Law 12C1(c) (2017): a weighted assigned score, as North-South's matchpoints against the board's other
    scores (Law 78A units: 2 per score beaten, 1 per tie): each component's matchpoints times its weight.
    ``components``: (NS score, weight) pairs whose weights add up to 1."""
    if not components:
        raise ResultsError("a weighted assigned score needs at least one component")
    total = math.fsum(w for _, w in components)
    if any(w <= 0 for _, w in components) or not math.isclose(total, 1.0, abs_tol=1e-9):
        raise ResultsError(f"the weights of an assigned score must be positive and add up to 1, not {total:g}")
    return math.fsum(w * sum(2 if score > o else 1 if score == o else 0 for o in others)
                     for score, w in components)


def award_text(award: Award) -> str:
    if isinstance(award, Artificial):
        return award.value
    return _num(award)


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:g}"


@dataclass(frozen=True, slots=True)
class Line:
    """One result line of a board, as scoring sees it (NS's point of view throughout)."""
    ns_view: int | None = None          # the score NS is judged on; None for an artificial line
    ew_view: int | None = None          # the score EW is judged on; defaults to ns_view
    art_ns: Award | None = None         # artificial award for NS (then art_ew too)
    art_ew: Award | None = None
    group: Hashable = None                 # fouled-board group (the form of the board played)

    def __post_init__(self) -> None:
        if self.ew_view is None and self.ns_view is not None:
            object.__setattr__(self, "ew_view", self.ns_view)
        if self.artificial:
            if self.art_ns is None or self.art_ew is None:
                raise ResultsError("an artificial line needs an award for each side")
        elif self.ns_view is None:
            raise ResultsError("a line needs a score or artificial awards")

    @property
    def artificial(self) -> bool:
        return self.art_ns is not None or self.art_ew is not None

    @property
    def views(self) -> tuple[int, int]:
        """``(ns_view, ew_view)`` of a scored line."""
        if self.ns_view is None or self.ew_view is None:
            raise ResultsError("an artificial line has no score")
        return self.ns_view, self.ew_view

    @property
    def awards(self) -> tuple[Award, Award]:
        """``(art_ns, art_ew)`` of an artificial line."""
        if self.art_ns is None or self.art_ew is None:
            raise ResultsError("a scored line has no artificial awards")
        return self.art_ns, self.art_ew

    @property
    def split(self) -> bool:
        return not self.artificial and self.ns_view != self.ew_view

    @classmethod
    def table(cls, score_ns: int, group: Hashable = None) -> Line:
        return cls(score_ns, score_ns, group=group)


@dataclass(frozen=True, slots=True)
class LineScore:
    """What one line earns: ``ns``/``ew`` in the method's unit (matchpoints or IMPs); ``top`` for
    matchpoints (``ns / top`` is the percentage), ``None`` for IMPs; ``datum`` for Butler."""
    ns: float
    ew: float
    top: float | None = None
    datum: int | None = None

    @property
    def ns_percent(self) -> float | None:
        return None if not self.top else 100.0 * self.ns / self.top

    @property
    def ew_percent(self) -> float | None:
        return None if not self.top else 100.0 * self.ew / self.top


def _cmp(a: int, b: int) -> int:
    return 2 if a > b else 1 if a == b else 0


def _groups(lines: Sequence[Line]) -> dict[Hashable, list[int]]:
    out: dict[Hashable, list[int]] = {}
    for i, ln in enumerate(lines):
        if not ln.artificial:
            out.setdefault(ln.group, []).append(i)
    return out


def matchpoint_board(lines: Sequence[Line], *, n_max: int | None = None, factor: bool = True,
                     artificial_percent: Mapping[Artificial, float] | None = None) -> list[LineScore]:
    """Matchpoints for every line of one board (Law 78A), in the lines' order.

    With ``factor`` (the default) every group's scores are Neuberg-factored to ``N`` = ``n_max`` or the
    number of lines on the board, so artificial lines and fouled-board groups leave the others' scale
    unchanged; without it, each group is scored on its own top and ``N`` is the group size."""
    if not lines:
        return []
    total = n_max if n_max is not None else len(lines)
    if total < len(lines):
        raise ResultsError(f"n_max {n_max} is less than the {len(lines)} lines on the board")
    out: list[LineScore | None] = [None] * len(lines)
    for members in _groups(lines).values():
        n = len(members)
        big_n = total if factor else n
        top = 2.0 * (big_n - 1)
        for i in members:
            i_ns, i_ew = lines[i].views
            ns = ew = 0.0
            for j in members:
                if j == i:
                    continue
                j_ns, j_ew = lines[j].views
                ns += (_cmp(i_ns, j_ns) + _cmp(i_ns, j_ew)) / 2
                ew += (_cmp(-i_ew, -j_ns) + _cmp(-i_ew, -j_ew)) / 2
            if factor and n != big_n:
                ns, ew = neuberg(ns, n, big_n), neuberg(ew, n, big_n)
            out[i] = LineScore(ns, ew, top)
    top_all = 2.0 * (total - 1)
    for i, ln in enumerate(lines):
        if ln.artificial:
            art_ns, art_ew = ln.awards
            out[i] = LineScore(top_all * award_percent(art_ns, artificial_percent) / 100.0,
                               top_all * award_percent(art_ew, artificial_percent) / 100.0, top_all)
    return out  # type: ignore[return-value]


def percent_of_field(mp: float, n_results: int) -> float:
    """``100 (mp + 1) / (2 n)``: the limit of Neuberg's percentage as the field it is factored to grows
    (each result compared with all ``n`` results, itself included as a tie). Large simultaneous
    events publish this (the 1999 Fifth Friday Tournament in the corpus does); the club percentage
    is ``mp / top``."""
    if n_results < 1:
        raise ResultsError("a percentage needs at least one result")
    return 100.0 * (mp + 1) / (2 * n_results)


def cross_imps_board(lines: Sequence[Line], *, average: bool = True, artificial_in_field: str = "exclude",
                     artificial_imps: Mapping[Artificial, float] | None = None) -> list[LineScore]:
    """Cross-IMPs: each line IMPed against every other line of its group (Law 78B), summed, and
    divided by the number of comparisons when ``average``. ``artificial_in_field`` is ``"exclude"``
    (artificial lines are not compared with) or ``"mirror"`` (see the module notes)."""
    if artificial_in_field not in ("exclude", "mirror"):
        raise ResultsError("artificial_in_field must be 'exclude' or 'mirror'")
    out: list[LineScore | None] = [None] * len(lines)
    arts = [i for i, ln in enumerate(lines) if ln.artificial]
    for members in _groups(lines).values():
        others_art = [j for j in arts if lines[j].group in (None, lines[members[0]].group)] \
            if artificial_in_field == "mirror" else []
        comparisons = len(members) - 1 + len(others_art)
        for i in members:
            i_ns, i_ew = lines[i].views
            ns = ew = 0.0
            for j in members:
                if j == i:
                    continue
                j_ns, j_ew = lines[j].views
                ns += (imps(i_ns - j_ns) + imps(i_ns - j_ew)) / 2
                ew += (imps(j_ns - i_ew) + imps(j_ew - i_ew)) / 2
            for j in others_art:
                art_ns, art_ew = lines[j].awards
                ns -= award_imps(art_ns, artificial_imps)
                ew -= award_imps(art_ew, artificial_imps)
            if average and comparisons:
                ns, ew = ns / comparisons, ew / comparisons
            out[i] = LineScore(ns, ew)
    for i in arts:
        art_ns, art_ew = lines[i].awards
        out[i] = LineScore(award_imps(art_ns, artificial_imps), award_imps(art_ew, artificial_imps))
    return out  # type: ignore[return-value]


def round_datum(value: float, step: int = 10) -> int:
    """Round to the nearest multiple of ``step``; an exact half goes away from zero."""
    q = (Decimal(repr(value)) / step).quantize(Decimal(1), rounding=ROUND_HALF_UP)
    return int(q) * step


def butler_datum(scores: Sequence[float], *, trim: int = 1, step: int = 10) -> int:
    """The Butler datum: the mean without the ``trim`` highest and ``trim`` lowest scores when more than
    ``2 * trim + 1`` scores are there (else the plain mean), rounded to ``step`` (see :func:`round_datum`)."""
    if not scores:
        raise ResultsError("a datum needs at least one score")
    s = sorted(scores)
    if trim and len(s) > 2 * trim + 1:
        s = s[trim:len(s) - trim]
    return round_datum(sum(s) / len(s), step)


def butler_board(lines: Sequence[Line], *, trim: int = 1, step: int = 10,
                 artificial_imps: Mapping[Artificial, float] | None = None) -> list[LineScore]:
    """Butler IMPs: each line IMPed against its group's datum (:func:`butler_datum`). A split line
    counts both its scores, half weight each, in the datum."""
    out: list[LineScore | None] = [None] * len(lines)
    for members in _groups(lines).values():
        pool: list[float] = []
        for i in members:
            ns_view, ew_view = lines[i].views
            pool += [ns_view, ns_view] if not lines[i].split else [ns_view, ew_view]
        # each line is in the pool twice (once per view), so trimming ``trim`` lines drops 2 * trim values;
        # whether to trim at all is decided on the number of lines, not of pool values
        trimmed = trim and len(members) > 2 * trim + 1
        d = butler_datum(pool, trim=2 * trim if trimmed else 0, step=step)
        for i in members:
            ln = lines[i]
            out[i] = LineScore(float(imps(ln.views[0] - d)), float(imps(d - ln.views[1])), datum=d)
    for i, ln in enumerate(lines):
        if ln.artificial:
            out[i] = LineScore(award_imps(ln.awards[0], artificial_imps), award_imps(ln.awards[1], artificial_imps))
    return out  # type: ignore[return-value]


def team_board_imps(open_ns: int | None, closed_ns: int | None) -> int:
    """IMPs on a board of a teams match for the team sitting NS in the open room (Law 78B)."""
    if open_ns is None or closed_ns is None:
        raise ResultsError("a teams board needs both rooms' scores")
    return imps(open_ns - closed_ns)


def knockout_average(imps_for_nos: float, imps_for_os: float) -> float:
    """Law 86B: a non-balancing adjusted score in knockout play: each side's result is computed and
    the average is given to both (as IMPs for the same team)."""
    return (imps_for_nos + imps_for_os) / 2


def total_points(scores: Iterable[int]) -> int:
    """Law 78C: total points are the sum of a contestant's scores."""
    return sum(scores)


_TAU = (math.sqrt(5) - 1) / 2


def wbf_vp(imp_margin: float, boards: int, *, scale: int = 20) -> tuple[float, float]:
    """Victory points on the WBF continuous scale (2013): the winner gets
    ``10 + 10 * (1 - tau ** (3 * m / B)) / (1 - tau ** 3)`` capped at 20, ``tau = (sqrt 5 - 1) / 2``,
    ``B = 15 * sqrt(boards)`` the blitz margin, two decimals; the loser ``20 - that``. Not in the seed
    laws: VPs are a sponsoring organization's choice (Law 78D)."""
    if boards < 1:
        raise ResultsError("a match has at least one board")
    blitz = 15 * math.sqrt(boards)
    m = abs(imp_margin)
    w = min(20.0, 10 + 10 * (1 - _TAU ** (3 * m / blitz)) / (1 - _TAU ** 3))
    w = float(Decimal(repr(w)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))
    w, lose = (w, round(20 - w, 2)) if imp_margin >= 0 else (round(20 - w, 2), w)
    return (w * scale / 20, lose * scale / 20)
