"""Exports: PBN with ScoreTable/TotalScoreTable (re-imports identically), USEBIO 1.2 (validated with
lxml against a DTD), LIN ``rs|``, CSV; and the ScoreTable reader on hand-written PBN 2.1 tables."""
from __future__ import annotations

import csv
import io
import os
import random
from collections.abc import Callable
from pathlib import Path

import pytest

from results import (
    Artificial,
    BoardResult,
    Entrant,
    Movement,
    Session,
    howell,
    lin_results,
    mitchell,
    ranking_csv,
    read_results_pbn,
    read_tables,
    results_pbn_text,
    teams_match,
    travellers_csv,
    usebio_xml,
)
from results.import_usebio import UsebioError, read_usebio
from results.pbn_tables import cell
from table.formats.lin import _RS_ENTRY
from table.formats.pbn import read_pbn

etree = pytest.importorskip("lxml.etree")
SUBSET_DTD = Path(__file__).resolve().parents[2] / "results" / "usebio" / "usebio_subset.dtd"
DEAL = "N:AKQJ.T98.765.432 T987.AKQ.432.765 65432.765.AKQ.T9 .J432.JT98.AKQJ8"


def _pairs_session(scoring: str = "MP", mv: Movement | None = None) -> Session:
    mv = mv or mitchell(5, boards_per_round=2)
    ens = [Entrant(1, ("Ann Able", "Bob Baker"), ids=("1001", "1002")), Entrant(7, ('Cé "Q" Dee', "Di, Eve"))]
    s = Session("Club pairs; Monday", scoring, mv, date="2024.05.06", site="Test BC", entrants=ens,
                deals={1: DEAL})
    rnd = random.Random(3)
    for sit in mv.sittings:
        if sit.sit_out:
            continue
        ns, ew = sit.pairs
        for b in sit.boards:
            if (sit.table, b) == (2, sit.boards[0]) and sit.round == 1:
                s.add_result(BoardResult(b, ns, ew, artificial=(Artificial.PLUS, Artificial.MINUS)))
            elif (sit.table, sit.round) == (3, 2):
                s.add_result(BoardResult(b, ns, ew, assigned=(420, 400)))
            elif (sit.table, sit.round) == (4, 3):
                s.add_result(BoardResult.played(b, ns, ew, "3NT", "S", 9, group="fouled"))
            else:
                s.add_result(BoardResult.played(b, ns, ew, rnd.choice(["4S", "3NT", "2HX", "PASS"]),
                                                rnd.choice("NESW"), rnd.randint(5, 12), lead="HA"))
    return s


def _teams_session() -> Session:
    s = Session("Final", "IMP", teams_match(range(1, 9), boards_per_round=4), vp=True,
                entrants=[Entrant(1, ("A", "B", "C", "D"), team_name="Lions"), Entrant(2, team_name="Tigers")])
    for b in range(1, 9):
        s.add_result(BoardResult.played(b, 1, 2, "4H", "S", 10))
        s.add_result(BoardResult.played(b, 2, 1, "3H", "S", 9 + b % 2) if b != 5 else
                     BoardResult(b, 2, 1, artificial=(Artificial.AVERAGE, Artificial.AVERAGE)))
    return s


SESSIONS: dict[str, Callable[[], Session]] = {
    "mitchell-mp": lambda: _pairs_session(),
    "howell-ximp": lambda: _pairs_session("XIMP", howell(7)),
    "mitchell-butler-relay": lambda: _pairs_session("BUTLER", mitchell(4, even="relay")),
    "total-points": lambda: _pairs_session("TP", howell(8)),
    "teams": _teams_session,
}


@pytest.mark.parametrize("name", SESSIONS)
def test_pbn_export_reimports_identically(name: str) -> None:
    s = SESSIONS[name]()
    for per_result in (False, True):
        text = results_pbn_text(s, per_result=per_result)
        back = read_results_pbn(io.StringIO(text))
        assert results_pbn_text(back, per_result=per_result) == text
        # the model is the same: results, entrants, movement, rankings
        for sid, sec in s.sections.items():
            sec2 = back.sections[sid]
            assert sec2.movement == sec.movement
            assert sec2.results == sec.results
            assert {k: v for k, v in sec2.entrants.items() if v.names or v.team_name} == \
                   {k: v for k, v in sec.entrants.items() if v.names or v.team_name}
        assert [(r.entrant, round(r.score, 9), r.place) for r in back.ranking()] == \
               [(r.entrant, round(r.score, 9), r.place) for r in s.ranking()]
        # the project's own PBN reader reads every game without complaint
        recs = list(read_pbn(io.StringIO(text)))
        assert recs and not [r.error for r in recs if r.error]


def test_pbn_score_table_content() -> None:
    s = _pairs_session()
    games = read_tables(io.StringIO(results_pbn_text(s)))
    b1 = next(g for g in games if g.tags.get("Board") == "1")
    assert b1.tags["Deal"].startswith("N:AKQJ") and b1.tags["Vulnerable"] == "None"
    rows = b1.tables["ScoreTable"].dicts()
    tr = s.travellers()[0]
    assert tr.board == 1 and len(rows) == len(tr.results)
    for d, r, ls in zip(rows, tr.results, tr.scores):
        assert float(cell(d["MP_NS"])[0] or "nan") == pytest.approx(ls.ns, abs=0.005)
        if r.artificial:
            assert d["MP_NS"].startswith("^") and d["Award_NS"] == "A+" and d["Score_NS"] == "-"
    assigned = [d for g in games if "ScoreTable" in g.tables for d in g.tables["ScoreTable"].dicts()
                if d["Score_NS"].startswith("^")]
    assert assigned and all(d["Score_NS"] == "^420" and d["Score_EW"] == "^-400" for d in assigned)
    total = next(g for g in games if "TotalScoreTable" in g.tables).tables["TotalScoreTable"]
    names = {(d["PairId"], d["Field"]): d["Names"] for d in total.dicts()}
    # East-West pair 7 of a 5-table Mitchell is "EW 2", as the results page shows it
    assert names[("2", "EW")] == 'Cé "Q" Dee;Di, Eve' and names[("1", "NS")] == "Ann Able;Bob Baker"
    ids = {(d["PairId_NS"], d["PairId_EW"]) for g in games if "ScoreTable" in g.tables
           for d in g.tables["ScoreTable"].dicts()}
    assert {int(e) for _n, e in ids} == {1, 2, 3, 4, 5} == {int(n) for n, _e in ids}
    s.add_entrant(Entrant(7, ("Semi; Colon", "X")))
    back = read_results_pbn(io.StringIO(results_pbn_text(s)))
    assert back.section().entrants[7].names == ("Semi, Colon", "X")     # ';' separates PBN <names>


def test_score_table_reader_handles_pbn_21_forms() -> None:
    text = ('% PBN 2.1\n[Event "##Sim"]\n[Board "3"]\n{ a comment; with [brackets] }\n'
            '[ScoreTable "Rank\\\\2R;+Score_NS\\\\5R;Percentage_NS;Names_NS;Multiplicity"]\n'
            ' 1   620 87.5 "A b;C d" 2 ; trailing comment\n 3 -  ^60 - 1\n'
            '  4 -100 0.0 "E;F" 1\n\n[Board "4"]\n[Event "#"]\n[TotalScoreTable "PairId;Names"] 1 "X;Y" 2 "Z;W"\n')
    games = read_tables(text)
    assert [g.tags["Board"] for g in games] == ["3", "4"] and games[1].tags["Event"] == "Sim"
    st = games[0].tables["ScoreTable"]
    assert st.columns[1].order == "+" and st.columns[1].width == 5 and st.columns[1].align == "R"
    assert st.rows[0] == ["1", "620", "87.5", "A b;C d", "2"] and len(st.expanded()) == 4
    assert cell(st.rows[1][2]) == ("60", True) and cell("?") == (None, False)
    assert games[1].tables["TotalScoreTable"].dicts() == \
        [{"PairId": "1", "Names": "X;Y"}, {"PairId": "2", "Names": "Z;W"}]


def _validate(xml: bytes, dtd_path: Path) -> None:
    dtd = etree.DTD(str(dtd_path))
    doc = etree.fromstring(xml)
    assert dtd.validate(doc), dtd.error_log.filter_from_errors()


@pytest.mark.parametrize("name", SESSIONS)
def test_usebio_validates_against_the_dtd(name: str) -> None:
    s = SESSIONS[name]()
    xml = usebio_xml(s, club_name="Test BC", club_id="42")
    assert xml.startswith(b'<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE USEBIO SYSTEM "usebio_v1_2.dtd">')
    _validate(xml, SUBSET_DTD)
    doc = etree.fromstring(xml)
    assert doc.get("Version") == "1.2"
    if name == "teams":
        team = doc.find(".//TEAM")
        assert team is not None and team.get("TEAM_NAME") == "Lions"
        assert doc.findtext(".//MATCH/TEAM_SCORE") is not None
    else:
        lines = doc.findall(".//TRAVELLER_LINE")
        assert len(lines) == sum(len(tr.results) for tr in s.travellers())
        if name == "mitchell-mp":
            assert "A6040" in {e.text for e in doc.iter("SCORE")}
            assert doc.findtext(".//EVENT/DATE") == "06/05/2024"


def _ebu_dtd() -> Path | None:
    """The EBU's USEBIO 1.2 DTD: BRIDGETABLE_USEBIO_DTD, or usebio_v1_2.dtd dropped into the shared folder."""
    if os.environ.get("BRIDGETABLE_USEBIO_DTD"):
        return Path(os.environ["BRIDGETABLE_USEBIO_DTD"])
    shared = Path(__file__).resolve().parents[3] / "shared"
    corpus = Path(os.environ["BRIDGETABLE_CORPUS"]) if os.environ.get("BRIDGETABLE_CORPUS") else shared / "data"
    return next((p for p in (shared / "usebio_v1_2.dtd", corpus / "usebio_v1_2.dtd") if p.is_file()), None)


@pytest.mark.skipif(_ebu_dtd() is None, reason="the EBU's usebio_v1_2.dtd is not supplied (set "
                    "BRIDGETABLE_USEBIO_DTD to its path, or put it in shared/ or shared/data/)")
@pytest.mark.parametrize("name", SESSIONS)
def test_usebio_validates_against_the_ebu_dtd(name: str) -> None:
    dtd = _ebu_dtd()
    assert dtd is not None
    _validate(usebio_xml(SESSIONS[name](), club_name="Test BC"), dtd)


def test_lin_results() -> None:
    t = _teams_session()
    text = lin_results(t)[0]
    rs = next(ln for ln in text.splitlines() if ln.startswith("rs|"))[3:-1].split(",")
    assert rs == ["4HS=", "3HS+1", "4HS=", "3HS=", "4HS=", "3HS+1", "4HS=", "3HS="]   # open, closed per board
    assert all(_RS_ENTRY.fullmatch(e) for e in rs)
    assert text.startswith("vg|Final,Round 1,I,1,4,Lions,0,Tigers,0|")
    second = lin_results(t)[1].splitlines()[1][3:-1].split(",")
    assert second[:2] == ["4HS=", "ADJ"]                                  # board 5: artificial in the closed room
    p = lin_results(_pairs_session())
    assert len(p) == 10 and all(ln.startswith("vg|") for ln in p)
    entries = [e for txt in p for e in txt.splitlines()[1][3:-1].split(",")]
    assert all(e in ("PASS", "ADJ") or _RS_ENTRY.fullmatch(e) for e in entries)


def test_csv_exports() -> None:
    s = _pairs_session()
    rows = list(csv.DictReader(io.StringIO(travellers_csv(s))))
    assert len(rows) == sum(len(tr.results) for tr in s.travellers())
    art = [r for r in rows if r["kind"] == "artificial"]
    assert art and art[0]["award_ns"] == "A+" and art[0]["ns_percent"] == "60.00"
    ranks = list(csv.DictReader(io.StringIO(ranking_csv(s))))
    assert {r["field"] for r in ranks} == {"NS", "EW"} and ranks[0]["place"].rstrip("=") == "1"


def test_partial_session_exports() -> None:
    """Live results mid-session: a board with one result (no top yet), boards not yet played."""
    s = Session("Live", "MP", mitchell(3))
    sit = s.section().movement.at(1, 1)
    s.add_result(BoardResult.played(sit.boards[0], *sit.pairs, "3NT", "S", 10))
    text = results_pbn_text(s, per_result=True)
    assert results_pbn_text(read_results_pbn(io.StringIO(text)), per_result=True) == text
    _validate(usebio_xml(s), SUBSET_DTD)
    assert s.ranking()[0].boards in (0, 1)


@pytest.mark.parametrize("name", SESSIONS)
def test_usebio_reads_back_with_the_projects_reader(name: str) -> None:
    """results/import_usebio.py reads what usebio_xml writes: each section's ranking and every traveller line."""
    s = SESSIONS[name]()
    event = read_usebio(usebio_xml(s, club_name="Test BC"))
    assert event.club == "Test BC" and event.description == s.name
    assert set(event.sections) == set(s.sections)
    for sid, section in event.sections.items():
        ranking = s.ranking(sid)
        number = s.sections[sid].movement.number           # the pairs as the results page numbers them ("EW 1")
        assert [(e.number, e.place) for e in section.entrants] == \
            [(str(number(r.entrant)), r.place_text) for r in ranking]
        if name != "teams":
            written = {(tr.board, str(number(r.ns)), str(number(r.ew))) for tr in s.travellers(sid)
                       for r in tr.results}
            assert {(ln.board, ln.ns, ln.ew) for ln in section.lines} == written


@pytest.mark.parametrize("bad, why", [
    (b"<USEBIO", "not well-formed"), (b"<PBN/>", "not a USEBIO document"), (b"<USEBIO/>", "without its EVENT"),
    (b"<USEBIO><EVENT><SESSION><SECTION><BOARD><BOARD_NUMBER>x</BOARD_NUMBER></BOARD></SECTION></SESSION>"
     b"</EVENT></USEBIO>", "is not a number"),
    (b"<USEBIO><EVENT><SESSION><SECTION><PARTICIPANTS><PAIR/></PARTICIPANTS></SECTION></SESSION></EVENT></USEBIO>",
     "without its number")])
def test_a_bad_usebio_document_is_a_clear_error(bad: bytes, why: str) -> None:
    with pytest.raises(UsebioError, match=why):
        read_usebio(bad)
