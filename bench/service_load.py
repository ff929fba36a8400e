"""Service load: 100 simulated tables and 500 WebSocket spectators, on this machine.

The service runs in a child process (``bridgetable serve``, SQLite journal, ``synchronous=FULL``,
spectator delay 0). Two ways to drive the tables:

* ``--drive sim`` (default): ``--simulate 100`` inside the service, each table's robots acting every
  ``--pace`` seconds on average; delivery latency is measured from the journal row's time (stamped when
  the service has taken the event in, before the write) to the spectator's receipt;
* ``--drive http``: this process plays the devices of the tables over HTTP; latency from just before the
  POST. Python's HTTP client in one process saturates a core here, so this mode measures the client as
  much as the service (its POST-to-acknowledgement latency is reported too).

5 spectators per table follow ``/ws/tables/{id}``. Measured:

* delivery latency: event to the moment a spectator receives a state with that event's sequence number
  (or a later one: views are coalesced), p50/p99 over every (event, spectator) pair;
* the server's resident memory after start-up, at the end, and its peak (VmHWM), and its CPU time.

Client and server share the machine's cores, so the latencies include the client's own scheduling. Writes
the figures into docs/PERFORMANCE.md between ``<!-- service:start -->`` and ``<!-- service:end -->``.

    python bench/service_load.py [--tables 100] [--spectators 500] [--seconds 60] [--pace 0.5]
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from datetime import date, datetime
from pathlib import Path
from typing import Any

import httpx
import websockets

from service.config.settings import Regulation
from service.live.runtime import TableRuntime
from service.sim.dealing import deal_for
from service.sim.robot import next_event
from service.store.journal import Row, utcnow

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the service harness
from service_harness import ServerProcess

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "PERFORMANCE.md"
START, END = "<!-- service:start -->", "<!-- service:end -->"


def proc_status(pid: int) -> dict[str, int]:
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        k, _, v = line.partition(":")
        if k in ("VmRSS", "VmHWM"):
            out[k] = int(v.split()[0])            # kB
    return out


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))] if xs else float("nan")


class Bench:
    def __init__(self, srv: ServerProcess, tables: list[str], spectators: int, seconds: float, pace: float) -> None:
        self.srv, self.tables, self.n_spec, self.seconds, self.pace = srv, tables, spectators, seconds, pace
        self.sent: dict[tuple[str, int], float] = {}       # (table, seq) -> time just before the POST
        self.pending: dict[str, list[float]] = {t: [] for t in tables}
        self.delivery: list[float] = []
        self.acks: list[float] = []
        self.events = 0
        self.errors = 0
        self.stop = asyncio.Event()
        self.connected = 0
        self.drive = "sim"
        self.events_seen: dict[str, int] = {}

    async def table(self, client: httpx.AsyncClient, tid: str, seed: int) -> None:
        rt = TableRuntime(tid, Regulation())
        rng = random.Random(seed)
        await asyncio.sleep(rng.uniform(0, self.pace))
        while not self.stop.is_set():
            t = rt.table
            if t.board is None or t.state == "board_complete":
                n = (rt.board_number or 0) + 1
                body: dict[str, Any] = {"type": "board", "board": n, "deal": deal_for(9, n).to_pbn()}
            else:
                step = next_event(t, rng, None)
                if step is None:
                    body = {"type": "board", "board": (rt.board_number or 0) + 1, "deal": deal_for(9, 1).to_pbn()}
                else:
                    body = step[0]
            t0 = time.time()
            self.pending[tid].append(t0)
            r = await client.post(f"/api/tables/{tid}/events", json=body)
            t1 = time.time()
            self.pending[tid].remove(t0)
            if r.status_code != 200:
                self.errors += 1
                continue
            seq = r.json()["seq"]
            self.sent[(tid, seq)] = t0
            self.acks.append(t1 - t0)
            self.events += 1
            rt.apply_row(Row(tid, seq, utcnow(), "bench", "event", body))
            await asyncio.sleep(self.pace * rng.uniform(0.5, 1.5))

    async def spectator(self, tid: str) -> None:
        if self.drive == "sim":
            return await self.sim_spectator(tid)
        last = -1
        async with websockets.connect(f"{self.srv.ws_base}/ws/tables/{tid}", max_size=2 ** 22,
                                      open_timeout=60) as ws:
            self.connected += 1
            while not self.stop.is_set():
                try:
                    msg = await asyncio.wait_for(ws.recv(), 1.0)
                except TimeoutError:
                    continue
                now = time.time()
                seq = json.loads(msg)["state"]["seq"]
                for s in range(max(last + 1, seq - 50), seq + 1):
                    t0 = self.sent.get((tid, s))
                    if t0 is None and s == seq and self.pending[tid]:
                        t0 = self.pending[tid][0]         # delivered before the POST's answer came back
                    if t0 is not None and self.measuring:
                        self.delivery.append(now - t0)
                last = max(last, seq)

    async def sim_spectator(self, tid: str) -> None:
        last = -1
        async with websockets.connect(f"{self.srv.ws_base}/ws/tables/{tid}", max_size=2 ** 22,
                                      open_timeout=60) as ws:
            self.connected += 1
            while not self.stop.is_set():
                try:
                    msg = await asyncio.wait_for(ws.recv(), 1.0)
                except TimeoutError:
                    continue
                now = time.time()
                state = json.loads(msg)["state"]
                if state["seq"] > last and last >= 0 and self.measuring and state["updated"]:
                    self.delivery.append(now - datetime.fromisoformat(state["updated"]).timestamp())
                    self.events_seen[tid] = state["seq"]
                last = state["seq"]

    async def run(self) -> dict[str, Any]:
        if self.drive == "sim":
            return await self.run_sim()
        self.measuring = False
        specs = [asyncio.create_task(self.spectator(self.tables[i % len(self.tables)])) for i in range(self.n_spec)]
        while self.connected < self.n_spec:
            await asyncio.sleep(0.1)
        pid = self.srv.proc.pid
        mem0 = proc_status(pid)
        cpu0 = cpu_seconds(pid)
        limits = httpx.Limits(max_connections=len(self.tables), max_keepalive_connections=len(self.tables))
        async with httpx.AsyncClient(base_url=self.srv.base, limits=limits, timeout=30,
                                     headers={"Authorization": f"Bearer {self.srv.token}"}) as client:
            players = [asyncio.create_task(self.table(client, t, i)) for i, t in enumerate(self.tables)]
            await asyncio.sleep(3)                       # warm-up
            self.measuring = True
            self.delivery.clear()
            self.acks.clear()
            e0, t0 = self.events, time.time()
            await asyncio.sleep(self.seconds)
            self.measuring = False
            events, elapsed = self.events - e0, time.time() - t0
            self.stop.set()
            await asyncio.gather(*players, return_exceptions=True)
        await asyncio.gather(*specs, return_exceptions=True)
        mem1 = proc_status(pid)
        return {"events": events, "rate": events / elapsed, "elapsed": elapsed, "errors": self.errors,
                "delivery_p50": pct(self.delivery, 50), "delivery_p99": pct(self.delivery, 99),
                "delivery_n": len(self.delivery), "ack_p50": pct(self.acks, 50), "ack_p99": pct(self.acks, 99),
                "rss_start_mb": mem0["VmRSS"] / 1024, "rss_end_mb": mem1["VmRSS"] / 1024,
                "rss_peak_mb": mem1["VmHWM"] / 1024, "cpu_s": cpu_seconds(pid) - cpu0,
                "mean_delivery": statistics.fmean(self.delivery) if self.delivery else float("nan")}


async def _run_sim(self: Bench) -> dict[str, Any]:
    self.measuring = False
    specs = [asyncio.create_task(self.spectator(self.tables[i % len(self.tables)])) for i in range(self.n_spec)]
    while self.connected < self.n_spec:
        await asyncio.sleep(0.1)
    pid = self.srv.proc.pid
    mem0 = proc_status(pid)
    await asyncio.sleep(3)
    with httpx.Client(base_url=self.srv.base) as c:
        seq0 = sum(t["seq"] for t in c.get("/api/tables").json())
        self.measuring = True
        cpu0, t0 = cpu_seconds(pid), time.time()
        await asyncio.sleep(self.seconds)
        self.measuring = False
        elapsed = time.time() - t0
        events = sum(t["seq"] for t in c.get("/api/tables").json()) - seq0
    self.stop.set()
    await asyncio.gather(*specs, return_exceptions=True)
    mem1 = proc_status(pid)
    return {"events": events, "rate": events / elapsed, "elapsed": elapsed, "errors": 0,
            "delivery_p50": pct(self.delivery, 50), "delivery_p99": pct(self.delivery, 99),
            "delivery_n": len(self.delivery), "ack_p50": None, "ack_p99": None,
            "rss_start_mb": mem0["VmRSS"] / 1024, "rss_end_mb": mem1["VmRSS"] / 1024,
            "rss_peak_mb": mem1["VmHWM"] / 1024, "cpu_s": cpu_seconds(pid) - cpu0,
            "mean_delivery": statistics.fmean(self.delivery) if self.delivery else float("nan")}


Bench.run_sim = _run_sim  # type: ignore[attr-defined]


def write_doc(args: argparse.Namespace, r: dict[str, Any], extra: str = "") -> str:
    ack = (f"- POST to acknowledgement (journaled and fsynced): p50 {r['ack_p50'] * 1000:.1f} ms, "
           f"p99 {r['ack_p99'] * 1000:.1f} ms\n") if r["ack_p50"] is not None else ""
    text = f"""{START}
## Service under load

Measured {date.today().isoformat()} on this machine ({os.cpu_count()} cores, Python {platform.python_version()}),
`python bench/service_load.py --tables {args.tables} --spectators {args.spectators} --seconds {args.seconds:g} --pace {args.pace:g}`
(how: the script's docstring). The service in a child process, SQLite journal with `synchronous=FULL`,
spectator delay 0; {args.tables} tables {"simulated inside the service (`--simulate`)" if args.drive == "sim" else
"driven over HTTP by robot players in the benchmark process"}, {args.spectators} WebSocket spectators
({args.spectators // args.tables} per table) in the benchmark process; client and server share the cores.

- events: **{r['events']:,}** in {r['elapsed']:.0f} s (**{r['rate']:.0f} events/s**), {r['errors']} refused
- device event to spectator delivery: **p50 {r['delivery_p50'] * 1000:.1f} ms, p99 {r['delivery_p99'] * 1000:.1f} ms**
  (mean {r['mean_delivery'] * 1000:.1f} ms, {r['delivery_n']:,} event-spectator pairs)
{ack}- server memory: {r['rss_start_mb']:.0f} MB resident with every table and spectator connected, {r['rss_end_mb']:.0f} MB
  at the end, peak {r['rss_peak_mb']:.0f} MB; server CPU {r['cpu_s']:.1f} s over the run
{extra}{END}"""
    doc = DOC.read_text() if DOC.exists() else "# Performance\n"
    if START in doc and END in doc:
        doc = doc[:doc.index(START)] + text + doc[doc.index(END) + len(END):]
    else:
        doc = doc.rstrip("\n") + "\n\n" + text + "\n"
    DOC.write_text(doc)
    return text


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tables", type=int, default=100)
    ap.add_argument("--spectators", type=int, default=500)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--pace", type=float, default=0.5, help="mean seconds between events at a table")
    ap.add_argument("--drive", choices=["sim", "http"], default="sim")
    ap.add_argument("--no-doc", action="store_true", help="print only")
    args = ap.parse_args()
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 8192)), hard))   # the server inherits it
    tables = [f"T{i}" for i in range(1, args.tables + 1)]
    cfg = {"tables": [{"id": t} for t in tables], "regulation": {"spectators": {"delay_s": 0}}}
    extra: tuple[str, ...] = ()
    if args.drive == "sim":
        tables = [str(i) for i in range(1, args.tables + 1)]
        cfg = {"regulation": {"spectators": {"delay_s": 0}}}
        extra = ("--simulate", str(args.tables), "--pace", str(args.pace), "--irregularity-rate", "0.2",
                 "--ruling-wait", "1")
    # every client of the benchmark shares one loopback address: the per-address caps would refuse most of them
    n = args.spectators + args.tables + 64
    cfg["limits"] = {"connections_per_address": n, "spectator_streams_per_address": n, "spectator_streams": n}
    with tempfile.TemporaryDirectory() as tmp, ServerProcess(Path(tmp), cfg, extra_args=extra) as srv:
        bench = Bench(srv, tables, args.spectators, args.seconds, args.pace)
        bench.drive = args.drive
        result = asyncio.run(bench.run())
    print(json.dumps(result, indent=1))
    if not args.no_doc:
        print(write_doc(args, result))


if __name__ == "__main__":
    main()
