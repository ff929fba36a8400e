"""Session results <-> PBN 2.1 with score tables.

:func:`write_results_pbn` writes, per section:

1. one game per board with the board's tags (Board, Dealer, Vulnerable, Deal when known) and a
   ``ScoreTable`` (PBN 2.1 §5.7) with every table's result and what it earned;
2. optionally (``per_result=True``) one game per table result, in the style real files use: the players'
   pair numbers, Contract/Declarer/Result/Score and a ``ScoreMP``/``ScorePercentage`` or ``ScoreIMP`` tag;
3. one game holding the section's ``TotalScoreTable`` (§5.8), and the movement as a user-defined
   ``MovementTable`` (Table;Round;PairId_NS;PairId_EW;Boards) so that the file alone rebuilds the
   session.

:func:`read_results_pbn` rebuilds the :class:`~results.session.Session` (movement, entrants, results,
options) from such a file; re-exporting it gives the same text.

Encoding of the ScoreTable rows (PBN leaves adjusted scores open beyond the ``^`` mark):

- a table result: Contract (``Pass`` when passed out), Declarer, Result (declarer's tricks), Score_NS,
  Score_EW (= -Score_NS); ``-`` where irrelevant;
- an assigned adjusted score (Law 12C2): Contract/Declarer/Result ``-``, Score_NS ``^s`` (the score NS is
  judged on), Score_EW ``^-t`` (``t``: the NS-side score EW is judged on; a split score when ``t != s``);
- an artificial adjusted score (Law 12C1): Score_NS/Score_EW ``-``, the user-defined columns Award_NS /
  Award_EW hold ``A+``, ``A=``, ``A-`` or the value given, and the earned columns are ``^``-marked;
- the user-defined column Group names the form of a fouled board a table played (``-``: not fouled).
"""
from __future__ import annotations

import io
import os
from collections.abc import Iterable
from typing import IO, Any

from table.board import dealer_for, vulnerability_for
from table.cards import CardError, Deal, hand_to_pbn

from .errors import ScoreTableError
from .movement import Movement, Sitting
from .pbn_tables import Column, cell, format_table, quote, read_tables
from .scoring import LineScore, award_text, parse_award
from .session import BoardResult, Entrant, Scoring, Section, Session

__all__ = ["write_results_pbn", "results_pbn_text", "read_results_pbn"]

_PBN_SCORING = {Scoring.MATCHPOINTS: "MatchPoints", Scoring.CROSS_IMPS: "IMP;Cross", Scoring.BUTLER: "Butler",
                Scoring.TOTAL_POINTS: "TotalPoints", Scoring.TEAMS_IMPS: "IMP"}


def _f(v: float | None) -> str:
    return "-" if v is None else f"{v:.2f}"


def _score_columns(scoring: Scoring) -> list[Column]:
    base = [Column("Table", 2, "R"), Column("Round", 2, "R"), Column("PairId_NS", 3, "R"), Column("PairId_EW", 3, "R"),
            Column("Contract", 5, "L"), Column("Declarer", 1), Column("Result", 2, "R"), Column("Lead", 3, "L"),
            Column("Score_NS", 6, "R"), Column("Score_EW", 6, "R")]
    if scoring is Scoring.MATCHPOINTS:
        earned = [Column("MP_NS", 6, "R"), Column("MP_EW", 6, "R"), Column("Percentage_NS", 6, "R"),
                  Column("Percentage_EW", 6, "R")]
    elif scoring is Scoring.TOTAL_POINTS:
        earned = []
    else:
        earned = [Column("IMP_NS", 6, "R"), Column("IMP_EW", 6, "R")]
    return base + earned + [Column("Award_NS", 3, "L"), Column("Award_EW", 3, "L"), Column("Group")]


def _row(r: BoardResult, ls: LineScore, scoring: Scoring, mv: Movement) -> list[str]:
    dash = "-"
    if r.artificial:
        contract = declarer = result = dash
        s_ns = s_ew = dash
    elif r.assigned:
        contract = declarer = result = dash
        s_ns, s_ew = f"^{r.assigned[0]}", f"^{-r.assigned[1]}"
    else:
        contract = "Pass" if r.contract == "PASS" else (r.contract or "?")
        declarer = r.declarer or dash
        result = str(r.tricks) if r.tricks is not None else dash
        s_ns, s_ew = str(r.score_ns), str(-(r.score_ns or 0))
    art = "^" if r.artificial else ""
    if scoring is Scoring.MATCHPOINTS:
        earned = [art + _f(ls.ns), art + _f(ls.ew), art + _f(ls.ns_percent), art + _f(ls.ew_percent)]
    elif scoring is Scoring.TOTAL_POINTS:
        earned = []
    else:
        earned = [art + _f(ls.ns), art + _f(ls.ew)]
    awards = [award_text(r.artificial[0]), award_text(r.artificial[1])] if r.artificial else [dash, dash]
    return [str(r.table or dash), str(r.round or dash), str(mv.number(r.ns)), str(mv.number(r.ew)), contract,
            declarer, result,
            r.lead or dash, s_ns, s_ew] + earned + awards + [r.group or dash]


def _tag(name: str, value: str | None) -> str:
    return f"[{name} {quote('?' if value is None else value)}]"


def _deal(session: Session, board: int) -> str | None:
    """The board's deal with the dealer's hand first (PBN 2.1 export format), ``-`` for an unknown hand."""
    deal = session.deals.get(board)
    if not deal:
        return None
    try:
        hands = Deal.from_pbn(deal).hands
    except (CardError, ValueError):
        return deal                              # not a deal we can read: as given, for the reader to judge
    d = dealer_for(board)
    return f"{d.value}:" + " ".join(hand_to_pbn(hands[s]) if hands[s] else "-" for s in (d, d.lho, d.partner, d.rho))


def _names(names: Iterable[str]) -> str:
    """PBN <names>: the players separated by ';' (a ';' inside a name is written as ',')."""
    return ";".join(n.replace(";", ",") for n in names)


def _options(s: Session) -> str:
    return (f"law88={int(s.law88)};n_max={s.n_max};butler_trim={s.butler_trim};vp={int(s.vp)};"
            f"knockout={int(s.knockout)};kind={s.kind}")


def results_pbn_text(session: Session, *, per_result: bool = False) -> str:
    out = io.StringIO()
    write_results_pbn(session, out, per_result=per_result)
    return out.getvalue()


def write_results_pbn(session: Session, stream: IO[str], *, per_result: bool = False) -> None:
    """Write the session's results as PBN 2.1 export format (see the module notes)."""
    w = stream.write
    w("% PBN 2.1\n% EXPORT\n% results written by bridgetable\n\n")
    head = [_tag("Event", session.name), _tag("Site", session.site), _tag("Date", session.date)]
    for sec in session.sections.values():
        for board in session.boards(sec.id):
            tr = session.traveller(board, sec.id)
            if tr is None:
                continue
            lines = list(head) + [_tag("Section", sec.id), _tag("Board", str(board)),
                                  _tag("Dealer", dealer_for(board).value),
                                  _tag("Vulnerable", vulnerability_for(board).value),
                                  _tag("Deal", _deal(session, board)), _tag("Scoring", _PBN_SCORING[session.scoring]),
                                  _tag("Declarer", None), _tag("Contract", None), _tag("Result", None)]
            cols = _score_columns(session.scoring)
            rows = [_row(r, ls, session.scoring, sec.movement) for r, ls in zip(tr.results, tr.scores)]
            lines.append(format_table("ScoreTable", cols, rows))
            w("\n".join(lines) + "\n\n")
            if per_result:
                for r, ls in zip(tr.results, tr.scores):
                    w(_result_game(session, sec, r, ls) + "\n\n")
        w(_totals_game(session, sec) + "\n\n")


def _result_game(session: Session, sec: Section, r: BoardResult, ls: LineScore) -> str:
    tags = [_tag("Event", session.name), _tag("Site", session.site), _tag("Date", session.date),
            _tag("Section", sec.id), _tag("Table", str(r.table) if r.table else None),
            _tag("Round", str(r.round) if r.round else None), _tag("Board", str(r.board)),
            _tag("West", sec.entrant(r.ew).names[1] if len(sec.entrant(r.ew).names) > 1 else None),
            _tag("North", sec.entrant(r.ns).names[0] if sec.entrant(r.ns).names else None),
            _tag("East", sec.entrant(r.ew).names[0] if sec.entrant(r.ew).names else None),
            _tag("South", sec.entrant(r.ns).names[1] if len(sec.entrant(r.ns).names) > 1 else None),
            _tag("Dealer", dealer_for(r.board).value), _tag("Vulnerable", vulnerability_for(r.board).value),
            _tag("Deal", _deal(session, r.board)), _tag("Scoring", _PBN_SCORING[session.scoring]),
            _tag("PairId_NS", str(sec.movement.number(r.ns))), _tag("PairId_EW", str(sec.movement.number(r.ew)))]
    if r.kind == "table":
        c = "Pass" if r.contract == "PASS" else r.contract
        tags += [_tag("Declarer", r.declarer if r.declarer else ""), _tag("Contract", c),
                 _tag("Result", str(r.tricks) if r.tricks is not None else ""), _tag("Score", f"NS {r.score_ns}")]
    else:
        tags += [_tag("Declarer", None), _tag("Contract", None), _tag("Result", None)]
    if session.scoring is Scoring.MATCHPOINTS:
        tags.append(_tag("ScoreMP", f"NS {ls.ns:.2f}"))
        if ls.ns_percent is not None:                     # a board with one result has no top yet
            tags.append(_tag("ScorePercentage", f"NS {ls.ns_percent:.2f}"))
    elif session.scoring is not Scoring.TOTAL_POINTS:
        tags.append(_tag("ScoreIMP", f"NS {ls.ns:.2f}"))
    return "\n".join(tags + _auction_and_play(session, r))


def _auction_and_play(session: Session, r: BoardResult) -> list[str]:
    """A board played at the table: its ``Auction`` section from the dealer and its ``Play`` section from the
    opening leader (PBN 2.1 §3.5, §3.6: the lead is the play's first card); a claim ends the play with ``*``.
    Alerts are note references, an explanation in its note (the form ``table.formats.pbn`` reads back)."""
    from table.cards import SEATS
    from table.events import CallMade, CardPlayed
    from table.formats.pbn import _auction_lines, _play_lines
    if r.kind != "table" or not r.auction:
        return []
    dealer = dealer_for(r.board)
    alerts = dict(r.alerts)
    calls = [CallMade(seat=SEATS[(SEATS.index(dealer) + k) % 4], call=c, alert=k in alerts,
                      explanation=alerts.get(k) or None) for k, c in enumerate(r.auction)]
    lines, notes = _auction_lines(calls, dealer)
    out = [_tag("Auction", dealer.value)] + lines + [_tag("Note", note) for note in notes]
    deal = session.deals.get(r.board)
    if not r.play or not deal or not r.declarer:
        return out
    try:
        hands = Deal.from_pbn(deal).hands
    except (CardError, ValueError):
        return out
    owner = {c: seat for seat, cards in hands.items() for c in cards}
    if any(c not in owner for c in r.play):
        return out
    declarer = next(seat for seat in SEATS if seat.value == r.declarer)
    strain = (r.contract or "").rstrip("X")[1:]
    cards = [CardPlayed(seat=owner[c], card=c) for c in r.play]
    trump = None if strain == "NT" else strain
    return out + [_tag("Play", declarer.lho.value)] + _play_lines(cards, declarer.lho, trump, False)


def _totals_game(session: Session, sec: Section) -> str:
    teams = session.scoring is Scoring.TEAMS_IMPS
    cols = [Column("Rank", 3, "R"), Column("PairId", 3, "R"), Column("Field", 3, "L"), Column("Names"),
            Column("NrBoards", 3, "R")]
    if session.scoring is Scoring.MATCHPOINTS:
        cols += [Column("TotalMP", 8, "R"), Column("MaxMP", 8, "R"), Column("TotalPercentage", 6, "R")]
    elif teams:
        cols += [Column("TotalIMP", 7, "R")] + ([Column("TotalVP", 6, "R")] if session.vp else [])
    elif session.scoring is Scoring.TOTAL_POINTS:
        cols += [Column("TotalScore", 7, "R")]
    else:
        cols += [Column("TotalIMP", 7, "R")]
    cols += [Column("Players"), Column("NationalIds")]
    rows = []
    for rr in session.ranking(sec.id):
        en = sec.entrants.get(rr.entrant)
        names = (en.team_name if teams and en and en.team_name else _names(en.names) if en else "") or "-"
        players = _names(en.names) if teams and en and en.names else "-"
        ids = _names(en.ids) if en and en.ids else "-"
        vals = [str(rr.place), str(sec.movement.number(rr.entrant)), rr.field, names, str(rr.boards)]
        if session.scoring is Scoring.MATCHPOINTS:
            vals += [f"{rr.total:.2f}", f"{rr.top:.2f}", f"{rr.score:.2f}"]
        elif teams:
            vals += [f"{rr.total:.2f}"] + ([f"{rr.score:.2f}"] if session.vp else [])
        else:
            vals += [f"{rr.total:.2f}"]
        vals += [players, ids]
        rows.append(vals)
    mv = sec.movement
    mrows = [[str(s.table), str(s.round), "-" if s.ns is None else str(mv.number(s.ns)),
              "-" if s.ew is None else str(mv.number(s.ew)),
              _boards(s), "-" if s.board_set is None else str(s.board_set)] for s in mv.sittings]
    tags = [_tag("Event", session.name), _tag("Site", session.site), _tag("Date", session.date),
            _tag("Section", sec.id), _tag("Board", None), _tag("Scoring", _PBN_SCORING[session.scoring]),
            _tag("BridgetableScoring", session.scoring.value), _tag("BridgetableOptions", _options(session)),
            _tag("MovementName", mv.name), _tag("MovementKind", mv.kind),
            _tag("MovementFlags", f"one_field={int(mv.one_field)};shared_boards={int(mv.shared_boards)};"
                                  f"stationary_ns={','.join(map(str, sorted(mv.stationary_ns))) or '-'}")]
    deals = [[str(b), d] for b, d in sorted(session.deals.items())]
    movement_cols = [Column("Table", 2, "R"), Column("Round", 2, "R"), Column("PairId_NS", 3, "R"),
                     Column("PairId_EW", 3, "R"), Column("Boards", 5, "L"), Column("Set")]
    parts = ["\n".join(tags), format_table("TotalScoreTable", cols, rows),
             format_table("MovementTable", movement_cols, mrows)]
    if deals:
        parts.append(format_table("DealTable", [Column("Board", 3, "R"), Column("Deal")], deals))
    return "\n".join(parts)


def _boards(s: Sitting) -> str:
    from .movement import _boards_text
    return _boards_text(s.boards)


# ------------------------------------------------------------------------------------- reading

def read_results_pbn(src: str | os.PathLike[str] | IO[Any]) -> Session:
    """Rebuild a session from a file written by :func:`write_results_pbn`."""
    games = read_tables(src)
    totals = [g for g in games if "TotalScoreTable" in g.tables and "MovementTable" in g.tables]
    if not totals:
        raise ScoreTableError("no TotalScoreTable with a MovementTable: not a bridgetable results file")
    first = totals[0].tags
    scoring = Scoring(first.get("BridgetableScoring", "MP"))
    opts = dict(kv.split("=", 1) for kv in first.get("BridgetableOptions", "").split(";") if "=" in kv)
    sections: list[Section] = []
    entrants: dict[str, list[Entrant]] = {}
    ew_offset: dict[str, int] = {}          # a two-field Mitchell's East-West pairs are numbered 1..T, as shown
    deals: dict[int, str] = {}
    for g in totals:
        sid = g.tags.get("Section", "A")
        flags = dict(kv.split("=", 1) for kv in g.tags.get("MovementFlags", "").split(";") if "=" in kv)
        stat = flags.get("stationary_ns", "-")
        text = ["# name: " + g.tags.get("MovementName", "custom"), "# kind: " + g.tags.get("MovementKind", "custom"),
                "# one_field: " + ("yes" if flags.get("one_field", "1") == "1" else "no"),
                "# shared_boards: " + ("yes" if flags.get("shared_boards", "0") == "1" else "no")]
        if stat != "-":
            text.append("# stationary_ns: " + stat)
        off = ew_offset[sid] = len(stat.split(",")) if stat != "-" and g.tags.get("MovementKind") == "mitchell" else 0
        for d in g.tables["MovementTable"].dicts():
            ew = d["PairId_EW"] if d["PairId_EW"] == "-" else str(int(d["PairId_EW"]) + off)
            text.append(" ".join([d["Table"], d["Round"], d["PairId_NS"], ew, d["Boards"]]
                                 + ([d["Set"]] if d.get("Set", "-") != "-" else [])))
        mv = Movement.from_text("\n".join(text) + "\n")
        sections.append(Section(sid, mv))
        teams = scoring is Scoring.TEAMS_IMPS
        ens = []
        for d in g.tables["TotalScoreTable"].dicts():
            number = int(d["PairId"]) + (off if d.get("Field") == "EW" else 0)
            names, _ = cell(d.get("Names", "-"))
            players, _ = cell(d.get("Players", "-"))
            ids, _ = cell(d.get("NationalIds", "-"))
            if teams:
                en = Entrant(number, tuple(players.split(";")) if players else (), team_name=names,
                             ids=tuple(ids.split(";")) if ids else ())
            else:
                en = Entrant(number, tuple(names.split(";")) if names else (),
                             ids=tuple(ids.split(";")) if ids else ())
            if en.names or en.team_name or en.ids:
                ens.append(en)
        entrants[sid] = ens
        if "DealTable" in g.tables:
            deals.update({int(d["Board"]): d["Deal"] for d in g.tables["DealTable"].dicts()})
    head = totals[0].tags
    session = Session(head.get("Event", ""), scoring, sections, kind=opts.get("kind"),
                      date=_opt(head.get("Date")), site=_opt(head.get("Site")), deals=deals,
                      n_max=opts.get("n_max", "results"), law88=opts.get("law88", "1") == "1",
                      butler_trim=int(opts.get("butler_trim", "1")), vp=opts.get("vp", "0") == "1",
                      knockout=opts.get("knockout", "0") == "1")
    for sid, ens in entrants.items():
        for en in ens:
            session.add_entrant(en, sid)
    for g in games:
        st = g.tables.get("ScoreTable")
        if st is None or "Board" not in g.tags or not (g.tags["Board"].isascii() and g.tags["Board"].isdigit()):
            continue
        board = int(g.tags["Board"])
        sid = g.tags.get("Section", "A")
        for d in st.dicts():
            session.add_result(_result_from_row(board, d, ew_offset.get(sid, 0)), sid)
    return session


def _opt(v: str | None) -> str | None:
    return None if v in (None, "?", "") else v


def _result_from_row(board: int, d: dict[str, str], ew_offset: int = 0) -> BoardResult:
    table, _ = cell(d.get("Table", "-"))
    rnd, _ = cell(d.get("Round", "-"))
    lead, _ = cell(d.get("Lead", "-"))
    group, _ = cell(d.get("Group", "-"))
    ns, ew = int(d["PairId_NS"]), int(d["PairId_EW"]) + ew_offset

    def result(**kind: Any) -> BoardResult:
        return BoardResult(board, ns, ew, table=int(table) if table else None, round=int(rnd) if rnd else None,
                           lead=lead, group=group, **kind)
    a_ns, _ = cell(d.get("Award_NS", "-"))
    a_ew, _ = cell(d.get("Award_EW", "-"))
    if a_ns is not None or a_ew is not None:
        return result(artificial=(parse_award(a_ns or "A="), parse_award(a_ew or "A=")))
    s_ns, art_ns = cell(d.get("Score_NS", "-"))
    s_ew, _ = cell(d.get("Score_EW", "-"))
    if art_ns:
        if s_ns is None:
            raise ScoreTableError(f"board {board}: an assigned score without a value")
        return result(assigned=(int(s_ns), -int(s_ew) if s_ew is not None else int(s_ns)))
    contract, _ = cell(d.get("Contract", "-"))
    if contract is None or s_ns is None:
        raise ScoreTableError(f"board {board}: row {d} has neither a result nor an adjusted score")
    declarer, _ = cell(d.get("Declarer", "-"))
    tricks, _ = cell(d.get("Result", "-"))
    return result(contract="PASS" if contract.upper().startswith("PASS") else contract,
                  declarer=declarer, tricks=int(tricks) if tricks else None, score_ns=int(s_ns))
