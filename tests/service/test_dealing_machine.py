"""The dealing machine from the console's API over real HTTP: a simulated machine on a real pseudo-terminal (the
serial port the director names) deals the imported Duplimate file with a misread (two cards read as one) and a
card in the wrong pocket; the fixes continue the dealing and the dealt set is the file. Refusals in words: no
event, no hand records, a machine that does not answer, a fault plan for a real machine, no board waiting."""
from __future__ import annotations

import base64
import os
import signal
import time
from pathlib import Path
from typing import Any

import httpx
from service_harness import ServerProcess, ServiceThread, free_port

from hw_sim.dealer_sim import DealerFaults, SimulatedDealer
from table.dealgen import HashDRBG, random_deal
from table.handrecords import HandRecordBoard, to_bytes

CONFIG = {"tables": [{"id": str(t)} for t in range(1, 5)],
          "event": {"name": "Dealing", "movement": {"kind": "mitchell", "tables": 4, "boards_per_round": 4}}}
MISREAD_BOARD, WRONG_POCKET_BOARD = 3, 10


def the_file() -> list[HandRecordBoard]:
    rng = HashDRBG("dealing-machine-file")
    return [HandRecordBoard.of(n, random_deal(rng)) for n in range(1, 17)]


def import_body(bs: list[HandRecordBoard]) -> dict[str, str]:
    return {"filename": "tonight.dup", "content_base64": base64.b64encode(to_bytes(bs, "DUP")).decode()}


def planted() -> SimulatedDealer:
    """The machine on a pty, a misread at one board and a card in the wrong pocket at another."""
    faults = DealerFaults(plan={MISREAD_BOARD: ("duplicate",), WRONG_POCKET_BOARD: ("wrong_pocket",)}, seed=5)
    return SimulatedDealer("pty", faults, name="dealer-club")


def wait_for(d: httpx.Client, states: tuple[str, ...], timeout: float = 120.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        run = d.get("/api/event/dealing").json()
        if run["state"] in states:
            return run
        assert time.monotonic() < deadline, run
        time.sleep(0.1)


def test_deal_the_imported_file_with_two_planted_faults(tmp_path: Path) -> None:
    file = the_file()
    with ServiceThread(tmp_path, CONFIG) as srv, srv.client(srv.token) as d, planted() as sim:
        assert d.post("/api/event/hand-records", json=import_body(file)).status_code == 200
        r = d.post("/api/event/dealing", json={"machine": sim.url})
        assert r.status_code == 200, r.text
        assert r.json()["state"] in ("dealing", "waiting", "done") and r.json()["total"] == 16

        # the misread: two cards stuck together, the second unread; the fix: deal the board again
        stop = wait_for(d, ("waiting", "done", "failed"))
        assert stop["state"] == "waiting" and stop["stop"]["board"] == MISREAD_BOARD, stop
        kinds = {p["kind"] for p in stop["stop"]["problems"]}
        assert kinds == {"DUPLICATE_CARD", "MISSING_CARD"}, stop["stop"]
        assert "read it twice" in stop["stop"]["message"] and "Redeal" in stop["stop"]["message"]
        assert d.post("/api/event/dealing/decision", json={"board": 1, "decision": "redeal"}).status_code == 409
        r = d.post("/api/event/dealing/decision", json={"board": MISREAD_BOARD, "decision": "redeal"})
        assert r.status_code == 200, r.text

        # the card in the wrong pocket: the volunteer moves it as told, and the dealing goes on
        stop = wait_for(d, ("waiting", "done", "failed"))
        assert stop["state"] == "waiting" and stop["stop"]["board"] == WRONG_POCKET_BOARD, stop
        [p] = stop["stop"]["problems"]
        assert p["kind"] == "WRONG_POCKET" and "Take it out and put it in" in p["message"]
        assert file[WRONG_POCKET_BOARD - 1].deal.owner[p["card"]] == p["belongs"] != p["pocket"]
        r = d.post("/api/event/dealing/decision", json={"board": WRONG_POCKET_BOARD, "decision": "continue"})
        assert r.status_code == 200, r.text

        done = wait_for(d, ("done", "failed"))
        assert done["state"] == "done", done
        status = {b["board"]: b["status"] for b in done["boards"]}
        assert status == {**{n: "ok" for n in range(1, 17)}, WRONG_POCKET_BOARD: "fixed_by_hand"}
        assert done["outcome"]["equal"] is True, done["outcome"]
        assert done["outcome"]["dealt"] == {str(b.board): b.deal.to_pbn() for b in file}
        assert sorted(sim.machine.boards_dealt) == sorted([*range(1, 17), MISREAD_BOARD])
        assert {(i.kind, i.board) for i in sim.machine.injected} == {("duplicate", MISREAD_BOARD),
                                                                     ("wrong_pocket", WRONG_POCKET_BOARD)}

        # a restart: the journal still says what was dealt and how it was fixed
        srv.stop()
        srv.start()
        again = d.get("/api/event/dealing").json()
        assert again["state"] == "done" and again["run"] == done["run"] and again["boards"] == done["boards"]
        assert again["outcome"] == done["outcome"] and again["problems"] == done["problems"]
        assert [p["decision"] for p in again["problems"] if p["kind"] == "DECISION"] == ["redeal", "continue"]

        # the hand records replaced after the dealing: the boards on the tables are no longer them
        other = [HandRecordBoard.of(b.board, random_deal(HashDRBG(f"other-{b.board}"))) for b in file]
        assert d.post("/api/event/hand-records", json=import_body(other)).status_code == 200
        outcome = d.get("/api/event/dealing").json()["outcome"]
        assert outcome["equal"] is False and outcome["differ"] == list(range(1, 17))
        assert "different from the hand records: board 1, 2," in outcome["message"]


def test_refusals_in_words(tmp_path: Path) -> None:
    no_event = {"tables": [{"id": "1"}]}
    with ServiceThread(tmp_path / "a", no_event) as srv, srv.client(srv.token) as d:
        r = d.get("/api/event/dealing")
        assert r.status_code == 404 and "no event" in r.json()["detail"]
        r = d.post("/api/event/dealing", json={"machine": "/dev/ttyUSB0"})
        assert r.status_code == 404 and "no event" in r.json()["detail"]

    with ServiceThread(tmp_path / "b", CONFIG) as srv, srv.client(srv.token) as d, srv.client() as anon:
        assert anon.get("/api/event/dealing").status_code == 401
        assert anon.post("/api/event/dealing", json={"machine": "/dev/ttyUSB0"}).status_code == 401
        assert d.get("/api/event/dealing").json() == {"state": "idle"}
        r = d.post("/api/event/dealing", json={"machine": "/dev/ttyUSB0"})
        assert r.status_code == 409 and "no hand records" in r.json()["detail"]

        assert d.post("/api/event/hand-records", json=import_body(the_file())).status_code == 200
        missing = str(tmp_path / "no-such-port")
        r = d.post("/api/event/dealing", json={"machine": missing})
        assert r.status_code == 409 and "cannot be opened" in r.json()["detail"] and missing in r.json()["detail"]
        r = d.post("/api/event/dealing", json={"machine": f"socket://127.0.0.1:{free_port()}"})
        assert r.status_code == 409 and "cannot be opened" in r.json()["detail"]
        master, slave = os.openpty()                    # a port that opens, but no machine answers on it
        try:
            r = d.post("/api/event/dealing", json={"machine": os.ttyname(slave)})
            assert r.status_code == 409 and "did not connect within 5 s" in r.json()["detail"], r.text
            assert r.json()["detail_parts"][0]["key"] == "dealing.no_connect", r.text    # keyed (issue 24)
        finally:
            os.close(master)
            os.close(slave)
        failed = d.get("/api/event/dealing").json()
        assert failed["state"] == "failed"
        assert failed["error_parts"][0]["key"] == "dealing.no_connect"          # the console words the run's end
        r = d.post("/api/event/dealing", json={"machine": "sim"})
        assert r.status_code == 409 and "simulated tables" in r.json()["detail"]
        r = d.post("/api/event/dealing", json={"machine": "/dev/ttyUSB0", "faults": "jam=1"})
        assert r.status_code == 422 and "simulated machine only" in r.json()["detail"]
        r = d.post("/api/event/dealing", json={"machine": ""})
        assert r.status_code == 422
        r = d.post("/api/event/dealing/decision", json={"board": 1, "decision": "continue"})
        assert r.status_code == 409 and "no board is waiting" in r.json()["detail"]
        r = d.post("/api/event/dealing/decision", json={"board": 1, "decision": "shuffle"})
        assert r.status_code == 422


def test_the_simulated_machine_of_make_run(tmp_path: Path) -> None:
    """``make run``: the director types ``sim`` (with faults, to see them); a board skipped leaves the dealt set
    short of the hand records and the console says which board to deal again; a clean run then completes it."""
    robots_wait = {"simulation": {"pace_s": 1000}}      # no robot starts a board (which freezes the hand records)
    with ServerProcess(tmp_path, robots_wait, simulate=4) as srv, srv.client(srv.token) as d:
        records = d.post("/api/event/hand-records/generate").json()["boards"]
        r = d.post("/api/event/dealing", json={"machine": "sim", "faults": "wrong_pocket=0.2,seed=1"})
        assert r.status_code == 200, r.text
        assert r.json()["machine"] == "simulated machine"
        skipped = []
        while (run := wait_for(d, ("waiting", "done", "failed")))["state"] == "waiting":
            again = d.post("/api/event/dealing", json={"machine": "sim"})
            assert again.status_code == 409 and "already dealing" in again.json()["detail"]
            board = run["stop"]["board"]
            assert d.post("/api/event/dealing/decision", json={"board": board, "decision": "skip"}).status_code == 200
            skipped.append(board)
        assert run["state"] == "done" and skipped, run
        outcome = run["outcome"]
        assert outcome["equal"] is False and outcome["not_dealt"] == skipped
        assert f"not dealt: board {', '.join(map(str, skipped))}" in outcome["message"]
        assert sorted(int(n) for n in outcome["dealt"]) == [b["board"] for b in records if b["board"] not in skipped]

        r = d.post("/api/event/dealing", json={"machine": "sim", "faults": "jam=0.5,seed=2"})
        assert r.status_code == 200, r.text
        run = wait_for(d, ("waiting", "done", "failed"))
        assert run["state"] == "done" and run["outcome"]["equal"] is True, run
        assert any(p["kind"] == "JAM" and not p["blocking"] for p in run["problems"])   # cleared at the machine
        assert run["outcome"]["dealt"] == {str(b["board"]): b["deal"] for b in records}
        # another board in the machine: nothing is dealt; the volunteer puts the right one in, and it is dealt
        r = d.post("/api/event/dealing", json={"machine": "sim", "faults": "wrong_board=0.5,seed=4"})
        assert r.status_code == 200, r.text
        swapped = []
        while (run := wait_for(d, ("waiting", "done", "failed")))["state"] == "waiting":
            stop = run["stop"]
            assert stop["choices"] == ["continue", "skip", "abort"] and "Take board" in stop["message"], stop
            assert d.post("/api/event/dealing/decision", json={"board": stop["board"], "decision": "continue"}) \
                .status_code == 200
            swapped.append(stop["board"])
        assert swapped and run["outcome"]["equal"] is True, run
        assert [p["message"] for p in run["problems"] if p["kind"] == "DECISION"] == \
            [f"Board {b}: done as the console said; it is dealt again." for b in swapped]
        r = d.post("/api/event/dealing", json={"machine": "sim", "faults": "paper_cut=1"})
        assert r.status_code == 422 and "unknown dealer fault" in r.json()["detail"]

        # the service stops while a board waits for the volunteer: the board is aborted, the service ends cleanly
        assert d.post("/api/event/dealing", json={"machine": "sim", "faults": "wrong_pocket=1"}).status_code == 200
        assert wait_for(d, ("waiting", "done", "failed"))["state"] == "waiting"
        proc = srv.proc
        assert proc is not None
        srv.stop()                                   # SIGTERM, then SIGKILL after 15 s
        log = srv.log_path.read_text()
        assert proc.returncode != -signal.SIGKILL and "Traceback" not in log, (proc.returncode, log[-3000:])
        srv.start()                                  # the aborted run was journalled as it ended
        run = d.get("/api/event/dealing").json()
        assert run["state"] == "done" and run["boards"][0]["status"] == "aborted", run
        assert run["outcome"]["equal"] is False and run["outcome"]["not_dealt"] == [b["board"] for b in records]
