"""``bridgetable score`` on a real event with 8 tables a board (1998 Cap Gemini World Top, first session:
rounds 1-3, 16 pairs, 30 boards), checked against a calculation made here from the files' tags alone,
and its exports read back (PBN score tables with the project's reader; USEBIO against the DTD)."""
from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest
from click.testing import CliRunner

from bridgetable.cli import main
from results.export_pbn import read_results_pbn
from results.import_usebio import read_usebio

DTD = Path(__file__).resolve().parents[2] / "results" / "usebio" / "usebio_subset.dtd"
TAG = re.compile(r'^\[(\w+) "([^"]*)"\]', re.M)

# Law 77, written out here so the check does not lean on table/scoring.py
_TRICK = {"C": 20, "D": 20, "H": 30, "S": 30, "N": 30}


def _score(contract: str, vul: bool, tricks: int) -> int:
    m = re.fullmatch(r"([1-7])(NT|[CDHS])(X{0,2})", contract)
    level, strain, risk = int(m.group(1)), m.group(2)[0], m.group(3)
    mult = {"": 1, "X": 2, "XX": 4}[risk]
    need = level + 6
    if tricks < need:
        down = need - tricks
        if not risk:
            return -down * (100 if vul else 50)
        pen = [0, 100, 300, 500][min(down, 3)] + 300 * max(0, down - 3) if not vul else 200 + 300 * (down - 1)
        return -pen * mult // 2
    points = (_TRICK[strain] * level + (10 if strain == "N" else 0)) * mult
    total = points + ((500 if vul else 300) if points >= 100 else 50)
    total += {6: 750 if vul else 500, 7: 1500 if vul else 1000}.get(level, 0)
    over = tricks - need
    total += over * _TRICK[strain] if not risk else over * (200 if vul else 100) * mult // 2 + 50 * mult // 2
    return total


def _independent_ranking(files: list[Path]) -> dict[tuple[str, ...], float]:
    """Matchpoints from the Contract/Declarer/Result tags: 2 per score beaten, 1 per tie; a pair's
    percentage is its matchpoints over the tops of the boards it played (every board here has 8 results)."""
    by_board: dict[int, list[tuple[tuple, tuple, int]]] = defaultdict(list)
    for f in files:
        for game in re.split(r"\r?\n\r?\n", f.read_text(encoding="latin-1")):
            t = dict(TAG.findall(game))
            if "Board" not in t:
                continue
            contract = t["Contract"].upper()
            if contract == "PASS":
                s = 0
            else:
                decl = t["Declarer"]
                side, won = t["Result"].split()
                tricks = int(won) if side == ("NS" if decl in "NS" else "EW") else 13 - int(won)
                vul = t["Vulnerable"] in ("All", "Both") or t["Vulnerable"] == ("NS" if decl in "NS" else "EW")
                s = _score(contract, vul, tricks) * (1 if decl in "NS" else -1)
            by_board[int(t["Board"])].append((tuple(sorted((t["North"], t["South"]))),
                                              tuple(sorted((t["East"], t["West"]))), s))
    mp: dict[tuple, float] = defaultdict(float)
    top: dict[tuple, float] = defaultdict(float)
    for rows in by_board.values():
        assert len(rows) == 8
        for ns, ew, s in rows:
            beaten = sum(2 if s > o else 1 if s == o else 0 for _n, _e, o in rows) - 1   # minus the tie with itself
            mp[ns] += beaten
            mp[ew] += 14 - beaten
            top[ns] += 14
            top[ew] += 14
    return {pair: 100 * mp[pair] / top[pair] for pair in mp}


@pytest.fixture
def session_files(corpus: Path) -> list[Path]:
    d = corpus / "pbn-corpus" / "1998-12th_Cap_Gemini_World_Top_Tournament"
    files = [d / f"ROUND0{k}.PBN" for k in (1, 2, 3)]
    if not all(f.is_file() for f in files):
        pytest.skip("1998 Cap Gemini rounds 1-3 not in the corpus")
    return files


def test_score_matches_an_independent_calculation(session_files, tmp_path):
    etree = pytest.importorskip("lxml.etree")
    xml, pbn, csv = tmp_path / "s.xml", tmp_path / "s.pbn", tmp_path / "s.csv"
    res = CliRunner().invoke(main, ["score", *map(str, session_files), "--method", "mp", "--out", str(xml),
                                    "--out", str(pbn), "--out", str(csv)])
    assert res.exit_code == 0, res.output
    expected = _independent_ranking(session_files)
    assert len(expected) == 16
    # the printed ranking: percentage and names per line
    printed = re.findall(r"^\s+(\d+=?)\s+(\d+)\s+([\d.]+) %\s+30 boards\s+(.+)$", res.stdout, re.M)
    assert len(printed) == 16
    got = {tuple(sorted(names.split(" - "))): float(pct) for _place, _n, pct, names in printed}
    assert got.keys() == expected.keys()
    for pair, pct in expected.items():
        assert got[pair] == pytest.approx(pct, abs=0.005), pair
    order = sorted(expected, key=lambda p: -expected[p])
    assert [tuple(sorted(n.split(" - "))) for *_x, n in printed][0] == order[0]
    # the PBN export read back by the project's reader: the same ranking
    back = read_results_pbn(pbn)
    again = {tuple(sorted(back.section().entrant(r.entrant).names)): r.score for r in back.ranking()}
    assert again == pytest.approx(got, abs=0.005)
    # USEBIO: valid against the project's DTD, and its pairs' percentages are the same
    doc = etree.fromstring(xml.read_bytes())
    dtd = etree.DTD(str(DTD))
    assert dtd.validate(doc), dtd.error_log.filter_from_errors()
    # ... and read back by the project's own USEBIO reader: the same pairs, percentages and travellers
    event = read_usebio(xml)
    assert event.scoring == "MATCH_POINTS" and len(event.sections) == 1
    (section,) = event.sections.values()
    assert len(section.entrants) == 16
    usebio = {tuple(sorted(e.names)): e.percentage for e in section.entrants}
    assert usebio == pytest.approx(expected, abs=0.005)
    assert len(section.lines) == len(doc.findall(".//TRAVELLER_LINE")) == 240
    assert all(line.ns_points is not None and line.ew_points is not None for line in section.lines)
    assert csv.read_text().count("\n") == 17 and (tmp_path / "s.travellers.csv").read_text().count("\n") == 241


def test_score_butler_datum_per_board(session_files):
    res = CliRunner().invoke(main, ["score", *map(str, session_files), "--method", "butler"])
    assert res.exit_code == 0, res.output
    # IMPs of a board sum to zero only by accident; every line shows the board's datum, a multiple of 10
    datums = [int(d) for d in re.findall(r"datum (-?\d+)", res.stdout)]
    assert len(datums) == 240 and all(d % 10 == 0 for d in datums)


def test_score_reports_bad_input(tmp_path):
    f = tmp_path / "x.pbn"
    f.write_text('[Event "x"]\n[Board "1"]\n[Dealer "N"]\n[Vulnerable "None"]\n', encoding="utf-8")
    res = CliRunner().invoke(main, ["score", str(f)])
    assert res.exit_code == 1 and "no game with a result" in res.output
    res = CliRunner().invoke(main, ["score", str(f), "--out", str(tmp_path / "x.txt")])
    assert res.exit_code == 2 and ".xml, .pbn or .csv" in res.output
