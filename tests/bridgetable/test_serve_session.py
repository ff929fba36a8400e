"""``bridgetable serve`` on a real port: it resumes or starts a new session as asked (``--resume``, ``--new``, the
question on a terminal, resuming without one and saying so), a new session moves the old database aside and
never deletes it, and the start-up lines say where the tablets reach the service and where the table cards are."""
from __future__ import annotations

import os
import pty
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import httpx
from service_harness import ServerProcess, free_port

from bridgetable.serve_cli import lan_address

CONFIG = {"tables": [{"id": "1"}, {"id": "2"}]}
BOARD = {"type": "board", "board": 1}


def output_of(srv: ServerProcess, since: int) -> str:
    return srv.log_path.read_bytes()[since:].decode()


def journal_rows(path: Path) -> int:
    with sqlite3.connect(path) as db:
        return int(db.execute("SELECT COUNT(*) FROM journal").fetchone()[0])


def set_aside(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("journal.db.2*") if not p.name.endswith(("-wal", "-shm")))


def run_once(srv: ServerProcess, *args: str) -> str:
    """Start the service with ``args``, let it answer, stop it; what it printed."""
    since = srv.log_path.stat().st_size if srv.log_path.exists() else 0
    srv.extra_args = args
    with srv:
        pass
    return output_of(srv, since)


def test_resume_new_and_the_question_without_a_terminal(tmp_path: Path) -> None:
    srv = ServerProcess(tmp_path, CONFIG)
    with srv, srv.client(srv.token) as d:
        first = output_of(srv, 0)
        assert "resuming" not in first and "new session" not in first          # nothing earlier: no question
        seat = d.get("/api/tables/1/tokens").json()["N"]["token"]
        assert d.post("/api/tables/1/events", json=BOARD).status_code == 200
    db = Path(srv.database)
    rows = journal_rows(db)

    out = run_once(srv)                                  # no terminal, no flag: resumes and says so
    assert "resuming the session of" in out and "with 1 table (not on a terminal; --new starts" in out, out
    assert journal_rows(db) == rows

    out = run_once(srv, "--resume")
    assert "resuming the session of" in out and "not on a terminal" not in out
    with srv, srv.client(seat) as north:                 # the same session: the seat's token still works
        assert north.get("/api/whoami").json()["seat"] == "N"

    out = run_once(srv, "--new")
    moved = set_aside(tmp_path)
    assert len(moved) == 1 and f"moved to {moved[0]}" in out, out
    assert journal_rows(moved[0]) >= rows                # never deleted: the old session is all there
    with srv, srv.client(seat) as north, srv.client(srv.token) as d:
        assert north.get("/api/whoami").status_code == 401, "a new session accepts no old credential"
        assert d.get("/api/tables/1/boards").json() == []
    out = run_once(srv, "--new")                         # nothing journalled in it yet: nothing to move
    assert "new session" not in out and set_aside(tmp_path) == moved


def test_the_question_on_a_terminal(tmp_path: Path) -> None:
    srv = ServerProcess(tmp_path, CONFIG)
    with srv, srv.client(srv.token) as d:
        assert d.post("/api/tables/2/events", json=BOARD).status_code == 200
    for answer, expected in ((b"\n", "resuming the session of"), (b"n\n", "new session: the session of")):
        port = free_port()
        master, slave = pty.openpty()
        cmd = [sys.executable, "-c", "from bridgetable.cli import main; main()", "serve", "--config",
               str(srv.config_path), "--port", str(port), "--log-level", "warning", "--hide-token"]
        proc = subprocess.Popen(cmd, stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=tmp_path)
        os.close(slave)
        try:
            asked = b""
            deadline = time.monotonic() + 20
            while b"[Y/n]" not in asked and time.monotonic() < deadline:
                asked += os.read(proc.stdout.fileno(), 4096)     # type: ignore[union-attr]
            assert b"Resume the session of " in asked and b" with 1 table? [Y/n]" in asked, asked
            os.write(master, answer)
            while time.monotonic() < deadline:
                try:
                    if httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.1)
        finally:
            proc.terminate()
            out = asked + proc.communicate(timeout=15)[0]
            os.close(master)
        assert expected in out.decode(), out


def test_start_up_lines_name_the_lan_address_and_the_cards(tmp_path: Path) -> None:
    srv = ServerProcess(tmp_path, CONFIG)
    out = run_once(srv, "--host", "0.0.0.0", "--show-token")
    lan = lan_address()
    assert f"the tablets use http://{lan}:{srv.port}" in out and "make run HOST=127.0.0.1" in out, out
    assert f"director console: http://{lan}:{srv.port}/console#token=" in out
    assert f"table cards:      http://{lan}:{srv.port}/cards" in out
    out = run_once(srv, "--host", "127.0.0.1")
    assert f"listening on 127.0.0.1:{srv.port} only: the tablets cannot reach it" in out, out
    # not a terminal: no token unasked, and the line says how to ask for it
    assert "#token=" not in out and "make run SHOW_TOKEN=1" in out, out
    assert f"table cards:      http://localhost:{srv.port}/cards" in out


def test_make_run_asks_for_the_token_with_show_token() -> None:
    root = Path(__file__).resolve().parents[2]

    def command(*extra: str) -> str:
        dry = subprocess.run(["make", "-n", "run", *extra], cwd=root, capture_output=True,
                             text=True, timeout=60)
        return next(line for line in dry.stdout.splitlines() if "bridgetable serve" in line)
    assert "--show-token" in command("SHOW_TOKEN=1") and "--show-token" not in command()


def test_a_start_answered_by_another_service_on_the_port_is_not_taken_for_ours(tmp_path: Path) -> None:
    """The harness's own check (``tests/service_harness.py``): a server restarted on its port after another
    service took the port meanwhile fails to start, where it once took the other service's answers for its own."""
    other = ServerProcess(tmp_path / "other", CONFIG)
    with other, other.client(other.token) as d:
        assert d.post("/api/tables/1/events", json=BOARD).status_code == 200
        ours = ServerProcess(tmp_path / "ours", CONFIG, port=other.port)
        try:
            ours.start(timeout=60)
        except RuntimeError as err:
            assert "server exited" in str(err), err
        else:
            ours.stop()
            raise AssertionError("the other service's answer was taken for ours")
