"""Slow and greedy clients against the limits (``docs/security.md``, "Limits"), on this machine.

The service runs in a child process (``bridgetable serve``, two tables, default limits) under an open-file limit
of 1,024, as on many machines. Three phases:

1. quiet: ``GET /api/health`` every 0.2 s from 127.0.0.1, each on a new connection;
2. slowloris: ``SlowLoris`` (``tests/service_harness.py``) holds ``--connections`` unfinished requests from 127.0.0.2,
   a header every 2 s, reopening those the server closes, for ``--seconds``; health as in phase 1;
3. spectators: ``--spectators`` anonymous ``/ws/club`` streams from 16 at a time per address (127.0.1.x),
   opened at once and held for 5 s: how many are admitted, how many closed with 1013 (the cap of anonymous
   streams), how many refused with HTTP 503 (the cap of open connections), and the server's memory.

Reported: health's answers, failures and latency (p50, p99, max) per phase, the server's open files (sampled
peak), its resident memory, and how much it logged. Writes the figures into docs/PERFORMANCE.md between
``<!-- limits:start -->`` and ``<!-- limits:end -->``.

    python bench/slow_clients.py [--connections 1100] [--seconds 30] [--spectators 1000] [--no-doc]
"""
from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import sys
import tempfile
import threading
import time
from datetime import date
from pathlib import Path
from typing import Any

import httpx
import websockets

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the service harness
from service_harness import ServerProcess, SlowLoris

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "PERFORMANCE.md"
START, END = "<!-- limits:start -->", "<!-- limits:end -->"
CONFIG = {"tables": [{"id": "1"}, {"id": "2"}], "regulation": {"spectators": {"delay_s": 0}}}
OPEN_FILES = 1024


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


class Probe(threading.Thread):
    """Health every 0.2 s on a new connection; the latencies of the answers and the count of failures."""

    def __init__(self, srv: ServerProcess, pid: int) -> None:
        super().__init__(daemon=True)
        self.srv, self.pid = srv, pid
        self.times: list[float] = []
        self.failures = 0
        self.peak_files = 0
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.is_set():
            t = time.monotonic()
            try:
                ok = httpx.get(self.srv.base + "/api/health", timeout=1.0).status_code == 200
            except httpx.HTTPError:
                ok = False
            if ok:
                self.times.append(time.monotonic() - t)
            else:
                self.failures += 1
            self.peak_files = max(self.peak_files, len(os.listdir(f"/proc/{self.pid}/fd")))
            time.sleep(0.2)

    def summary(self) -> dict[str, Any]:
        ts = sorted(self.times) or [float("nan")]
        return {"answers": len(self.times), "failures": self.failures, "p50_ms": statistics.median(ts) * 1000,
                "p99_ms": ts[min(len(ts) - 1, int(len(ts) * 0.99))] * 1000, "max_ms": ts[-1] * 1000,
                "peak_files": self.peak_files}


def probed(srv: ServerProcess, pid: int, seconds: float) -> Probe:
    probe = Probe(srv, pid)
    probe.start()
    time.sleep(seconds)
    probe.done.set()
    probe.join(5)
    return probe


async def spectators(srv: ServerProcess, pid: int, n: int) -> tuple[int, int, int, int]:
    """Open ``n`` anonymous streams, 16 per address; (admitted, closed with 1013, refused with HTTP 503 (the
    connection cap), the server's memory in kB while they are held)."""
    async def one(i: int) -> Any:
        source = f"127.0.1.{1 + i // 16}"
        try:
            ws = await websockets.connect(srv.ws_base + "/ws/club", open_timeout=10, local_addr=(source, 0),
                                          max_size=None)
            await asyncio.wait_for(ws.recv(), 10)
            return ws
        except websockets.exceptions.ConnectionClosed as err:
            return 1013 if err.rcvd is not None and err.rcvd.code == 1013 else "closed"
        except websockets.exceptions.InvalidStatus as err:
            return err.response.status_code
        except Exception as err:                     # counted, not raised: the figure is how many fail
            return type(err).__name__

    got = await asyncio.gather(*(one(i) for i in range(n)))
    held = [g for g in got if not isinstance(g, (int, str))]
    refused = sum(1 for g in got if g == 1013)
    busy = sum(1 for g in got if g == 503)
    assert len(held) + refused + busy == n, [g for g in got if g not in (1013, 503) and isinstance(g, (int, str))]
    await asyncio.sleep(5)
    rss = rss_kb(pid)
    for ws in held:
        await ws.close()
    return len(held), refused, busy, rss


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--connections", type=int, default=1100)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--spectators", type=int, default=1000)
    ap.add_argument("--no-doc", action="store_true", help="print only")
    args = ap.parse_args()
    load = os.getloadavg()[0]                       # the machine is shared: latencies depend on it
    with tempfile.TemporaryDirectory() as tmp, ServerProcess(Path(tmp), CONFIG, open_files=OPEN_FILES) as srv:
        assert srv.proc is not None
        pid = srv.proc.pid
        log0 = srv.log_path.stat().st_size
        rss0 = rss_kb(pid)
        quiet = probed(srv, pid, 5).summary()
        loris = SlowLoris(srv.port, args.connections)
        loris.start()
        attacked = probed(srv, pid, args.seconds).summary()
        loris.done.set()
        loris.join(10)
        time.sleep(1)
        admitted, refused, busy, rss_spect = asyncio.run(spectators(srv, pid, args.spectators))
        log_bytes = srv.log_path.stat().st_size - log0
        log_lines = srv.log_path.read_text().count("\n")
    lines = [
        f"Measured {date.today().isoformat()} on this machine ({os.cpu_count()} cores, Python "
        f"{platform.python_version()}), `python bench/slow_clients.py --connections {args.connections} "
        f"--seconds {args.seconds:g} --spectators {args.spectators}`; the server under an open-file limit of "
        f"{OPEN_FILES}, default limits, the machine's load average {load:.1f} at the start (what is measured: the "
        f"script's docstring):",
        "",
        f"- quiet, 5 s: health answered {quiet['answers']} times, {quiet['failures']} failures; "
        f"p50 {quiet['p50_ms']:.1f} ms, p99 {quiet['p99_ms']:.1f} ms, max {quiet['max_ms']:.1f} ms",
        f"- {args.connections} unfinished requests from one address for {args.seconds:g} s "
        f"({loris.opened} connections opened, {loris.closed_by_server} refused or closed by the server): "
        f"health from another address answered {attacked['answers']} times, {attacked['failures']} failures; "
        f"p50 {attacked['p50_ms']:.1f} ms, p99 {attacked['p99_ms']:.1f} ms, max {attacked['max_ms']:.1f} ms; "
        f"the server's open files peaked at {attacked['peak_files']} of {OPEN_FILES}",
        f"- {args.spectators} anonymous streams at once, 16 per address: {admitted} admitted (the cap), {refused} "
        f"closed with 1013, {busy} refused with HTTP 503 (the cap of open connections); the server's memory {rss0 / 1024:.0f} MB after start-up, "
        f"{rss_spect / 1024:.0f} MB with the streams",
        f"- the server logged {log_bytes:,} bytes in all ({log_lines} lines, start-up included)",
    ]
    text = "\n".join(lines)
    print(text)
    if not args.no_doc:
        block = f"{START}\n## Slow and greedy clients (limits)\n\n{text}\n{END}"
        doc = DOC.read_text()
        if START in doc and END in doc:
            doc = doc[:doc.index(START)] + block + doc[doc.index(END) + len(END):]
        else:
            doc = doc.rstrip("\n") + "\n\n" + block + "\n"
        DOC.write_text(doc)


if __name__ == "__main__":
    main()
