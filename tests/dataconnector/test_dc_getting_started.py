"""The client's own getting-started sample (``examples/getting_started.py --scenario`` from its sdist) against the
service started the way the README tells a club: ``make run DATACONNECTOR=1``, which prints the address, club
id and licence key to give the scoring program."""
from __future__ import annotations

import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

from dc_helpers import wait_port
from service_harness import free_port

REPO = Path(__file__).resolve().parents[2]


def read_until(fd: int, pattern: str, timeout: float = 60.0) -> str:
    text, deadline = "", time.monotonic() + timeout
    while time.monotonic() < deadline and not re.search(pattern, text):
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                text += os.read(fd, 4096).decode(errors="replace")
            except OSError:
                break
    return text


def test_getting_started_scenario_against_make_run(sdist: Path, tmp_path: Path) -> None:
    port, dc_port = free_port(), free_port()
    venv = Path(sys.prefix)
    # the club's command, from a scratch directory (its journal lands there); the installed stamp is taken as
    # it is (-o): the test runs the target, it does not reinstall the environment
    master, slave = pty.openpty()                  # a terminal, as a club's: the licence key is shown on one
    make = subprocess.Popen(["make", "-f", str(REPO / "Makefile"), "-o", f"{venv}/.installed", "run",
                             "DATACONNECTOR=1", f"VENV={venv}", "HOST=127.0.0.1", f"PORT={port}",
                             f"DC_PORT={dc_port}", "SESSION=new"],
                            cwd=tmp_path, stdin=slave, stdout=slave, stderr=slave, start_new_session=True)
    os.close(slave)
    try:
        shown = read_until(master, r"licence key \S+\s")
        m = re.search(r"scoring program:\s+Data Connector at (http://\S+)\s+club id (\S+)\s+licence key (\S+)", shown)
        assert m, shown
        address, club_id, key = m.groups()
        assert address.endswith(f":{dc_port}") and key != "(--show-token)"
        wait_port(dc_port)
        example = sdist / "examples"
        run = subprocess.run([sys.executable, str(example / "getting_started.py"), "--scenario", "--no-trace",
                              "--base-address", f"http://127.0.0.1:{dc_port}", "--club-id", club_id,
                              "--licence-key", key], cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert "SCENARIO OK" in run.stdout, run.stdout + run.stderr
        assert "PutResults           OK" in run.stdout
    finally:
        os.killpg(make.pid, signal.SIGTERM)
        try:
            make.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(make.pid, signal.SIGKILL)
            make.wait()
        os.close(master)
