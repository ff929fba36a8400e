"""The console's downloads over real HTTP after a simulated session: USEBIO, PBN, CSV (travellers and ranking),
LIN and the hand-record sheets come as attachments with the event's name in the file name, and read back with
the project's own readers (``results/import_usebio.py``, ``results.read_results_pbn``, ``table.formats.lin``,
the csv module) they equal the live results the director sees (``GET /api/public/results``), an adjusted score
included."""
from __future__ import annotations

import csv
import io
import re
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from headless import ARTIFACTS, browser_session, wait_until
from service_harness import ServerProcess, ServiceThread

from results import read_results_pbn
from results.import_usebio import read_usebio
from table.events import BoardStarted
from table.formats.lin import read_lin

# the solver at nice 0: at 19 it waited minutes beside four busy test workers; the content is what is tested
CONFIG = {"analysis_nice": 0, "regulation": {"spectators": {"delay_s": 0}},
          "event": {"name": "Export night", "date": "2026-12-01",
                    "movement": {"kind": "mitchell", "tables": 4, "boards_per_round": 2, "even": "relay"}}}
Key = tuple[int, int, int]


def number(label: str) -> int:
    """The pair's number as the results page shows it ("EW 1" -> 1)."""
    return int(label.split()[-1])


def live_rows(d: httpx.Client) -> tuple[dict[Key, dict[str, Any]], dict[int, float]]:
    view = d.get("/api/public/results").json()
    rows = {(b["board"], r["ns"], r["ew"]): r for b in view["boards"] for s in b.get("travellers", [])
            for r in s["rows"]}
    ranking = {r["entrant"]: r["score"] for s in view["rankings"] for r in s["rows"]}
    return rows, ranking


def rs_entry(r: dict[str, Any]) -> str:
    """The LIN ``rs|`` form of a live result, written here independently of the exporter."""
    if r["adjusted"]:
        return "ADJ"
    if r["contract"] == "PASS":
        return "PASS"
    m = re.fullmatch(r"([1-7])(C|D|H|S|NT)(X{0,2})", r["contract"])
    assert m, r
    diff = r["tricks"] - int(m.group(1)) - 6
    return f"{m.group(1)}{'N' if m.group(2) == 'NT' else m.group(2)}{r['declarer']}{m.group(3)}" + \
        ("=" if diff == 0 else f"{diff:+d}")


def download(d: httpx.Client, path: str, filename: str) -> bytes:
    """A download as the console makes it: asked again while the service answers 202 with Retry-After (the
    sheets' analysis under way)."""
    r = d.get(path)
    for _ in range(120):
        if r.status_code != 202 or "retry-after" not in r.headers:
            break
        time.sleep(0.5)
        r = d.get(path)
    assert r.status_code == 200, r.text
    assert r.headers["content-disposition"] == f'attachment; filename="{filename}"'
    return r.content


def console_downloads(srv: ServerProcess) -> Callable[[str, str], bytes]:
    """Press every download button of the console's Exports in Chromium (820x1180) and keep what the browser
    saved; the returned ``fetch(path, file name)`` hands back the file of that button, its name checked."""
    saved: dict[str, tuple[str, bytes]] = {}
    with browser_session() as browser:
        page = browser.new_page(viewport={"width": 820, "height": 1180}, accept_downloads=True)
        page.goto(f"{srv.base}/console#token={srv.token}")
        wait_until(page, "() => document.querySelectorAll('#exports button.export').length === 6")
        for button in page.locator("#exports button.export").all():
            kind = button.get_attribute("data-kind") or ""
            with page.expect_download(timeout=30000) as info:
                button.click()
            download = info.value
            saved[kind] = (download.suggested_filename, Path(download.path()).read_bytes())
        page.locator("#exports-section").screenshot(path=str(ARTIFACTS / "console-exports-downloaded.png"))

    def fetch(path: str, filename: str) -> bytes:
        name, content = saved[path.removeprefix("/api/exports/")]
        assert name == filename, (path, name)
        return content
    return fetch


def test_every_export_reads_back_equal_to_the_live_results(tmp_path: Path) -> None:
    srv = ServiceThread(tmp_path, CONFIG, simulate=4,
                        extra_args=("--pace", "0.01", "--irregularity-rate", "0", "--seed", "3"))
    with srv, srv.client(srv.token) as d:
        deadline = time.monotonic() + 90
        while len(live_rows(d)[0]) < 12 and time.monotonic() < deadline:
            time.sleep(0.3)
    srv.simulate = 0                               # the same journal, now still: the session as it ended
    with srv, srv.client(srv.token) as d, srv.client() as anon:
        rows, ranking = live_rows(d)
        assert len(rows) >= 12
        adjusted = min(rows)
        table = rows[adjusted]["table"]
        assert d.post(f"/api/tables/{table}/boards/{adjusted[0]}/adjustment",
                      json={"kind": "artificial", "ns": "A+", "ew": "A-"}).status_code == 200
        rows, ranking = live_rows(d)
        assert rows[adjusted]["adjusted"] and rows[adjusted]["ns_percent"] == 60.0
        assert anon.get("/api/exports/csv").status_code == 401
        stem = "export-night-2026-12-01"

        read_back(lambda path, name: download(d, path, name), d, rows, ranking, stem)
        read_back(console_downloads(srv), d, rows, ranking, stem)         # the same through the console's buttons


def read_back(fetch: Callable[[str, str], bytes], d: httpx.Client, rows: dict[Key, dict[str, Any]],
              ranking: dict[int, float], stem: str) -> None:
    """Every export, as ``fetch(path, file name)`` downloads it, read back with the project's readers equals the
    live results ``rows`` and ``ranking``."""
    view = d.get("/api/public/results").json()
    labelled = {r["label"]: r["score"] for s in view["rankings"] for r in s["rows"]}
    travellers = list(csv.DictReader(io.StringIO(fetch("/api/exports/csv", f"{stem}-travellers.csv")
                                                 .decode())))
    # the CSV and USEBIO number the pairs as the results page does ("EW 1": East-West pair 5 of 4 tables)
    shown = {k: (k[0], number(r["ns_label"]), number(r["ew_label"])) for k, r in rows.items()}
    got = {(int(r["board"]), int(r["ns"]), int(r["ew"])): r for r in travellers}
    assert got.keys() == set(shown.values())
    for k, r in rows.items():
        c = got[shown[k]]
        assert (c["contract"] or None, c["declarer"] or None) == (None if r["adjusted"] else r["contract"],
                                                                  None if r["adjusted"] else r["declarer"])
        assert c["score_ns"] == ("" if r["score_ns"] is None or r["adjusted"] else str(r["score_ns"]))
        assert (float(c["ns_percent"]) if c["ns_percent"] else None) == r["ns_percent"], (k, c, r)
    ranked = csv.DictReader(io.StringIO(fetch("/api/exports/csv?part=ranking", f"{stem}-ranking.csv")
                                        .decode()))
    by_label = {r["label"]: r for r in ranked}
    assert {r["label"]: float(r["score"]) for r in by_label.values()} == labelled
    assert all(int(r["entrant"]) == number(r["label"]) for r in by_label.values())

    event = read_usebio(fetch("/api/exports/usebio", f"{stem}.xml"))
    assert event.description == "Export night" and event.event_type == "PAIRS"
    lines = {(ln.board, int(ln.ns), int(ln.ew)): ln for s in event.sections.values() for ln in s.lines}
    assert lines.keys() == set(shown.values())
    for k, r in rows.items():
        line = lines[shown[k]]
        if not r["adjusted"]:
            assert (line.contract, line.declarer, line.tricks, line.score) == \
                (r["contract"], r["declarer"], r["tricks"], str(r["score_ns"])), (k, line, r)
        assert line.ns_points == r["ns_value"]
    assert {f"{e.direction} {e.number}": e.percentage for s in event.sections.values() for e in s.entrants} == labelled

    session = read_results_pbn(io.StringIO(fetch("/api/exports/pbn", f"{stem}.pbn").decode()))
    back = {(tr.board, res.ns, res.ew): res for tr in session.travellers() for res in tr.results}
    assert back.keys() == rows.keys()
    for k, r in rows.items():
        res = back[k]
        if r["adjusted"]:
            assert res.kind == "artificial"
        else:
            assert (res.contract, res.declarer, res.tricks, res.score_ns) == \
                (r["contract"], r["declarer"], r["tricks"], r["score_ns"])
    assert {rr.entrant: round(rr.score, 2) for rr in session.ranking()} == ranking

    with zipfile.ZipFile(io.BytesIO(fetch("/api/exports/lin", f"{stem}.zip"))) as z:
        files = {name: z.read(name).decode() for name in z.namelist()}
    boards = sorted({k[0] for k in rows})
    assert sorted(files) == sorted(f"board-{b}.lin" for b in boards)
    for b in boards:
        text = files[f"board-{b}.lin"]
        rs = next(ln for ln in text.splitlines() if ln.startswith("rs|"))[3:-1].split(",")
        assert sorted(rs) == sorted(rs_entry(r) for k, r in rows.items() if k[0] == b)
        records = list(read_lin(io.StringIO(text)))
        assert records and all(rec.error is None for rec in records), [rec.error for rec in records]
        first = records[0].events[0]
        assert isinstance(first, BoardStarted)
        assert first.deal == d.get(f"/api/tables/{rows[min(k for k in rows if k[0] == b)]['table']}/boards/{b}") \
            .json()["deal"]

    sheets = fetch("/api/exports/handrecords", f"{stem}-handrecords.html").decode()
    assert all(f"<h2>Board {b}</h2>" in sheets for b in boards)
