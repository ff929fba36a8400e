"""An evening played card by card (the service's robots at four tables of a relay Mitchell), every export
downloaded over HTTP and read back by the project's readers AND by endplay: each table's auction, opening lead and
play are what the table's own record says was played (``GET /api/tables/{t}/boards/{b}``, the journal), LIN as
BBO writes it (``mb``, ``pc``, ``pg``), PBN with its ``Auction`` and ``Play`` sections and the event's date (not
``?``), the opening lead in CSV and USEBIO (``LEAD``), and USEBIO's players with the member number in its own
element (``NATIONAL_ID_NUMBER``, not inside ``PLAYER_NAME``), the event's date and the club's name."""
from __future__ import annotations

import csv
import io
import time
import zipfile
from datetime import date
from pathlib import Path
from typing import Any
from xml.etree import ElementTree as ET

import endplay.config
import httpx
from endplay.parsers import lin as endplay_lin
from endplay.parsers import pbn as endplay_pbn
from service_harness import ServiceThread

from results.import_usebio import read_usebio
from table.events import CallMade, CardPlayed
from table.formats.lin import read_lin
from table.formats.pbn import read_pbn

CONFIG = {"regulation": {"spectators": {"delay_s": 0}},
          "event": {"name": "Card night", "site": "Riverside Bridge Club",
                    "movement": {"kind": "mitchell", "tables": 4, "boards_per_round": 2, "even": "relay"}}}
Alerts = tuple[tuple[int, str], ...]           # the alerted calls: (index in the auction, explanation or "")
Played = tuple[tuple[str, ...], tuple[str, ...], Alerts]


def played(d: httpx.Client, table: str, board: int) -> Played:
    """The calls, cards and alerts of the board at the table, from the table's journal (independent of the
    exports)."""
    calls, cards, alerts = [], [], []
    for row in d.get(f"/api/tables/{table}/boards/{board}").json()["journal"]:
        body = row["body"]
        if row["kind"] == "event" and body.get("type") == "call":
            if body.get("alert"):
                alerts.append((len(calls), str(body.get("explanation") or "")))
            c = str(body["call"]).upper()
            calls.append({"P": "PASS", "PASS": "PASS", "D": "X", "R": "XX"}.get(c, c.replace("N", "NT")
                                                                              .replace("NTT", "NT")))
        elif row["kind"] == "event" and body.get("type") == "card":
            cards.append(str(body["card"]).upper().replace("10", "T"))
    return tuple(calls), tuple(cards), tuple(alerts)


def our_alerts(calls: list[CallMade]) -> Alerts:
    return tuple((k, e.explanation or "") for k, e in enumerate(calls) if e.alert)


def endplay_alerts(auction: list[Any], pbn_note: bool) -> Alerts:
    """endplay's alerted bids: in PBN the whole note is the announcement ("Alert: 15-17", our
    writer's form), in LIN the ``an`` text."""
    out = []
    for k, bid in enumerate(auction):
        if bid.alertable:
            text = bid.announcement or ""
            out.append((k, text.removeprefix("Alert").removeprefix(": ") if pbn_note else text))
    return tuple(out)


def norm_call(call: str) -> str:
    # endplay writes an alerted bid "1NT!", an explained one "1NT!*"
    c = call.upper().rstrip("!*").replace("♠", "S").replace("♥", "H").replace("♦", "D").replace("♣", "C")
    return {"P": "PASS", "PASS": "PASS", "D": "X", "R": "XX", "X": "X", "XX": "XX"}.get(c, c.replace("N", "NT")
                                                                                         .replace("NTT", "NT"))


def number(label: str) -> int:
    return int(label.split()[-1])


def endplay_card(c: Any) -> str:
    return "SHDC"[c.suit.value] + c.rank.abbr


def test_exports_carry_what_was_played(tmp_path: Path) -> None:
    srv = ServiceThread(tmp_path, CONFIG, simulate=4,
                        extra_args=("--pace", "0.01", "--irregularity-rate", "0", "--seed", "5"))
    with srv, srv.client(srv.token) as d:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            view = d.get("/api/public/results").json()
            if sum(len(s["rows"]) for b in view["boards"] for s in b.get("travellers", [])) >= 12:
                break
            time.sleep(0.3)
    srv.simulate = 0
    with srv, srv.client(srv.token) as d:
        # a member entered by number at table 1 (the service shows "Ann Able (10234)")
        d.post("/api/players", json={"csv": "member,name\n10234,Ann Able\n20567,Bob Baker\n"}).raise_for_status()
        d.post("/api/tables/1/players", json={"N": "10234", "S": "20567"}).raise_for_status()
        view = d.get("/api/public/results").json()
        rows = [(b["board"], r) for b in view["boards"] for s in b.get("travellers", []) for r in s["rows"]]
        truth: dict[tuple[int, str], Played] = {}
        for board, r in rows:
            if r.get("contract") and not r.get("adjusted"):
                truth[(board, str(r["table"]))] = played(d, str(r["table"]), board)
        played_out = {k: v for k, v in truth.items() if v[1]}
        assert len(played_out) >= 8, truth                  # the robots played these card by card
        # the robots alert a 1NT opening with its range: explained alerts reach the exports below
        assert any(expl for _c, _p, alerts in truth.values() for _k, expl in alerts), truth
        today = date.today().isoformat()
        stem = f"card-night-{today}"

        def get(path: str, name: str) -> bytes:
            r = d.get(path)
            assert r.status_code == 200, r.text
            assert r.headers["content-disposition"] == f'attachment; filename="{name}"'
            return r.content

        # CSV: the opening lead of every board played at the table
        trav = list(csv.DictReader(io.StringIO(get("/api/exports/csv", f"{stem}-travellers.csv").decode())))
        leads = {(int(c["board"]), c["table"]): c["lead"] for c in trav}
        for (board, table), (_calls, cards, _alerts) in played_out.items():
            assert leads[(board, table)] == cards[0], (board, table)

        # USEBIO: LEAD, the event's date, the club, the member number in its own element
        xml = get("/api/exports/usebio", f"{stem}.xml")
        event = read_usebio(xml)
        lines = {(ln.board, ln.ns, ln.ew): ln for s in event.sections.values() for ln in s.lines}
        # the pairs as the results page numbers them ("EW 1": East-West pair 5 of 4 tables), in every export
        by_table = {(b, str(r["table"])): (number(r["ns_label"]), number(r["ew_label"])) for b, r in rows}
        assert any(r["ew"] != number(r["ew_label"]) for _b, r in rows)       # a two-field Mitchell: EW 5-8 inside
        assert {(int(c["board"]), c["table"]): (int(c["ns"]), int(c["ew"])) for c in trav} == by_table
        for (board, table), (_calls, cards, _alerts) in played_out.items():
            ns, ew = by_table[(board, table)]
            assert lines[(board, str(ns), str(ew))].lead == cards[0], (board, table)
        assert {(ln.board, int(ln.ns), int(ln.ew)) for ln in lines.values()} == \
            {(b, *by_table[(b, str(r["table"]))]) for b, r in rows}
        assert {f"{e.direction} {e.number}" for s in event.sections.values() for e in s.entrants} == \
            {r["label"] for s in view["rankings"] for r in s["rows"]}
        # the console's seat links name the pair as the results page does
        links = d.get("/api/tables/1/tokens").json()
        assert links["E"]["pair_label"].startswith("EW ") and links["N"]["pair_label"].startswith("NS "), links
        root = ET.fromstring(xml.split(b"\n", 2)[2])
        assert root.findtext("CLUB/CLUB_NAME") == "Riverside Bridge Club"
        assert root.findtext("EVENT/DATE") == f"{today[8:10]}/{today[5:7]}/{today[:4]}"
        players = {p.findtext("PLAYER_NAME"): p.findtext("NATIONAL_ID_NUMBER") for p in root.iter("PLAYER")}
        assert players.get("Ann Able") == "10234" and players.get("Bob Baker") == "20567", players
        assert not any("(" in (name or "") for name in players), players

        # PBN: the event's date, each table's auction and play, read by the project's reader and by endplay
        pbn = get("/api/exports/pbn", f"{stem}.pbn").decode()
        assert '[Date "?"]' not in pbn and f'[Date "{today.replace("-", ".")}"]' in pbn
        ours = {}
        for rec in read_pbn(io.StringIO(pbn)):
            if rec.tags.get("Table") and rec.tags.get("Board"):
                calls_read = [e for e in rec.events if isinstance(e, CallMade)]
                ours[(int(rec.tags["Board"]), rec.tags["Table"])] = (
                    tuple(norm_call(e.call) for e in calls_read),
                    tuple(e.card for e in rec.events if isinstance(e, CardPlayed)), our_alerts(calls_read))
        endplay.config.use_unicode = False
        theirs = {}
        # endplay reads the games of the boards as played (the file's score-table games have no board of their own)
        games = [g for g in pbn.split("\n\n") if "[Table " in g]
        assert len(games) == len(rows)
        for b in endplay_pbn.loads("\n\n".join(games) + "\n"):
            if b.info.get("Table"):
                theirs[(int(b.board_num), str(b.info["Table"]))] = (
                    tuple(norm_call(str(c)) for c in b.auction), tuple(endplay_card(c) for c in b.play),
                    endplay_alerts(b.auction, pbn_note=True))
        for key, (calls, cards, alerts) in truth.items():
            assert ours[key][0] == calls and theirs[key][0] == calls, (key, calls, ours[key], theirs[key])
            assert ours[key][1] == cards and theirs[key][1] == cards, (key, cards, ours[key], theirs[key])
            assert ours[key][2] == alerts and theirs[key][2] == alerts, (key, alerts, ours[key], theirs[key])

        # LIN: mb, pc and pg as BBO writes them, read by the project's reader and by endplay
        with zipfile.ZipFile(io.BytesIO(get("/api/exports/lin", f"{stem}.zip"))) as z:
            files = {name: z.read(name).decode() for name in z.namelist()}
        for board in sorted({b for b, _t in truth}):
            text = files[f"board-{board}.lin"]
            tables = [ln.split("|")[1][1:] for ln in text.splitlines() if ln.startswith("qx|")]
            ours_lin = list(read_lin(io.StringIO(text)))
            theirs_lin = endplay_lin.loads(text)
            assert len(ours_lin) == len(theirs_lin) == len(tables), (board, text)
            for table, rec, their in zip(tables, ours_lin, theirs_lin):
                if (board, table) not in truth:
                    continue
                calls, cards, alerts = truth[(board, table)]
                qx = next(ln for ln in text.splitlines() if ln.startswith(f"qx|o{table}|"))
                assert "mb|" in qx and (not cards or f"pc|{cards[0]}|" in qx), qx
                assert rec.error is None, rec.error
                assert tuple(norm_call(e.call) for e in rec.events if isinstance(e, CallMade)) == calls, (board, table)
                assert tuple(e.card for e in rec.events if isinstance(e, CardPlayed)) == cards, (board, table)
                assert tuple(norm_call(str(c)) for c in their.auction) == calls, (board, table)
                assert tuple(endplay_card(c) for c in their.play) == cards, (board, table)
                assert our_alerts([e for e in rec.events if isinstance(e, CallMade)]) == alerts, (board, table)
                assert endplay_alerts(their.auction, pbn_note=False) == alerts, (board, table, qx)
