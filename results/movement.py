"""Movements: who sits where, against whom, with which boards, in every round.

A movement is a table of rounds: one :class:`Sitting` per (table, round) naming the North-South and
East-West entrant (a pair number, or a team number in a teams movement) and the boards played there.
Everything else (Mitchell, Howell, teams matches, a file) only builds that table, and
:meth:`Movement.problems` checks it: no entrant in two places in one round, no pair meeting a board
twice, no board at two tables in one round unless the movement shares boards (a relay).

Conventions, where movements leave them open:

- Mitchell pairs: North-South pair ``t`` sits still at table ``t``; East-West pairs are numbered
  ``T + 1 .. 2T`` (EW pair ``T + k`` starts at table ``k``). EW move up one table a round, boards
  down one table. :meth:`Movement.label` gives ``"NS 3"`` / ``"EW 3"`` for display.
- Even number of tables: ``even="skip"`` (EW skip one table after round ``T/2``; ``T - 1`` rounds at
  most) or ``even="relay"`` (relay and bye stand: a bye stand between tables ``T/2`` and ``T/2 + 1``,
  tables 1 and ``T`` share each round's boards; ``T`` rounds).
- Arrow switch: in the rounds named, every table's pairs change direction (the stationary pair sits
  East-West). For a one-winner Mitchell, :func:`one_winner_rounds` names the usual choice, the last
  quarter of the rounds (at least one); the field is then ranked as one.
- Howell: a complete Howell for ``2n`` pairs (``2n - 1`` rounds, ``n`` tables, ``2n - 1`` board sets) is
  built from a patterned starter and an adder found by search (a Room square): every pair meets every
  other pair once and plays every set once. No such square exists for 4 or 6 pairs; there the search
  lets two tables share a set (a relay), as the usual 2- and 3-table Howells do. An odd number of pairs
  gets a phantom: its opponents sit out.
- Teams: a match is two tables with the same boards; team A sits NS at table 1 (open room) and EW at
  table 2 (closed room). Each (team, direction) plays each board once.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from table.texts import Text

from .errors import MovementError

__all__ = ["Sitting", "Movement", "mitchell", "howell", "teams_match", "round_robin_teams",
           "one_winner_rounds", "board_range"]


def board_range(board_set: int, boards_per_round: int, first_board: int = 1) -> tuple[int, ...]:
    """The board numbers of set ``board_set`` (1-based) when sets are consecutive runs of boards."""
    start = first_board + (board_set - 1) * boards_per_round
    return tuple(range(start, start + boards_per_round))


@dataclass(frozen=True, slots=True)
class Sitting:
    """One table in one round. ``ns``/``ew`` are entrant numbers, ``None`` for an empty seat."""
    table: int
    round: int
    ns: int | None
    ew: int | None
    boards: tuple[int, ...]
    board_set: int | None = None

    @property
    def sit_out(self) -> bool:
        """Whether no board is played here (an empty seat: a sit-out or a phantom)."""
        return self.ns is None or self.ew is None

    @property
    def pairs(self) -> tuple[int, int]:
        """``(ns, ew)`` of a table that plays (:class:`MovementError` for a sit-out)."""
        if self.ns is None or self.ew is None:
            raise MovementError(f"table {self.table} round {self.round} is a sit-out")
        return self.ns, self.ew

    def opponent_of(self, entrant: int) -> int | None:
        if entrant == self.ns:
            return self.ew
        if entrant == self.ew:
            return self.ns
        raise MovementError(f"entrant {entrant} does not sit at table {self.table} in round {self.round}")


@dataclass(frozen=True)
class Movement:
    """A table of rounds. Build it with :func:`mitchell`, :func:`howell`, :func:`teams_match`, or
    :meth:`from_text`; it is checked on creation (:meth:`problems`) and raises :class:`MovementError`."""
    name: str
    sittings: tuple[Sitting, ...]
    kind: str = "custom"                 # "mitchell", "howell", "teams", "custom"
    one_field: bool = True               # pairs ranked in one field (Howell, arrow-switched Mitchell)
    shared_boards: bool = False          # boards may be at two tables in one round (relay, teams)
    stationary_ns: frozenset[int] = frozenset()   # Mitchell: the North-South pair numbers
    _at: dict[tuple[int, int], Sitting] = field(default_factory=dict, init=False, repr=False, compare=False)
    _where: dict[tuple[int, int], list[Sitting]] = field(default_factory=dict, init=False, repr=False, compare=False)
    # tables, rounds, entrants, boards: computed once (a 500-table Mitchell has 250,000 sittings to go through)
    _lists: dict[str, tuple[int, ...]] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "sittings", tuple(sorted(self.sittings, key=lambda s: (s.round, s.table))))
        for s in self.sittings:
            self._at[(s.table, s.round)] = s
            for e in (s.ns, s.ew):
                if e is not None:
                    self._where.setdefault((e, s.round), []).append(s)
        sits = self.sittings
        self._lists.update(tables=tuple(sorted({s.table for s in sits})), rounds=tuple(sorted({s.round for s in sits})),
                           entrants=tuple(sorted({e for s in sits for e in (s.ns, s.ew) if e is not None})),
                           boards=tuple(sorted({b for s in sits if not s.sit_out for b in s.boards})))
        bad = self.problems()
        if bad:
            raise MovementError(f"movement {self.name!r} is not valid: " + "; ".join(bad[:10])
                                + (f" (and {len(bad) - 10} more)" if len(bad) > 10 else ""))

    # -------------------------------------------------------------------------------- queries
    @property
    def tables(self) -> list[int]:
        return list(self._lists["tables"])

    @property
    def rounds(self) -> list[int]:
        return list(self._lists["rounds"])

    @property
    def entrants(self) -> list[int]:
        return list(self._lists["entrants"])

    @property
    def boards(self) -> list[int]:
        return list(self._lists["boards"])

    def at(self, table: int, round: int) -> Sitting:
        try:
            return self._at[(table, round)]
        except KeyError:
            raise MovementError(f"movement {self.name!r} has no table {table} in round {round}") from None

    def expected_boards(self, table: int, round: int) -> tuple[int, ...]:
        """The boards table ``table`` plays in round ``round`` (the at-table wrong-board check)."""
        s = self.at(table, round)
        return () if s.sit_out else s.boards

    def where(self, entrant: int, round: int) -> list[Sitting]:
        """Where ``entrant`` sits in ``round`` (two sittings for a team: open and closed room)."""
        return list(self._where.get((entrant, round), ()))

    def opponents(self, entrant: int) -> dict[int, int | None]:
        """Round -> the entrant faced (``None``: sits out that round)."""
        out: dict[int, int | None] = {}
        for r in self.rounds:
            for s in self.where(entrant, r):
                out[r] = s.opponent_of(entrant)
        return out

    def boards_of(self, entrant: int) -> list[int]:
        return sorted(b for s in self.sittings if not s.sit_out and entrant in (s.ns, s.ew) for b in s.boards)

    def sitting_for(self, entrant_ns: int, entrant_ew: int, board: int) -> Sitting | None:
        """The sitting where ``entrant_ns`` (NS) met ``entrant_ew`` (EW) on ``board``, if any."""
        for s in self.sittings:
            if s.ns == entrant_ns and s.ew == entrant_ew and board in s.boards:
                return s
        return None

    def direction_of(self, entrant: int, round: int) -> str | None:
        for s in self.where(entrant, round):
            return "NS" if s.ns == entrant else "EW"
        return None

    def label(self, entrant: int) -> str:
        """Display name: ``"NS 3"`` / ``"EW 3"`` in a two-field Mitchell, else the number."""
        if self.kind == "mitchell" and self.stationary_ns:
            t = len(self.stationary_ns)
            return f"NS {entrant}" if entrant in self.stationary_ns else f"EW {entrant - t}"
        return str(entrant)

    def number(self, entrant: int) -> int:
        """The pair's number as the results show it: its :meth:`label` without the direction (a Mitchell's
        East-West pair 5 of 4 tables is 1, "EW 1"); the entrant number itself elsewhere. The exports use it."""
        if self.kind == "mitchell" and self.stationary_ns and entrant not in self.stationary_ns:
            return entrant - len(self.stationary_ns)
        return entrant

    def field_of(self, entrant: int) -> str:
        """``"NS"``/``"EW"`` in a two-field Mitchell (ranked separately), else ``"all"``."""
        if self.one_field or not self.stationary_ns:
            return "all"
        return "NS" if entrant in self.stationary_ns else "EW"

    # ------------------------------------------------------------------------------ checking
    def problems(self) -> list[str]:
        """Every way the table of rounds is not a playable movement (empty list: it is)."""
        out: list[str] = []
        seen_tr: set[tuple[int, int]] = set()
        # (entrant[, direction], board) -> round first played
        played: dict[tuple[int, int] | tuple[int, str, int], int] = {}
        per_round: dict[tuple[int, int] | tuple[int, str, int], int] = {}
        board_at: dict[tuple[int, int], int] = {}
        for s in self.sittings:
            if (s.table, s.round) in seen_tr:
                out.append(f"table {s.table} appears twice in round {s.round}")
            seen_tr.add((s.table, s.round))
            if s.ns is not None and s.ns == s.ew:
                out.append(f"entrant {s.ns} plays itself at table {s.table} in round {s.round}")
            if len(set(s.boards)) != len(s.boards):
                out.append(f"table {s.table} round {s.round} lists a board twice")
            for direction, e in (("NS", s.ns), ("EW", s.ew)):
                if e is None:
                    continue
                key = (e, s.round) if self.kind != "teams" else (e, direction, s.round)
                if key in per_round:
                    out.append(f"entrant {e} sits at tables {per_round[key]} and {s.table} in round {s.round}")
                per_round[key] = s.table
                if s.sit_out:
                    continue
                for b in s.boards:
                    pk = (e, b) if self.kind != "teams" else (e, direction, b)
                    if pk in played:
                        out.append(f"entrant {e} plays board {b} twice (rounds {played[pk]} and {s.round})")
                    else:
                        played[pk] = s.round
            if not s.sit_out and not self.shared_boards:
                for b in s.boards:
                    if (b, s.round) in board_at:
                        out.append(f"board {b} is at tables {board_at[(b, s.round)]} and {s.table} in round {s.round}")
                    board_at[(b, s.round)] = s.table
        return out

    def meetings(self) -> dict[frozenset[int], int]:
        """How many rounds each pair of entrants faced each other."""
        out: dict[frozenset[int], int] = {}
        for s in self.sittings:
            if s.ns is not None and s.ew is not None:          # not a sit-out
                k = frozenset((s.ns, s.ew))
                out[k] = out.get(k, 0) + 1
        return out

    # ------------------------------------------------------------------------ the text form
    def to_text(self) -> str:
        """The table-of-rounds text form read by :meth:`from_text`."""
        lines = ["# bridgetable movement 1", f"# name: {self.name}", f"# kind: {self.kind}",
                 f"# one_field: {'yes' if self.one_field else 'no'}",
                 f"# shared_boards: {'yes' if self.shared_boards else 'no'}"]
        if self.stationary_ns:
            lines.append("# stationary_ns: " + ",".join(map(str, sorted(self.stationary_ns))))
        lines.append("# table round ns ew boards [set]")
        for s in self.sittings:
            row = [str(s.table), str(s.round), _opt(s.ns), _opt(s.ew), _boards_text(s.boards)]
            if s.board_set is not None:
                row.append(str(s.board_set))
            lines.append(" ".join(row))
        return "\n".join(lines) + "\n"

    @classmethod
    def from_text(cls, text: str, name: str | None = None) -> Movement:
        """Read a table of rounds: one line per table and round, ``table round ns ew boards [set]``;
        ``-`` for an empty seat; boards as ``1-3``, ``1,2,3`` or ``1-2,7``; ``#`` starts a comment,
        and ``# key: value`` header comments set ``name``, ``kind``, ``one_field``, ``shared_boards``
        and ``stationary_ns``. Fields may also be separated by commas or tabs (a CSV export)."""
        meta: dict[str, str] = {}
        sittings = []
        for n, raw in enumerate(text.splitlines(), 1):
            line = raw.strip()
            if not line:
                continue
            if line.startswith("#"):
                m = re.match(r"#\s*(\w+)\s*:\s*(.*)", line)
                if m:
                    meta[m.group(1).lower()] = m.group(2).strip()
                continue
            plain = "\t" not in line and line.count(",") < 4
            parts = line.split() if plain else re.split(r"\s*[\t;]\s*|\s*,\s*(?=\S)", line)
            if len(parts) not in (5, 6):
                raise MovementError(f"line {n}: expected 'table round ns ew boards [set]', got {raw!r}")
            try:
                table, rnd = int(parts[0]), int(parts[1])
                ns, ew = _parse_opt(parts[2]), _parse_opt(parts[3])
                boards = _parse_boards(parts[4])
                bset = int(parts[5]) if len(parts) == 6 else None
            except ValueError as err:
                raise MovementError(f"line {n}: {err} in {raw!r}") from err
            sittings.append(Sitting(table, rnd, ns, ew, boards, bset))
        if not sittings:
            raise MovementError("no table-of-rounds lines found")
        stat = frozenset(int(x) for x in meta.get("stationary_ns", "").split(",") if x.strip())
        return cls(name or meta.get("name", "custom"), tuple(sittings), kind=meta.get("kind", "custom"),
                   one_field=meta.get("one_field", "yes").lower() != "no",
                   shared_boards=meta.get("shared_boards", "no").lower() == "yes", stationary_ns=stat)


def _opt(v: int | None) -> str:
    return "-" if v is None else str(v)


def _parse_opt(t: str) -> int | None:
    return None if t in ("-", "0", "") else int(t)


def _boards_text(boards: Sequence[int]) -> str:
    if not boards:
        return "-"
    runs: list[str] = []
    start = prev = boards[0]
    for b in [*boards[1:], None]:
        if b is not None and b == prev + 1:
            prev = b
            continue
        runs.append(str(start) if start == prev else f"{start}-{prev}")
        if b is not None:
            start = prev = b
    return ",".join(runs)


def _parse_boards(t: str) -> tuple[int, ...]:
    if t == "-":
        return ()
    out: list[int] = []
    for part in t.split(","):
        if "-" in part:
            a, b = part.split("-", 1)
            out += range(int(a), int(b) + 1)
        else:
            out.append(int(part))
    return tuple(out)


# ------------------------------------------------------------------------------------ Mitchell

def one_winner_rounds(rounds: int) -> tuple[int, ...]:
    """The rounds to arrow-switch for a one-winner Mitchell: the last quarter (at least one)."""
    k = max(1, round(rounds / 4))
    return tuple(range(rounds - k + 1, rounds + 1))


def mitchell(tables: int, rounds: int | None = None, boards_per_round: int = 2, *, even: str = "skip",
             arrow_switch: Iterable[int] = (), absent: Iterable[int] = (), first_board: int = 1,
             name: str | None = None) -> Movement:
    """A Mitchell movement (see the module notes for numbering and the even-table rules).

    ``rounds`` defaults to all the rounds the movement allows (``T``; ``T - 1`` with a skip).
    ``arrow_switch`` names rounds in which the pairs change direction (use :func:`one_winner_rounds`);
    any arrow switch makes it a one-field movement. ``absent`` names pairs that are missing (a half
    table): their opponents sit out."""
    t = tables
    if t < 2:
        raise MovementError("a Mitchell needs at least 2 tables")
    if even not in ("skip", "relay"):
        raise MovementError(f"even must be 'skip' or 'relay', not {even!r}")
    odd = t % 2 == 1
    max_rounds = t if odd or even == "relay" else t - 1
    r_count = max_rounds if rounds is None else rounds
    if not 1 <= r_count <= max_rounds:
        # one keyed sentence per kind of table count (not an English word as a parameter): a page words it
        raise MovementError(
            Text("movement.mitchell_rounds_odd", "a {tables}-table Mitchell (odd) has at most {rounds} rounds",
                 tables=t, rounds=max_rounds) if odd else
            Text("movement.mitchell_rounds_relay", "a {tables}-table Mitchell (relay) has at most {rounds} rounds",
                 tables=t, rounds=max_rounds) if even == "relay" else
            Text("movement.mitchell_rounds_skip", "a {tables}-table Mitchell (skip) has at most {rounds} rounds",
                 tables=t, rounds=max_rounds))
    switch = set(arrow_switch)
    gone = set(absent)
    relay = not odd and even == "relay"
    # board positions: tables 1..T in order; with relay a bye stand after table T/2, table T shares 1
    if relay:
        order = list(range(1, t // 2 + 1)) + [0] + list(range(t // 2 + 1, t))
        pos = {tab: order.index(tab) for tab in range(1, t)}
        pos[t] = pos[1]
        n_sets = t
    else:
        pos = {tab: tab - 1 for tab in range(1, t + 1)}
        n_sets = t
    sittings = []
    for r in range(1, r_count + 1):
        skip = 1 if (not odd and not relay and r > t // 2) else 0
        for tab in range(1, t + 1):
            ew_start = ((tab - 1 - (r - 1) - skip) % t) + 1          # the EW pair's starting table
            ns_pair, ew_pair = tab, t + ew_start
            bset = ((pos[tab] + r - 1) % n_sets) + 1
            ns_, ew_ = (ew_pair, ns_pair) if r in switch else (ns_pair, ew_pair)
            sittings.append(Sitting(tab, r, None if ns_ in gone else ns_, None if ew_ in gone else ew_,
                                    board_range(bset, boards_per_round, first_board), bset))
    label = name or f"Mitchell {t} tables" + (" (relay & bye stand)" if relay else " (skip)" if not odd else "")
    return Movement(label, tuple(sittings), kind="mitchell", one_field=bool(switch), shared_boards=relay,
                    stationary_ns=frozenset(range(1, t + 1)))


# -------------------------------------------------------------------------------------- Howell

@lru_cache(maxsize=64)
def _howell_design(m: int) -> tuple[tuple[tuple[int, int], ...], tuple[int, ...]]:
    """A starter and an adder in Z_m (a cyclic Room square) for a complete Howell of ``m + 1`` pairs.

    The starter pairs up Z_m minus 0 (0 meets the stationary pair) so that the differences cover every
    non-zero element once: its translates are the rounds, and every pair meets every other once. The
    adder a_0..a_{n-1} gives game k of round r the set r + a_k; the translates {x_k - a_k, y_k - a_k}
    and {-a_0} must cover Z_m so that each pair plays each set once. Distinct adder values mean no two
    tables share a set in a round. The patterned starter {i, -i} is tried first, then any starter;
    when no square exists (m = 3, 5) two tables may share a set (the fewest repeats are searched)."""
    n = (m + 1) // 2
    patterned = tuple((i, (m - i) % m) for i in range(1, n))
    for max_share in range(1, n + 1):
        starters = [patterned] if max_share > 1 else [patterned, *_starters(m)]
        for starter in starters:
            adder = _search_adder(m, list(starter), max_share)
            if adder is not None:
                return starter, adder
    raise MovementError(f"no Howell board assignment found for {m + 1} pairs")  # pragma: no cover


def _starters(m: int, limit: int = 2000) -> Iterator[tuple[tuple[int, int], ...]]:
    """Starters of Z_m other than the patterned one (at most ``limit``), by backtracking."""
    found = 0
    free = set(range(1, m))
    diffs: set[int] = set()
    chosen: list[tuple[int, int]] = []

    def rec() -> Iterator[tuple[tuple[int, int], ...]]:
        nonlocal found
        if not free:
            found += 1
            yield tuple(chosen)
            return
        x = min(free)
        free.discard(x)
        for y in sorted(free):
            d1, d2 = (y - x) % m, (x - y) % m
            if d1 in diffs or d2 in diffs or d1 == d2:
                continue
            free.discard(y)
            diffs.update((d1, d2))
            chosen.append((x, y))
            yield from rec()
            chosen.pop()
            diffs.difference_update((d1, d2))
            free.add(y)
            if found >= limit:
                break
        free.add(x)

    yield from rec()


def _search_adder(m: int, starter: list[tuple[int, int]], max_share: int) -> tuple[int, ...] | None:
    n = len(starter) + 1
    used_elems = [False] * m
    share = [0] * m
    adder = [0] * n

    def place(k: int) -> bool:
        if k == n:
            return True
        for a in range(m):
            if share[a] >= max_share:
                continue
            elems = [(-a) % m] if k == 0 else [(starter[k - 1][0] - a) % m, (starter[k - 1][1] - a) % m]
            if any(used_elems[e] for e in elems):
                continue
            for e in elems:
                used_elems[e] = True
            share[a] += 1
            adder[k] = a
            if place(k + 1):
                return True
            share[a] -= 1
            for e in elems:
                used_elems[e] = False
        return False

    return tuple(adder) if place(0) else None


def howell(pairs: int, boards_per_round: int = 2, *, first_board: int = 1, name: str | None = None) -> Movement:
    """A complete Howell for ``pairs`` pairs (an odd number gets a phantom; its opponents sit out):
    every pair meets every other pair once and plays every board set once."""
    if pairs < 3:
        raise MovementError("a Howell needs at least 3 pairs")
    p = pairs + (pairs % 2)
    m = p - 1
    starter, adder = _howell_design(m)
    phantom = p if pairs % 2 else None
    sittings = []
    for r in range(m):
        # pair numbers: element e of Z_m is pair e + 1; the fixed point (infinity) is pair p
        games = [(p, r + 1)] + [((x + r) % m + 1, (y + r) % m + 1) for x, y in starter]
        for k, (a, b) in enumerate(games):
            bset = (r + adder[k]) % m + 1
            ns, ew = (a, b) if k == 0 or (r + k) % 2 == 0 else (b, a)
            sittings.append(Sitting(k + 1, r + 1, None if ns == phantom else ns, None if ew == phantom else ew,
                                    board_range(bset, boards_per_round, first_board), bset))
    shared = len(set(adder)) < len(adder)
    return Movement(name or f"Howell {pairs} pairs", tuple(sittings), kind="howell", one_field=True,
                    shared_boards=shared)


# --------------------------------------------------------------------------------------- teams

def teams_match(boards: Sequence[int] | range, team_a: int = 1, team_b: int = 2, *, boards_per_round: int | None = None,
                name: str | None = None) -> Movement:
    """A two-table teams match: team A NS at table 1 (open room), EW at table 2 (closed room), on the
    same boards. ``boards_per_round`` splits the boards into rounds (segments); default one round."""
    bl = list(boards)
    if not bl:
        raise MovementError("a match needs boards")
    step = boards_per_round or len(bl)
    sittings = []
    for r, k in enumerate(range(0, len(bl), step), 1):
        chunk = tuple(bl[k:k + step])
        sittings += [Sitting(1, r, team_a, team_b, chunk), Sitting(2, r, team_b, team_a, chunk)]
    return Movement(name or f"Match {team_a} v {team_b}", tuple(sittings), kind="teams", one_field=True,
                    shared_boards=True)


def round_robin_teams(teams: int, boards_per_match: int, *, first_board: int = 1, name: str | None = None) -> Movement:
    """A round robin of two-table matches (circle method; an odd number of teams gets a bye). Round
    ``r`` plays boards ``(r-1)*b+1 .. r*b`` in every match (duplicated boards); match ``k`` uses tables
    ``2k - 1`` (home team NS, open room) and ``2k`` (closed room)."""
    if teams < 2:
        raise MovementError("a round robin needs at least 2 teams")
    p = teams + (teams % 2)
    ring = list(range(1, p + 1))
    sittings = []
    for r in range(p - 1):
        chunk = board_range(r + 1, boards_per_match, first_board)
        pairs = [(ring[i], ring[p - 1 - i]) for i in range(p // 2)]
        table = 1
        for a, b in pairs:
            if a > teams or b > teams:
                continue                                  # the bye
            if r % 2:
                a, b = b, a
            sittings += [Sitting(table, r + 1, a, b, chunk), Sitting(table + 1, r + 1, b, a, chunk)]
            table += 2
        ring = [ring[0]] + [ring[-1]] + ring[1:-1]
    return Movement(name or f"Round robin {teams} teams", tuple(sittings), kind="teams", one_field=True,
                    shared_boards=True)

