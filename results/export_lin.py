"""Session results -> BBO LIN with the results in ``rs|``.

- Teams (two-table matches): one vugraph-style text per match: ``vg|title,segment,I,first,last,team A,0,
  team B,0|``, then ``rs|`` with every board's open-room and closed-room result in board order (the
  layout ``table.formats.lin`` reads: entry ``2 * (b - first) + room``), ``pn|`` when the players are
  known, and one ``qx|o<b>`` / ``qx|c<b>`` record per table (deal and vulnerability).
- Pairs: one text per board, a traveller: ``vg|`` names the board, ``rs|`` lists the tables' results in
  the traveller's order, and one ``qx|o<table>`` record per table (LIN has no other place for a pairs
  traveller; readers that expect two rooms read the first two), each with the players (``pn``).
- A board played at the table carries its auction (``mb``, ``!`` for an alert and an ``an`` with its written
  explanation) and play (``pc``, a ``pg`` after each trick) as BBO
  writes them, and ``mc`` (declarer's tricks) when a claim ended the play; a keyed result only ``pg||``.

An ``rs`` entry is level, strain (``N`` for notrump), declarer, ``X``/``XX``, then ``=`` or the over/under
tricks (``4SN=``, ``3NEX-2``); ``PASS`` for a passed-out board; an adjusted score has no LIN form and is
written as ``ADJ``.
"""
from __future__ import annotations

from table.board import vulnerability_for
from table.scoring import parse_contract
from table.texts import Text

from .errors import ResultsError
from .session import BoardResult, Scoring, Session

__all__ = ["lin_rs_entry", "lin_results"]

_VUL = {"None": "o", "NS": "n", "EW": "e", "All": "b"}


def lin_rs_entry(r: BoardResult | None) -> str:
    if r is None:
        return ""
    if r.kind != "table":
        return "ADJ"
    if r.contract == "PASS":
        return "PASS"
    c = parse_contract(r.contract or "")
    if c is None or r.declarer is None or r.tricks is None:
        return ""
    diff = r.tricks - (c.level + 6)
    res = "=" if diff == 0 else f"{diff:+d}"
    return f"{c.level}{'N' if c.strain == 'NT' else c.strain}{r.declarer}{c.risk}{res}"


def _played(r: BoardResult | None) -> str:
    """A board played at the table as BBO writes it: the calls (``mb``), a page, the cards (``pc``) with a page
    after each trick, and a claim (``mc``, declarer's total tricks) when the play stopped short of 13 tricks."""
    from table.formats.lin import _mb
    if r is None or r.kind != "table" or not r.auction:
        return "pg||"
    alerts = dict(r.alerts)
    out = "".join(_mb(c, k in alerts, alerts.get(k)) for k, c in enumerate(r.auction)) + "pg||"
    for k, card in enumerate(r.play, 1):
        out += f"pc|{card}|" + ("pg||" if k % 4 == 0 else "")
    if r.play and len(r.play) < 52 and r.tricks is not None:
        out += f"mc|{r.tricks}|pg||"
    return out


def _md(session: Session, board: int) -> str:
    from table.events import board_started
    from table.formats.lin import _md as lin_md  # the LIN writer's own deal encoding
    return lin_md(board_started(board, deal=session.deals.get(board)))


def _clean(s: str) -> str:
    return s.replace("|", " ").replace(",", " ")


def _players(ns: tuple[str, ...], ew: tuple[str, ...]) -> str:
    """``pn``: South, West, North, East (North and East are each pair's first name); every table's record starts
    with one, as BBO writes it (readers such as endplay start a board at each ``pn``)."""
    def at(names: tuple[str, ...], i: int) -> str:
        return _clean(names[i]) if i < len(names) else ""
    return ",".join((at(ns, 1), at(ew, 1), at(ns, 0), at(ew, 0)))


def lin_results(session: Session, section: str | None = None) -> list[str]:
    """LIN texts (one per match for teams, one per board for pairs), each ending with a newline."""
    sec = session.section(section)
    out = []
    if session.scoring is Scoring.TEAMS_IMPS:
        for m in session.matches(sec.id):
            a, b = m["team"], m["opponent"]
            boards = m["boards"]
            rs = []
            recs = []
            for bd in boards:
                tr = session.traveller(bd, sec.id)
                res = {(r.ns, r.ew): r for r in (tr.results if tr else [])}
                for room, key in (("o", (a, b)), ("c", (b, a))):
                    rs.append(lin_rs_entry(res.get(key)))
                    recs.append(f"qx|{room}{bd}|md|{_md(session, bd)}|sv|{_VUL[vulnerability_for(bd).value]}|"
                                + _played(res.get(key)))
            names = [_clean(sec.entrant(t).display) for t in (a, b)]
            head = (f"vg|{_clean(session.name)},Round {m['round']},I,{boards[0]},{boards[-1]},"
                    f"{names[0]},0,{names[1]},0|\nrs|{','.join(rs)}|\n")
            out.append(head + "\n".join(recs) + "\n")
        return out
    for tr in session.travellers(sec.id):
        bd = tr.board
        rs = [lin_rs_entry(r) for r in tr.results]
        recs = [f"qx|o{r.table or i + 1}|pn|{_players(sec.entrant(r.ns).names, sec.entrant(r.ew).names)}|"
                f"md|{_md(session, bd)}|sv|{_VUL[vulnerability_for(bd).value]}|{_played(r)}"
                for i, r in enumerate(tr.results)]
        scoring = "P" if session.scoring is Scoring.MATCHPOINTS else "I"
        out.append(f"vg|{_clean(session.name)},Board {bd},{scoring},{bd},{bd},NS,0,EW,0|\nrs|{','.join(rs)}|\n"
                   + "\n".join(recs) + "\n")
    if not out:
        raise ResultsError(Text("results.none", "no results to write"))
    return out
