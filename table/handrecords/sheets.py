"""Printable hand-record sheets (HTML): each board's diagram, its double-dummy table and par.

The double-dummy figures come from endplay (``endplay.dds.calc_dd_table`` — Bo Haglund's DDS — and
``endplay.dds.par``), imported only here, so the rest of the project does not need it. The page is
one self-contained HTML file with print CSS (A4, boards never split across pages).
"""
from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

from ..board import Vulnerability
from ..cards import SEATS, Seat
from ..dds import SOLVER_LOCK, solver_only
from .base import HandRecordBoard, suits_of

_SYMBOL = {"S": "&spades;", "H": "<span class=r>&hearts;</span>", "D": "<span class=r>&diams;</span>",
           "C": "&clubs;", "NT": "NT"}
_STRAINS = ("NT", "S", "H", "D", "C")
_VUL_TEXT = {Vulnerability.NONE: "None", Vulnerability.NS: "N-S", Vulnerability.EW: "E-W", Vulnerability.ALL: "All"}


@dataclass(frozen=True)
class Analysis:
    tricks: dict[tuple[str, str], int]      # (seat, strain) -> tricks declarer takes, strains S H D C NT
    par_score: int                          # from North-South's side
    par_contracts: tuple[str, ...]          # "4SW=", "6HXE-4"


def analyse(board: HandRecordBoard) -> Analysis:
    """Double-dummy tricks for every declarer and strain, and the par result (endplay / DDS)."""
    solver_only()
    from endplay.dds import calc_dd_table, par
    from endplay.types import Deal as EDeal
    from endplay.types import Penalty, Player, Vul

    vul = {Vulnerability.NONE: Vul.none, Vulnerability.NS: Vul.ns, Vulnerability.EW: Vul.ew,
           Vulnerability.ALL: Vul.both}[board.vulnerable]
    with SOLVER_LOCK:
        table = calc_dd_table(EDeal(board.deal.to_pbn()))
        rows = table.to_list()                  # [strain S H D C NT][player N E S W]
        result = par(table, vul, Player.find(board.dealer.value))
    tricks = {(str(s), strain): rows[k][i] for k, strain in enumerate(("S", "H", "D", "C", "NT"))
              for i, s in enumerate(SEATS)}
    seen: list[str] = []
    for c in result:
        risk = {Penalty.doubled: "X", Penalty.redoubled: "XX"}.get(c.penalty, "")
        strain = "NT" if c.denom.name == "nt" else c.denom.name[0].upper()
        text = f"{c.level}{strain}{risk}{'NESW'[int(c.declarer)]}{'=' if c.result == 0 else f'{c.result:+d}'}"
        if text not in seen:
            seen.append(text)
    return Analysis(tricks, int(result.score), tuple(seen))


def _hand(board: HandRecordBoard, seat: Seat) -> str:
    lines = [f"{_SYMBOL[s]}&nbsp;{html.escape(r.replace('T', '10')) or '&mdash;'}"
             for s, r in zip("SHDC", suits_of(board.deal, seat))]
    return "<br>".join(lines)


def _contract(text: str) -> str:
    level, rest = text[0], text[1:]
    strain = "NT" if rest.startswith("NT") else rest[0]
    return f"{level}{_SYMBOL[strain]}{html.escape(rest[len(strain):])}"


def board_html(board: HandRecordBoard, a: Analysis | None) -> str:
    n, e, s, w = (_hand(board, x) for x in SEATS)
    if a is None:
        return _board_section(board, n, e, s, w, "<p class=par>No double-dummy analysis for this deal.</p>")
    head = "".join(f"<th>{_SYMBOL[x]}</th>" for x in _STRAINS)
    body = "".join(f"<tr><th>{x}</th>" + "".join(f"<td>{a.tricks[(x, st)]}</td>" for st in _STRAINS) + "</tr>"
                   for x in ("N", "S", "E", "W"))
    par = ", ".join(_contract(c) for c in a.par_contracts) or "passed out"
    return _board_section(board, n, e, s, w, f"""<table class=dd><tr><th></th>{head}</tr>{body}</table>
<p class=par>Par: NS {a.par_score:+d} &middot; {par}</p>""")


def _board_section(board: HandRecordBoard, n: str, e: str, s: str, w: str, analysis: str) -> str:
    return f"""<section class=board>
<h2>Board {board.board}</h2>
<p class=meta>Dealer {board.dealer.value} &middot; Vulnerable {_VUL_TEXT[board.vulnerable]}</p>
<table class=diagram>
<tr><td></td><td>{n}</td><td></td></tr>
<tr><td>{w}</td><td class=compass>N<br>W&nbsp;&nbsp;E<br>S</td><td>{e}</td></tr>
<tr><td></td><td>{s}</td><td></td></tr>
</table>
{analysis}
</section>"""


_CSS = """
@page { size: A4; margin: 12mm; }
body { font-family: "DejaVu Sans", Arial, sans-serif; font-size: 10pt; margin: 0; }
h1 { font-size: 14pt; margin: 0 0 6pt; }
.sheet { display: grid; grid-template-columns: 1fr 1fr; gap: 6mm; }
.board { border: 1px solid #888; padding: 3mm; break-inside: avoid; page-break-inside: avoid; }
.board h2 { font-size: 12pt; margin: 0; }
.meta, .par { margin: 2pt 0; }
.diagram td { vertical-align: top; padding: 1pt 6pt; white-space: nowrap; }
.compass { text-align: center; color: #666; font-size: 8pt; }
.dd { border-collapse: collapse; margin-top: 3pt; }
.dd th, .dd td { border: 1px solid #bbb; padding: 0 4pt; text-align: center; }
.r { color: #c00; }
"""


def render(boards: Sequence[HandRecordBoard], title: str = "Hand records",
           analyses: Sequence[Analysis | None] | None = None) -> str:
    """The whole page: every board with its analysis (``analyses``, one per board, when computed ahead of time;
    None for a board the solver could not analyse: its diagram alone)."""
    found = analyses if analyses is not None else [analyse(b) for b in boards]
    sections = "\n".join(board_html(b, a) for b, a in zip(boards, found, strict=True))
    return (f"<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8><title>{html.escape(title)}</title>"
            f"<style>{_CSS}</style></head>\n<body><h1>{html.escape(title)}</h1>\n<div class=sheet>\n{sections}\n"
            "</div></body></html>\n")
