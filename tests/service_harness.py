"""Run the real service on a free loopback port (tests, benchmarks): real HTTP and WebSocket either way.

``ServerProcess(workdir, config)`` starts ``bridgetable serve`` in a child process with a JSON configuration, waits
until ``/api/health`` answers, and can be stopped politely (SIGTERM) or killed (SIGKILL) and started again on the
same journal and port: for the tests whose point is the process (a crash, its open-file limit, its log, its
memory). ``ServiceThread`` runs the same service (``bridgetable serve``'s own settings, connection guard and
servers) in a thread of the test's process: no interpreter to start and no imports per server (about 0.9 s of CPU
and a second of waiting each, docs/PERFORMANCE.md). ``SlowLoris`` is a client that holds unfinished requests
(``docs/security.md``, "Limits").
"""
from __future__ import annotations

import asyncio
import json
import os
import random
import resource
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any

import httpx

DIRECTOR_TOKEN = "director-test-token"
ATTACKER = "127.0.0.2"          # another client address on the loopback (Linux answers all of 127/8)
# The service closes a connection idle for 5 s (uvicorn's keep-alive); httpx keeps one for reuse 5 s too, so on a
# loaded machine a request could go out on a connection the service was closing ("Server disconnected without
# sending a response", once in a make test run). A client must survive that close (RFC 9112 9.3.1): browsers
# retry, httpx does not; these clients let a connection go well before the service would.
CLIENT_LIMITS = httpx.Limits(keepalive_expiry=2.0)
# httpx builds an SSL context for every client and every ``httpx.get``, plain-HTTP URLs included: reading the CA
# bundle costs ~20 ms of CPU each time. py-spy over a whole run found 15 % of the test workers' CPU there (half of
# it in a server start's health polling). The suite's clients, all on plain HTTP, share this one (``verify=``).
PLAIN_HTTP = ssl.create_default_context()


class SeatSignIn(httpx.Auth):
    """A player at ``table``/``seat`` who signs in with his seat's current link (``POST /api/signin``) and, when
    his sign-in ends (a new round, a revocation: 401), signs in again with the link the director now shows."""

    def __init__(self, server: ServerProcess, table: str, seat: str) -> None:
        self.server, self.table, self.seat = server, table, seat
        self.token: str | None = None

    def sign_in(self) -> str:
        with self.server.client(self.server.token) as d:
            link = d.get(f"/api/tables/{self.table}/tokens").raise_for_status().json()[self.seat]["link"]
            if d.get(f"/api/tables/{self.table}/tokens").json()[self.seat]["used"]:
                d.post(f"/api/tables/{self.table}/revoke", params={"seat": self.seat}).raise_for_status()
                link = d.get(f"/api/tables/{self.table}/tokens").json()[self.seat]["link"]
            code = link.split("#signin=", 1)[1]
            self.token = str(d.post("/api/signin", json={"code": code}).raise_for_status().json()["token"])
        return self.token

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        request.headers["Authorization"] = f"Bearer {self.token or self.sign_in()}"
        response = yield request
        if response.status_code == 401:
            request.headers["Authorization"] = f"Bearer {self.sign_in()}"
            yield request


def raw_request(port: int, method: str, path: str, headers: list[tuple[str, str]], body: bytes = b"",
                timeout: float = 10.0) -> tuple[int, bytes]:
    """One HTTP/1.1 request written byte for byte on a socket (headers exactly as given, repeated ones too,
    which an HTTP client would merge): the answer's status and body."""
    head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n"
    head += "".join(f"{k}: {v}\r\n" for k, v in headers)
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(head.encode("latin-1") + b"\r\n" + body)
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    status_line, _, rest = data.partition(b"\r\n")
    return int(status_line.split()[1]), rest.partition(b"\r\n\r\n")[2]


_PORTS = random.SystemRandom()        # not the random module's state, which a property test may have seeded


def _ephemeral_low() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def _worker_ports() -> range:
    """This test process's share of the ports below the system's range for outgoing connections: under
    pytest-xdist each worker has its own slice. A test that stops a server and starts it again on the same port (a
    crash, a resumed session) leaves the port free meanwhile; with every worker drawing from the whole range,
    another worker's server once took it in that gap, and the restarted test's health check was answered by the
    other worker's service (the new session "had" board 1)."""
    low, high = 10000, max(10001, _ephemeral_low())
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    if not worker.startswith("gw") or not worker[2:].isdigit() or count < 2:
        return range(low, high)
    span = (high - low) // count
    start = low + (int(worker[2:]) % count) * span
    return range(start, start + span)


_NEXT_PORT: list[int] = []


def free_port() -> int:
    """A port free now, from this process's slice (``_worker_ports``), taken in turn from a random start so that a
    port comes back only after the whole slice: a server restarted on it later (a crash test, a resumed session)
    finds it free, where a port the system handed out (bind to 0) could meanwhile be an outgoing connection's local
    port (another test's client), and the restart failed with EADDRINUSE."""
    ports = _worker_ports()
    if not _NEXT_PORT:
        _NEXT_PORT.append(_PORTS.randrange(len(ports)))
    for _ in range(200):
        port = ports[_NEXT_PORT[0] % len(ports)]
        _NEXT_PORT[0] += 1
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServerProcess:
    def __init__(self, workdir: Path, config: dict[str, Any] | None = None, simulate: int = 0,
                 extra_args: tuple[str, ...] = (), port: int | None = None, open_files: int | None = None) -> None:
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        cfg = {"director_token": DIRECTOR_TOKEN, "database": str(self.workdir / "journal.db")}
        cfg.update(config or {})
        self.config = cfg
        self.config_path = self.workdir / "config.json"
        self.config_path.write_text(json.dumps(cfg))
        self.simulate = simulate
        self.extra_args = extra_args
        self.open_files = open_files              # the child's RLIMIT_NOFILE (soft and hard), as a club's machine has
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.ws_base = f"ws://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_path = self.workdir / "server.log"
        self.token = cfg["director_token"]

    @property
    def database(self) -> str:
        return str(self.config["database"])

    # Generous waits: the suite runs on several workers at once (pytest-xdist) beside other work on a 2-core
    # machine, where a start-up or an answer can take many times what it takes on a quiet one.
    def start(self, timeout: float = 120.0) -> ServerProcess:
        cmd = [sys.executable, "-c", "from bridgetable.cli import main; main()", "serve",
               "--config", str(self.config_path), "--port", str(self.port), "--log-level", "warning"]
        if self.simulate:
            cmd += ["--simulate", str(self.simulate)]
        cmd += list(self.extra_args)
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                     cwd=self.workdir, env={**os.environ, "PYTHONUNBUFFERED": "1"},
                                     preexec_fn=self._limit_files if self.open_files else None)
        deadline = time.monotonic() + timeout
        with httpx.Client(timeout=1.0, verify=PLAIN_HTTP) as probe:
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"server exited ({self.proc.returncode}):\n{self.log_path.read_text()[-3000:]}")
                if self._answers_as_ours(probe):
                    return self
                time.sleep(0.05)
        self.kill()
        raise RuntimeError(f"server did not start:\n{self.log_path.read_text()[-3000:]}")

    def _answers_as_ours(self, probe: httpx.Client) -> bool:
        """Whether this server's service answers on the port: up, and (to the director) on this server's journal,
        not another service that holds the port meanwhile (its own start then fails: "server exited")."""
        try:
            health = probe.get(self.base + "/api/health", headers={"Authorization": f"Bearer {self.token}"})
        except httpx.HTTPError:
            return False
        if health.status_code != 200:
            return False
        try:
            journal = health.json().get("journal")
        except ValueError:                      # not this project's service at all
            return False
        return journal is None or journal == self.database

    def _limit_files(self) -> None:
        assert self.open_files is not None
        resource.setrlimit(resource.RLIMIT_NOFILE, (self.open_files, self.open_files))

    def stop(self, timeout: float = 15.0) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()
        self.proc = None

    def client(self, token: str | None = None, **kw: Any) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.base, headers=headers, timeout=kw.pop("timeout", 30.0), verify=PLAIN_HTTP,
                            limits=kw.pop("limits", CLIENT_LIMITS), **kw)

    def seat_client(self, table: str, seat: str, **kw: Any) -> httpx.Client:
        """A client of a player at ``table``/``seat``, signed in for whatever round the table is in."""
        return httpx.Client(base_url=self.base, auth=SeatSignIn(self, table, seat), timeout=kw.pop("timeout", 30.0),
                            verify=PLAIN_HTTP,
                            limits=kw.pop("limits", CLIENT_LIMITS), **kw)

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class ServiceThread(ServerProcess):
    """``bridgetable serve`` with the same arguments, run in a thread of this process (see the module's
    docstring): ``start``, ``stop`` and the clients as ``ServerProcess``; no ``kill``, no log file, no ``proc``;
    the double-dummy analyses at normal priority (``analysis_nice`` 0) and no heap freeze at start-up
    (``freeze_heap`` off, see ``start``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.open_files is not None:
            raise ValueError("an open-file limit is a process's: ServerProcess")
        self._servers: list[Any] = []
        self._thread: threading.Thread | None = None
        self._failure: BaseException | None = None

    def start(self, timeout: float = 120.0) -> ServiceThread:
        from bridgetable.serve_cli import serve, serve_all, serve_settings, service_servers
        from service import create_app

        args = ["--config", str(self.config_path), "--port", str(self.port), "--log-level", "warning"]
        if self.simulate:
            args += ["--simulate", str(self.simulate)]
        with serve.make_context("serve", args + list(self.extra_args)) as ctx:   # the command's own parsing
            opts = ctx.params
        settings = serve_settings(opts["config"], **{k: opts[k] for k in (
            "database", "simulate", "pace", "irregularity_rate", "ruling_wait", "seed", "spectator_delay",
            "dataconnector", "dc_club_id", "dc_licence_key", "dc_port", "session_choice")})
        # The two differences from `bridgetable serve`. The double-dummy analyses at normal priority: in a test
        # process shared with other services, a nice-19 solver thread starved on a loaded machine (a whole CI run,
        # load 55: no figures in 60 s) and held the process's one DDS lock (table/dds.py) meanwhile.
        # And no gc.collect() and gc.freeze() at start-up (settings.freeze_heap): in the test's process they walked
        # the whole suite's heap at every start (py-spy: 5 % of the workers' CPU) and froze the tests' objects.
        settings = settings.model_copy(update={"analysis_nice": 0, "freeze_heap": False})
        app = create_app(settings)
        self._servers = servers = service_servers(app, settings, host=opts["host"], port=self.port,
                                                  log_level=opts["log_level"])
        self._failure = None

        def run() -> None:
            try:
                asyncio.run(serve_all(servers))
            except BaseException as err:        # SystemExit when the port is taken: uvicorn exits
                self._failure = err

        self._thread = threading.Thread(target=run, name=f"service-{self.port}", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if all(server.started for server in servers):
                return self
            if not self._thread.is_alive():
                raise RuntimeError(f"the service did not start: {self._failure!r}")
            time.sleep(0.01)
        self.stop()
        raise RuntimeError("the service did not start in time")

    def stop(self, timeout: float = 30.0) -> None:
        for server in self._servers:
            server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout)
            if self._thread.is_alive():
                raise RuntimeError(f"the service on port {self.port} did not stop in {timeout:g} s")
        self._thread = None
        self._servers = []

    def kill(self) -> None:
        raise NotImplementedError("a thread cannot be killed: ServerProcess for a crash")


class SlowLoris(threading.Thread):
    """Holds up to ``n`` connections from ``source`` that send a request head a header at a time and never finish
    it (slowloris); reopens those the server closes, until ``done`` is set."""

    def __init__(self, port: int, n: int, source: str = ATTACKER) -> None:
        super().__init__(daemon=True)
        self.port, self.n, self.source = port, n, source
        self.socks: list[socket.socket] = []
        self.opened = self.closed_by_server = 0
        self.done = threading.Event()

    def _open(self) -> None:
        try:
            s = socket.create_connection(("127.0.0.1", self.port), timeout=0.5, source_address=(self.source, 0))
            s.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\n")
            s.setblocking(False)
        except OSError:
            return
        self.socks.append(s)
        self.opened += 1

    def run(self) -> None:
        last_dribble = time.monotonic()
        while not self.done.is_set():
            while len(self.socks) < self.n and not self.done.is_set():
                self._open()
                if len(self.socks) % 100 == 0:
                    break                               # let the dribble below run between bursts
            if time.monotonic() - last_dribble > 2.0:
                last_dribble = time.monotonic()
                alive = []
                for s in self.socks:
                    try:
                        s.send(b"X-a: b\r\n")
                        if s.recv(4096, socket.MSG_PEEK) == b"":
                            raise OSError("closed")
                    except BlockingIOError:
                        alive.append(s)
                        continue
                    except OSError:
                        s.close()
                        self.closed_by_server += 1
                        continue
                    s.close()                           # the server answered (a refusal): done with it
                    self.closed_by_server += 1
                self.socks = alive
            time.sleep(0.01)
        for s in self.socks:
            s.close()
