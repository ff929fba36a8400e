"""A club at scale: 500 robot tables at human pace and 1,000 spectators on one service process.

The service runs in a child process (``bridgetable serve --simulate N --pace S``, SQLite journal,
``synchronous=FULL``, spectator delay 0 so that a view's delivery is measured from its journal row).
Each spectator is what the spectator page (``service/web/static/spectate.js``) opens: ``/ws/club`` (every
table's delayed view) and ``/ws/results`` (the public results screen), anonymous.

* ``--vugraph`` tables (default 10) are marked vugraph tables by the director: the rule withholds every other
  table's board from spectators while some table still has to play it (a 500-table Mitchell finishes no board
  in a run), and a withheld view does not move, so these tables' live views are what spectators receive;
* ``--measured`` of the spectators parse every message: delivery latency is the time from a table view's
  ``updated`` (the journal row's time, stamped when the service took the event in) to its arrival here,
  for every view whose sequence number moved (the greeting on connect is not counted). The others read
  their sockets and throw the bytes away: the server does the same work for them, the benchmark does not
  spend a core parsing 17,000 messages a second;
* health: ``GET /api/health`` (with the director's token, which the counts need) every 0.25 s, latency of
  each answer;
* start-up: from launching the process to ``/api/health`` answering with every table running;
* CPU: the server's user + system time (``/proc/PID/stat``) over the steady-state window / its wall time.

Client and server share the machine's cores (the load average is printed with the figures). Writes the
figures into docs/PERFORMANCE.md between ``<!-- club-scale:start -->`` and ``<!-- club-scale:end -->``
unless ``--no-doc``; ``--profile FILE`` records the server with py-spy over the window (speedscope JSON
or, with a ``.txt`` name, py-spy's collapsed stacks).

    python bench/club_scale.py [--tables 500] [--spectators 1000] [--pace 30] [--seconds 90]
    python bench/club_scale.py --tables 50 --spectators 100 --seconds 20 --no-doc     # a quick check
"""
from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import date, datetime
from pathlib import Path
from typing import Any

import httpx
import websockets

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the service harness
from service_harness import ServerProcess

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "PERFORMANCE.md"
START, END = "<!-- club-scale:start -->", "<!-- club-scale:end -->"


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def run_queue_seconds(pid: int) -> float:
    """Time the process spent runnable but waiting for a core (``/proc/PID/schedstat``): on a shared machine,
    how much of its latency was other work's."""
    return int(Path(f"/proc/{pid}/schedstat").read_text().split()[1]) / 1e9


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100 * len(xs)))] if xs else float("nan")


def director(srv: ServerProcess) -> dict[str, str]:
    """The director's credential: ``/api/health`` gives the counts (tables, events, subscribers) only to him."""
    return {"Authorization": f"Bearer {srv.token}"}


def raise_nofile() -> int:
    """The soft open-file limit as high as the hard one allows (the server child inherits it)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


class Bench:
    def __init__(self, srv: ServerProcess, args: argparse.Namespace) -> None:
        self.srv, self.args = srv, args
        self.measuring = False
        self.stop = asyncio.Event()
        self.delivery: list[float] = []
        self.health: list[float] = []
        self.results_msgs = 0
        self.state_msgs = 0
        self.drained_bytes = 0
        self.connected = 0
        self.failed = 0
        self.failure = ""

    async def measured(self, path: str, ready: asyncio.Event) -> None:
        last: dict[str, int] = {}
        # no client keepalive: its pong waits behind the greeting's megabytes in the server's send buffer, and the
        # client's 20 s ping timeout ended measured sockets while a thousand spectators were greeted
        async with websockets.connect(f"{self.srv.ws_base}{path}", max_size=None, open_timeout=120,
                                      ping_interval=None) as ws:
            self.connected += 1
            ready.set()
            while not self.stop.is_set():
                try:
                    msg = await asyncio.wait_for(ws.recv(), 1.0)
                except TimeoutError:
                    continue
                now = time.time()
                m = json.loads(msg)
                if m.get("type") in ("results", "results_patch"):    # the whole screen, or its change
                    self.results_msgs += self.measuring
                    continue
                if m.get("type") != "state":
                    continue
                st, tid = m["state"], m["table"]
                seen = last.get(tid)
                if seen is not None and st["seq"] > seen and self.measuring and st.get("updated"):
                    self.delivery.append(now - datetime.fromisoformat(st["updated"]).timestamp())
                    self.state_msgs += 1
                last[tid] = max(st["seq"], seen or 0)

    async def drained(self, path: str, ready: asyncio.Event) -> None:
        """A spectator whose frames are read and dropped unparsed: the same socket and frames for the server,
        next to nothing for this process. Asks for permessage-deflate as browsers do."""
        reader, writer = await asyncio.open_connection("127.0.0.1", self.srv.port)
        key = base64.b64encode(os.urandom(16)).decode()
        writer.write((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{self.srv.port}\r\nUpgrade: websocket\r\n"
                      f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                      "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n\r\n").encode())
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 120)
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise RuntimeError(head.decode(errors="replace")[:200])
        self.connected += 1
        ready.set()
        try:
            while not self.stop.is_set():
                try:
                    data = await asyncio.wait_for(reader.read(1 << 16), 1.0)
                except TimeoutError:
                    continue
                if not data:
                    return
                self.drained_bytes += len(data)
        finally:
            writer.close()

    async def spectator(self, i: int, gate: asyncio.Semaphore) -> None:
        kind = self.measured if i < self.args.measured else self.drained
        async with gate:                   # a bounded number of handshakes at a time
            ready = [asyncio.Event(), asyncio.Event()]
            tasks = [asyncio.create_task(kind(p, r)) for p, r in zip(("/ws/club", "/ws/results"), ready)]
            waits = [asyncio.create_task(r.wait()) for r in ready]
            either: list[asyncio.Future[Any]] = [*tasks, asyncio.gather(*waits)]
            await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
            for w in waits:
                w.cancel()
        res = await asyncio.gather(*tasks, return_exceptions=True)
        for r in res:
            if isinstance(r, BaseException):
                self.failed += 1
                self.failure = self.failure or repr(r)

    async def sample_health(self, client: httpx.AsyncClient) -> None:
        while not self.stop.is_set():
            t0 = time.perf_counter()
            r = await client.get("/api/health")
            if self.measuring and r.status_code == 200:
                self.health.append(time.perf_counter() - t0)
            await asyncio.sleep(0.25)

    async def run(self, started_s: float) -> dict[str, Any]:
        pid = self.srv.proc.pid if self.srv.proc else 0
        a = self.args
        gate = asyncio.Semaphore(64)
        t_conn = time.monotonic()
        specs = [asyncio.create_task(self.spectator(i, gate)) for i in range(a.spectators)]
        while self.connected < 2 * a.spectators and time.monotonic() - t_conn < 300:
            if self.failed:
                raise RuntimeError(f"{self.failed} spectator sockets failed, the first: {self.failure}")
            await asyncio.sleep(0.1)
        connect_s = time.monotonic() - t_conn
        print(f"started in {started_s:.1f} s, {self.connected} sockets in {connect_s:.1f} s (load {load()})",
              file=sys.stderr, flush=True)
        await asyncio.sleep(a.warmup)                       # the greetings drained
        async with httpx.AsyncClient(base_url=self.srv.base, headers=director(self.srv), timeout=60) as client:
            # the hand records' double-dummy analysis ahead of time (the lowest priority; its solver threads are
            # not told apart from the process's CPU): the window starts once it is done, its time reported apart
            t_dd = time.monotonic()
            while (await client.get("/api/health")).json()["analyses"]["pending"] and time.monotonic() - t_dd < 900:
                await asyncio.sleep(1)
            analysis_s = time.monotonic() - t_dd
            print(f"hand records analysed {analysis_s:.0f} s after the sockets (load {load()})", file=sys.stderr,
                  flush=True)
            h0 = (await client.get("/api/health")).json()
            sampler = asyncio.create_task(self.sample_health(client))
            spy = None
            if a.profile:
                fmt = "raw" if a.profile.endswith(".txt") else "speedscope"
                exe = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
                spy = subprocess.Popen([exe, "record", "-p", str(pid), "-r", "50", "-d", str(int(a.seconds)),
                                        "-f", fmt, "-o", a.profile, "--nonblocking"],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            load0 = load()
            self.measuring = True
            cpu0, wait0, t0 = cpu_seconds(pid), run_queue_seconds(pid), time.monotonic()
            await asyncio.sleep(a.seconds)
            cpu1, wait1, t1 = cpu_seconds(pid), run_queue_seconds(pid), time.monotonic()
            self.measuring = False
            load1 = load()
            h1 = (await client.get("/api/health")).json()
            self.stop.set()
            await asyncio.gather(sampler, return_exceptions=True)
            if spy is not None:
                spy.wait(60)
        await asyncio.gather(*specs, return_exceptions=True)
        wall = t1 - t0
        return {"tables": h1["tables"], "subscribers": h0["subscribers"], "start_s": started_s,
                "connect_s": connect_s, "seconds": wall, "events": h1["events"] - h0["events"],
                "events_per_s": (h1["events"] - h0["events"]) / wall,
                "cpu_share": (cpu1 - cpu0) / wall, "analysis_s": analysis_s,
                "analysed": h0["analyses"]["done"], "rss_mb": rss_mb(pid),
                "run_queue_share": (wait1 - wait0) / wall,
                "cpu_ms_per_event": (cpu1 - cpu0) * 1000 / max(1, h1["events"] - h0["events"]),
                "delivery_n": len(self.delivery), "delivery_p50_ms": pct(self.delivery, 50) * 1000,
                "delivery_p99_ms": pct(self.delivery, 99) * 1000, "delivery_max_ms": max(self.delivery) * 1000
                if self.delivery else float("nan"),
                "health_n": len(self.health), "health_p50_ms": pct(self.health, 50) * 1000,
                "health_p99_ms": pct(self.health, 99) * 1000, "health_max_ms": max(self.health) * 1000
                if self.health else float("nan"),
                "results_msgs": self.results_msgs, "drained_mb": self.drained_bytes / 2 ** 20,
                "load_start": load0, "load_end": load1}


def write_doc(args: argparse.Namespace, r: dict[str, Any]) -> str:
    text = f"""{START}
## A club at scale: robot tables at human pace, spectators

Measured {date.today().isoformat()} on this machine ({os.cpu_count()} cores shared with other work, Python
{platform.python_version()}; load average {r['load_start']} at the start of the window, {r['load_end']} at its end),
`python bench/club_scale.py --tables {args.tables} --spectators {args.spectators} --pace {args.pace:g} --seconds {args.seconds:g}`
(how: the script's docstring). {r['tables']} simulated tables, a robot action every {args.pace:g} s on average
at each; {args.spectators} anonymous spectators, each with the spectator page's two streams (`/ws/club`,
`/ws/results`: {r['subscribers']} hub subscribers), {args.measured} of them parsing every message;
{args.vugraph} vugraph tables.

- start-up, process launch to `/api/health` answering with every table running: **{r['start_s']:.1f} s**;
  all spectators connected and greeted {r['connect_s']:.1f} s later
- steady state over {r['seconds']:.0f} s: {r['events']:,} events ({r['events_per_s']:.1f}/s)
- spectator delivery (journal row to a parsing spectator): **p50 {r['delivery_p50_ms']:.1f} ms, p99
  {r['delivery_p99_ms']:.1f} ms** (max {r['delivery_max_ms']:.0f} ms, {r['delivery_n']:,} views)
- `/api/health`: **p50 {r['health_p50_ms']:.1f} ms, p99 {r['health_p99_ms']:.1f} ms** (max {r['health_max_ms']:.0f} ms,
  {r['health_n']} requests)
- the double-dummy analysis of the {r['analysed']:,} hand records ahead of time (the lowest priority) ended
  {r['analysis_s']:.0f} s after the sockets connected; the window starts after it
- server CPU: **{r['cpu_share'] * 100:.0f} % of a core** ({r['cpu_ms_per_event']:.1f} ms per event); it waited for a core
  (runnable, another process running) {r['run_queue_share'] * 100:.0f} % of the window; {r['rss_mb']:.0f} MB resident at the end
{END}"""
    doc = DOC.read_text()
    if START in doc and END in doc:
        doc = doc[:doc.index(START)] + text + doc[doc.index(END) + len(END):]
    else:
        doc = doc.rstrip("\n") + "\n\n" + text + "\n"
    DOC.write_text(doc)
    return text


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tables", type=int, default=500)
    ap.add_argument("--spectators", type=int, default=1000)
    ap.add_argument("--pace", type=float, default=30, help="mean seconds between robot actions at a table")
    ap.add_argument("--seconds", type=float, default=90, help="the steady-state window")
    ap.add_argument("--warmup", type=float, default=10, help="seconds after the last spectator connected")
    ap.add_argument("--measured", type=int, default=50, help="spectators that parse every message")
    ap.add_argument("--vugraph", type=int, default=10, help="tables the director marks as vugraph tables")
    ap.add_argument("--start-timeout", type=float, default=180)
    ap.add_argument("--server-path", help="PYTHONPATH of the server (another checkout); default: this one")
    ap.add_argument("--profile", help="py-spy record the server over the window into this file")
    ap.add_argument("--no-doc", action="store_true", help="print only")
    args = ap.parse_args()
    args.measured = min(args.measured, args.spectators)
    nofile = raise_nofile()
    if nofile < 2 * args.spectators + 2 * args.tables + 100:
        raise SystemExit(f"open-file limit {nofile} is too low for {args.spectators} spectators")
    if args.server_path:
        os.environ["PYTHONPATH"] = args.server_path
    cfg: dict[str, Any] = {"regulation": {"spectators": {"delay_s": 0}}}
    # every spectator of the benchmark shares one loopback address: the per-address and total caps on anonymous
    # streams and connections (``service/live/limits.py``, ``service/web/connection_guard.py``) are raised by
    # settings, not removed, so the server does the work of checking them
    n = 2 * args.spectators + 64
    cfg["limits"] = {"connections_per_address": n, "spectator_streams_per_address": n, "spectator_streams": n,
                     # the request deadline from a connection's opening: on a loaded machine a server greeting a
                     # thousand spectators has let 10 s pass before reading the next one's handshake
                     "header_timeout_s": 60}
    extra = ("--simulate", str(args.tables), "--pace", str(args.pace))
    with tempfile.TemporaryDirectory() as tmp:
        srv = ServerProcess(Path(tmp), cfg, extra_args=extra)
        t0 = time.monotonic()
        try:
            srv.start(timeout=args.start_timeout)
        except RuntimeError:
            raise SystemExit(f"/api/health did not answer within {args.start_timeout:g} s of the launch "
                             f"(load average {load()})") from None
        while httpx.get(srv.base + "/api/health", headers=director(srv), timeout=60).json()["tables"] < args.tables:
            time.sleep(0.05)
        started = time.monotonic() - t0
        # vugraph tables show their play to spectators live (the rule withholds every other table's board
        # while some table still has to play it, and a withheld view does not move): what delivery measures
        with srv.client(srv.token, timeout=120) as c:
            for tid in range(1, args.vugraph + 1):
                c.post(f"/api/tables/{tid}/vugraph", json={"on": True}).raise_for_status()
        try:
            result = asyncio.run(Bench(srv, args).run(started))
        except Exception:
            print(srv.log_path.read_text()[-3000:], file=sys.stderr)
            raise
        finally:
            srv.stop()
    print(json.dumps(result, indent=1))
    if not args.no_doc:
        print(write_doc(args, result))


if __name__ == "__main__":
    main()
