"""``bridgetable score PATH...``: score a session from PBN game records of its results.

Each game with a board and the players is one table's result: its Contract, Declarer and Result tags
(the result the table agreed and the scorers used), else the law engine's verdict on its auction and play
(table/replay.py). A game whose tags and play disagree is scored on its tags and reported on stderr;
games without a result (an unfinished play without a claim or Result, no board) are reported and left out.

Who played: the ``PairId_NS``/``PairId_EW`` tags when the games have them, else the players' names (a
pair is its two names, whichever direction it sits), numbered in order of appearance. The movement is
``--movement FILE`` (a table of rounds, docs/results.md; the games then need PairId tags), else it is
built from the games: one sitting per round (``Round`` tag, else one round per meeting) and pairs met,
tables from the ``Table`` tag or numbered in order, boards shared between tables of a round. Teams
(``--method imp``) without a movement file: the ``HomeTeam``/``VisitTeam`` tags name the teams, the
home team sits North-South in the open room (``Room`` tag) and East-West in the closed room.
"""
from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from results.movement import Movement
    from results.session import Session
    from table.record import Recorded

METHODS = {"mp": "MP", "imp": "IMP", "butler": "BUTLER", "cross-imp": "XIMP"}


@dataclass
class _Game:
    where: str
    board: int
    vulnerable: Any
    deal: str | None
    ns: tuple[str, ...]            # the NS entrant's key (pair id, names or team)
    ew: tuple[str, ...]
    ns_names: tuple[str, ...]
    ew_names: tuple[str, ...]
    round: int | None
    table: int | None
    contract: str
    declarer: str | None
    tricks: int | None


def _int(v: str | None) -> int | None:
    v = (v or "").strip()
    return int(v) if v.isdecimal() and len(v) < 7 else None


def _player(tags: dict[str, str], seat: str) -> str:
    v = (tags.get(seat) or "").strip()
    return "" if v in ("?", "-") else v


Result = tuple[str, str | None, int | None]      # contract, declarer, declarer's tricks


def _tagged_result(rc: Recorded) -> Result | None:
    """(contract, declarer, declarer's tricks) from the Contract/Declarer/Result tags, if they say it all
    (Result as declarer's tricks, ``9``, or per side, ``NS 9`` / ``EW 4``)."""
    from table.scoring import parse_contract
    try:
        c = parse_contract(rc.contract) if rc.contract else False
    except ValueError:
        return None
    if c is None:
        return ("PASS", None, None)
    declarer = (rc.declarer or "").strip().upper()[:1]
    if c is False or declarer not in ("N", "E", "S", "W") or not rc.result:
        return None
    parts = rc.result.replace("^", " ").split()
    side = "NS" if declarer in "NS" else "EW"
    pairs = dict(zip(parts[::2], parts[1::2]))
    if len(parts) == 1 and parts[0].isdecimal():
        tricks = int(parts[0])
    elif side in pairs and pairs[side].isdecimal():
        tricks = int(pairs[side])
    elif len(pairs) == 1 and next(iter(pairs.values())).isdecimal():
        tricks = 13 - int(next(iter(pairs.values())))
    else:
        return None
    return (str(c), declarer, tricks) if 0 <= tricks <= 13 else None


def _text(result: Result) -> str:
    contract, declarer, tricks = result
    return "passed out" if contract == "PASS" else f"{contract} by {declarer}, {tricks} tricks"


def _games(paths: Iterable[Path], teams: bool, reports: list[str]) -> list[_Game]:
    from table.events import BoardStarted
    from table.formats.pbn import read_pbn
    from table.replay import verdict
    games = []
    for path in paths:
        for rec in read_pbn(path, source=str(path)):
            where = f"{path}#{rec.index}"
            v = verdict(rec)
            engine: Result | None = (v["contract"], v["declarer"], v["tricks"]) \
                if v["status"] in ("complete", "claimed", "passed_out") else None
            tagged = _tagged_result(rec.recorded)
            if tagged is None and engine is None:
                reports.append(f"{where}: no result ({v['status']}{': ' + v['error'] if v['error'] else ''})")
                continue
            if tagged is not None and engine is not None and tagged != engine:
                reports.append(f"{where}: the tags say {_text(tagged)}, the auction and play {_text(engine)}: "
                               "the tags are scored")
            result = tagged or engine
            start = rec.events[0] if rec.events else None
            if result is None or not isinstance(start, BoardStarted) or start.board is None:
                reports.append(f"{where}: no board number")
                continue
            contract, declarer, tricks = result
            tags = rec.tags
            ns_names = tuple(_player(tags, s) for s in ("North", "South"))
            ew_names = tuple(_player(tags, s) for s in ("East", "West"))
            ns: tuple[str, ...]
            ew: tuple[str, ...]
            if teams:
                home, visit, room = tags.get("HomeTeam"), tags.get("VisitTeam"), tags.get("Room", "").lower()
                if not home or not visit or room not in ("open", "closed"):
                    reports.append(f"{where}: teams need HomeTeam, VisitTeam and Room (Open/Closed) tags")
                    continue
                ns, ew = ((home,), (visit,)) if room == "open" else ((visit,), (home,))
                tags = {**tags, "Table": "1" if room == "open" else "2"}
            elif _int(tags.get("PairId_NS")) is not None and _int(tags.get("PairId_EW")) is not None:
                ns, ew = ("#" + tags["PairId_NS"].strip(),), ("#" + tags["PairId_EW"].strip(),)
            elif all(ns_names) and all(ew_names):
                ns, ew = tuple(sorted(ns_names)), tuple(sorted(ew_names))
            else:
                reports.append(f"{where}: no PairId_NS/PairId_EW tags and not all four players named")
                continue
            games.append(_Game(where, start.board, start.vulnerable, start.deal, ns, ew, ns_names, ew_names,
                               _int(tags.get("Round")), _int(tags.get("Table")), contract, declarer, tricks))
    return games


def _number(games: list[_Game]) -> dict[tuple[str, ...], int]:
    keys: dict[tuple[str, ...], int] = {}
    ids: dict[tuple[str, ...], int] = {k: int(k[0][1:]) for g in games for k in (g.ns, g.ew)
                                       if len(k) == 1 and k[0].startswith("#")}
    if ids and len(ids) == len({k for g in games for k in (g.ns, g.ew)}):
        return ids
    for g in games:
        for k in (g.ns, g.ew):
            keys.setdefault(k, len(keys) + 1)
    return keys


def _movement(games: list[_Game], number: dict[tuple[str, ...], int], teams: bool) -> Movement:
    from results.movement import Movement, Sitting
    by_round = all(g.round is not None for g in games)
    meetings: dict[frozenset[int], int] = {}
    sittings: dict[tuple[int, int, int], dict[str, Any]] = {}
    for g in games:
        ns, ew = number[g.ns], number[g.ew]
        rnd = g.round if by_round and g.round is not None else meetings.setdefault(frozenset((ns, ew)),
                                                                                  len(meetings) + 1)
        s = sittings.setdefault((rnd, ns, ew), {"boards": set(), "table": g.table})
        s["boards"].add(g.board)
    tables: dict[int, int] = {}
    out = []
    for (rnd, ns, ew), s in sorted(sittings.items(), key=lambda kv: (kv[0][0], kv[1]["table"] or 0, kv[0][1:])):
        tables[rnd] = tables.get(rnd, 0) + 1
        table = s["table"] or tables[rnd]
        out.append(Sitting(table, rnd, ns, ew, tuple(sorted(s["boards"]))))
    if not teams:                                # Table tags may repeat in a round: number them then
        seen = {(s.table, s.round) for s in out}
        if len(seen) != len(out):
            count: dict[int, int] = {}
            renum = []
            for st in out:
                count[st.round] = count.get(st.round, 0) + 1
                renum.append(Sitting(count[st.round], st.round, st.ns, st.ew, st.boards))
            out = renum
    return Movement("from the results", tuple(out), kind="teams" if teams else "custom", one_field=True,
                    shared_boards=True)


def build_session(paths: Iterable[Path], method: str = "mp",
                  movement_file: Path | None = None) -> tuple[Session, list[str]]:
    """The scored session and the reports on games left out."""
    from results.errors import ResultsError
    from results.movement import Movement
    from results.session import BoardResult, Entrant, Session
    teams = method == "imp"
    reports: list[str] = []
    games = _games(paths, teams, reports)
    if not games:
        raise ResultsError("no game with a result in the files")
    # a pair plays a board once, a team once in each direction: later copies are reported; so is a game
    # whose deal is not the one the board's first game had (files that number each round's boards anew)
    seen: set[tuple[object, ...]] = set()
    deal_of: dict[int, str] = {}
    kept = []
    for g in games:
        if g.deal and deal_of.setdefault(g.board, g.deal) != g.deal:
            reports.append(f"{g.where}: board {g.board} has another deal than its first game: left out")
            continue
        keys = {(g.board, g.ns, "NS"), (g.board, g.ew, "EW")} if teams else {(g.board, g.ns), (g.board, g.ew)}
        if keys & seen:
            reports.append(f"{g.where}: board {g.board} already scored for these players: left out")
            continue
        seen |= keys
        kept.append(g)
    games = kept
    if movement_file is not None:
        if not all(k[0].startswith("#") for g in games for k in (g.ns, g.ew)):
            raise ResultsError("--movement needs PairId_NS/PairId_EW tags in every game")
        number = {k: int(k[0][1:]) for g in games for k in (g.ns, g.ew)}
        mv = Movement.from_text(Path(movement_file).read_text(encoding="utf-8"))
    else:
        number = _number(games)
        mv = _movement(games, number, teams)
    names: dict[int, tuple[str, ...]] = {}
    for g in games:
        if teams:
            names.setdefault(number[g.ns], ())
        else:
            names.setdefault(number[g.ns], g.ns_names)
            names.setdefault(number[g.ew], g.ew_names)
    first = games[0]
    entrants = [Entrant(n, team_name=k[0]) if teams else Entrant(n, tuple(x for x in names[n] if x))
                for k, n in number.items()]
    deals = {g.board: g.deal for g in games if g.deal and "-" not in g.deal.split()}
    session = Session(Path(first.where.split("#")[0]).stem, METHODS[method], mv, entrants=entrants, deals=deals)
    for g in games:
        try:
            session.add_result(BoardResult.played(g.board, number[g.ns], number[g.ew], g.contract, g.declarer,
                                                  g.tricks, vulnerability=g.vulnerable))
        except ResultsError as err:
            reports.append(f"{g.where}: {err}")
    return session, reports


def _fmt(v: float | None) -> str:
    return "" if v is None else f"{v:.2f}"


def render(session: Session) -> str:
    """Travellers and rankings as text."""
    out = []
    imp = session.scoring.value != "MP"
    for sec in session.sections.values():
        for b in session.boards(sec.id):
            tr = session.traveller(b, sec.id)
            if tr is None:
                continue
            out.append(f"Board {b}")
            for r, ls in zip(tr.results, tr.scores):
                res = "Pass" if r.contract == "PASS" else f"{r.contract} {r.declarer} {r.tricks}"
                extra = f"  datum {ls.datum}" if ls.datum is not None else ""
                unit = "IMP" if imp else "MP"
                out.append(f"  T{r.table} R{r.round}  {r.ns:>3} v {r.ew:<3} {res:<12} {r.score_ns:>6}  "
                           f"{unit} {_fmt(ls.ns):>7} {_fmt(ls.ew):>7}{extra}")
        out.append(f"\nRanking ({session.scoring.value})")
        for rr in session.ranking(sec.id):
            score = f"{rr.score:.2f}" + (" %" if not imp else " IMP" if session.scoring.value != "IMP" else "")
            out.append(f"  {rr.place_text:>4} {rr.label:>6}  {score:>10}  {rr.boards:>3} boards  {rr.display}")
    return "\n".join(out) + "\n"


def write_out(session: Session, path: Path) -> list[Path]:
    """Write the export chosen by the extension; returns the files written."""
    from results.export_csv import ranking_csv, travellers_csv
    from results.export_pbn import results_pbn_text
    from results.export_usebio import usebio_xml
    ext = path.suffix.lower()
    if ext == ".xml":
        path.write_bytes(usebio_xml(session))
        return [path]
    if ext == ".pbn":
        path.write_text(results_pbn_text(session), encoding="utf-8")
        return [path]
    if ext == ".csv":
        trav = path.with_name(path.stem + ".travellers.csv")
        path.write_text(ranking_csv(session), encoding="utf-8")
        trav.write_text(travellers_csv(session), encoding="utf-8")
        return [path, trav]
    raise click.BadParameter(f"{path}: --out must end in .xml (USEBIO), .pbn (PBN score tables) or .csv")


@click.command("score")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--method", type=click.Choice(sorted(METHODS)), default="mp", show_default=True,
              help="mp: matchpoints; butler, cross-imp: IMP pairs; imp: two-table team matches")
@click.option("--movement", "movement_file", type=click.Path(exists=True, dir_okay=False),
              help="the movement as a table of rounds (else built from the games)")
@click.option("--out", "outs", multiple=True, type=click.Path(dir_okay=False),
              help="export: .xml USEBIO 1.2, .pbn PBN with ScoreTable/TotalScoreTable, .csv ranking (and "
                   "<name>.travellers.csv); may be given more than once")
def score(paths: tuple[str, ...], method: str, movement_file: str | None, outs: tuple[str, ...]) -> None:
    """Score a session from PBN files of its results; print travellers and rankings."""
    from results.errors import ResultsError

    files = [f for p in map(Path, paths)
             for f in (sorted(x for x in p.rglob("*") if x.is_file()) if p.is_dir() else [p])
             if f.suffix.lower() == ".pbn"]
    if not files:
        raise click.BadParameter("no .pbn file among the paths")
    for out in outs:
        if Path(out).suffix.lower() not in (".xml", ".pbn", ".csv"):
            raise click.BadParameter(f"{out}: --out must end in .xml, .pbn or .csv")
    try:
        session, reports = build_session(files, method, Path(movement_file) if movement_file else None)
    except ResultsError as err:
        click.echo(f"error: {err}", err=True)
        sys.exit(1)
    for r in reports:
        click.echo(r, err=True)
    click.echo(render(session), nl=False)
    for out in outs:
        for p in write_out(session, Path(out)):
            click.echo(f"wrote {p}", err=True)
