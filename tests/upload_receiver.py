"""A real webhook receiver for the upload tests, run as a separate process (``ReceiverProcess``).

It does what ``docs/upload.md`` asks of a receiver, written here from the document and not from
``service.outbox.targets`` (so a mistake in the sender's scheme is not mirrored): it checks the
``X-Bridgetable-Signature`` (``t=<unix>,v1=<HMAC-SHA256(secret, "<t>." + body)>``, at most 300 s old), applies each
``Idempotency-Key`` at most once (answering 409 to a key it already has), keeps the highest ``version`` per
(table, board), and keeps all of it in its own SQLite file so that it survives being killed.

Faults: ``--schedule`` is a cycle of modes, one per POST received (counted in the file, so the cycle goes
on across restarts), e.g. ``ok:40,500:5,timeout:2,drop:2,429:2``:

- ``ok``: apply and answer 200 (409 for a key already applied);
- ``500``: answer 500 without applying;
- ``429``: answer 429 with ``Retry-After: 1`` without applying;
- ``timeout``: apply, then answer only after ``--hang`` seconds (longer than the sender's timeout: the sender
  gives up and sends again, which must be absorbed as a duplicate);
- ``drop``: apply, then close the connection without an answer;
- ``400``: answer 400 (a permanent refusal).

A request whose body ends before its ``Content-Length`` (the sender was killed while sending) is counted as
``incomplete`` and not answered: it is not a signature failure.

Refusing connections and going away for a while are the harness's part: ``ReceiverProcess.kill()`` then
``start()`` again on the same port and file.

Run alone: ``python tests/upload_receiver.py --port 8099 --db /tmp/recv.db --secret <secret>``;
``GET /_state`` answers the counters and every result kept.
"""
from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS applied (key TEXT PRIMARY KEY, table_id TEXT, board INTEGER, version INTEGER,
                                    payload TEXT, at REAL);
CREATE TABLE IF NOT EXISTS results (table_id TEXT, board INTEGER, version INTEGER, key TEXT, payload TEXT,
                                    PRIMARY KEY (table_id, board));
CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, n INTEGER NOT NULL);
"""
TOLERANCE_S = 300


def parse_schedule(spec: str) -> list[str]:
    out: list[str] = []
    for part in spec.split(","):
        mode, _, n = part.strip().partition(":")
        out += [mode] * int(n or 1)
    return out or ["ok"]


def signature_ok(secret: str, header: str | None, body: bytes) -> bool:
    if not header:
        return False
    fields: dict[str, list[str]] = {}
    for item in header.split(","):
        k, _, v = item.partition("=")
        fields.setdefault(k.strip(), []).append(v.strip())
    try:
        t = int(fields["t"][0])
    except (KeyError, ValueError):
        return False
    if abs(time.time() - t) > TOLERANCE_S:
        return False
    mac = hmac.new(secret.encode(), f"{t}.".encode() + body, hashlib.sha256).hexdigest()
    return any(hmac.compare_digest(mac, v) for v in fields.get("v1", []))


class Store:
    def __init__(self, path: str) -> None:
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA busy_timeout=5000")
        self.db.executescript(SCHEMA)
        self.lock = threading.Lock()

    def count(self, name: str, n: int = 1) -> int:
        with self.lock:
            self.db.execute("INSERT INTO counters (name, n) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET n = n + ?",
                            (name, n, n))
            return int(self.db.execute("SELECT n FROM counters WHERE name = ?", (name,)).fetchone()[0])

    def apply(self, key: str, p: dict[str, Any]) -> bool:
        """Apply once: False if the key was applied before. One transaction: the key and the result together."""
        with self.lock:
            db = self.db
            db.execute("BEGIN IMMEDIATE")
            try:
                if db.execute("SELECT 1 FROM applied WHERE key = ?", (key,)).fetchone():
                    db.execute("INSERT INTO counters (name, n) VALUES ('duplicates', 1) "
                               "ON CONFLICT (name) DO UPDATE SET n = n + 1")
                    db.execute("COMMIT")
                    return False
                body = json.dumps(p, sort_keys=True)
                db.execute("INSERT INTO applied VALUES (?,?,?,?,?,?)",
                           (key, p["table"], p["board"], p["version"], body, time.time()))
                db.execute("INSERT INTO counters (name, n) VALUES ('applied', 1) "
                           "ON CONFLICT (name) DO UPDATE SET n = n + 1")
                cur = db.execute("SELECT version FROM results WHERE table_id = ? AND board = ?",
                                 (p["table"], p["board"])).fetchone()
                if cur is None or cur[0] < p["version"]:            # the latest version wins, whatever the order
                    db.execute("INSERT OR REPLACE INTO results VALUES (?,?,?,?,?)",
                               (p["table"], p["board"], p["version"], key, body))
                else:
                    db.execute("INSERT INTO counters (name, n) VALUES ('stale_versions', 1) "
                               "ON CONFLICT (name) DO UPDATE SET n = n + 1")
                db.execute("COMMIT")
                return True
            except BaseException:
                db.execute("ROLLBACK")
                raise

    def state(self) -> dict[str, Any]:
        with self.lock:
            counters = dict(self.db.execute("SELECT name, n FROM counters"))
            rows = self.db.execute("SELECT payload FROM results ORDER BY table_id, board")
            results = [json.loads(p) for (p,) in rows]
            keys = [k for (k,) in self.db.execute("SELECT key FROM applied")]
        return {"counters": counters, "results": results, "applied_keys": keys}


class Receiver(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, port: int, store: Store, secret: str, schedule: list[str], hang_s: float) -> None:
        super().__init__(("127.0.0.1", port), Handler)
        self.store, self.secret, self.schedule, self.hang_s = store, secret, schedule, hang_s

    def mode_for(self, request_number: int) -> str:
        """The schedule is indexed by the request count kept in the file: it goes on across restarts."""
        return self.schedule[(request_number - 1) % len(self.schedule)]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: Receiver

    def log_message(self, fmt: str, *args: Any) -> None:      # quiet: the test reads the counters
        pass

    def _answer(self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        try:
            self.wfile.write(data)
        except OSError:                      # the sender gave up (timeout mode): nothing to do
            pass

    def do_GET(self) -> None:
        if self.path == "/_state":
            self._answer(200, self.server.store.state())
        else:
            self._answer(404, {"detail": "not found"})

    def do_POST(self) -> None:
        srv = self.server
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        if self.path != "/results":
            self._answer(404, {"detail": "not found"})
            return
        if len(body) < length:              # the sender went away mid-request (it was killed): nobody to answer
            srv.store.count("incomplete")
            self.close_connection = True
            return
        number = srv.store.count("requests")
        if not signature_ok(srv.secret, self.headers.get("X-Bridgetable-Signature"), body):
            srv.store.count("bad_signature")
            print(f"bad signature: {self.headers.get('X-Bridgetable-Signature')!r} at {time.time():.0f}, "
                  f"{len(body)} of {length} bytes: {body[:200]!r}", flush=True)
            self._answer(401, {"detail": "bad signature"})
            return
        try:
            p = json.loads(body)
            key = self.headers["Idempotency-Key"]
            assert key and key == p["key"], "Idempotency-Key differs from the payload's key"
        except (ValueError, KeyError, AssertionError) as err:
            srv.store.count("malformed")
            self._answer(400, {"detail": f"malformed: {err}"})
            return
        mode = srv.mode_for(number)
        if mode != "ok":
            srv.store.count(f"fault_{mode}")
        if mode == "500":
            self._answer(500, {"detail": "injected fault"})
        elif mode == "429":
            self._answer(429, {"detail": "slow down"}, {"Retry-After": "1"})
        elif mode == "400":
            self._answer(400, {"detail": "injected permanent refusal"})
        else:
            fresh = srv.store.apply(key, p)
            if mode == "timeout":
                time.sleep(srv.hang_s)
            elif mode == "drop":
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            self._answer(200 if fresh else 409, {"key": key, "applied": fresh})


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--db", required=True)
    ap.add_argument("--secret", required=True)
    ap.add_argument("--schedule", default="ok")
    ap.add_argument("--hang", type=float, default=3.0, help="seconds a 'timeout' request is held")
    a = ap.parse_args(argv)
    srv = Receiver(a.port, Store(a.db), a.secret, parse_schedule(a.schedule), a.hang)
    signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=srv.shutdown).start())
    print(f"receiver on 127.0.0.1:{a.port}", flush=True)
    srv.serve_forever(poll_interval=0.1)


# ------------------------------------------------------------------------------------------ the test harness
class ReceiverProcess:
    """The receiver in a child process; ``kill()`` and ``start()`` again keep its port and its file."""

    def __init__(self, workdir: Path, secret: str, port: int, schedule: str = "ok", hang_s: float = 3.0) -> None:
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.db = self.workdir / "receiver.db"
        self.secret, self.port, self.schedule, self.hang_s = secret, port, schedule, hang_s
        self.url = f"http://127.0.0.1:{port}"
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def start(self, schedule: str | None = None, timeout: float = 15.0) -> ReceiverProcess:
        import httpx
        from service_harness import PLAIN_HTTP
        if schedule is not None:
            self.schedule = schedule
        log = open(self.workdir / "receiver.log", "ab")
        self.proc = subprocess.Popen([sys.executable, __file__, "--port", str(self.port), "--db", str(self.db),
                                      "--secret", self.secret, "--schedule", self.schedule, "--hang", str(self.hang_s)],
                                     stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        self.starts += 1
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"receiver exited: {(self.workdir / 'receiver.log').read_text()[-2000:]}")
            try:
                if httpx.get(self.url + "/_state", timeout=1.0, verify=PLAIN_HTTP).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        self.kill()
        raise RuntimeError("receiver did not start")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()
        self.proc = None

    def state(self) -> dict[str, Any]:
        """Read the receiver's file directly (works while it is down)."""
        store = Store(str(self.db))
        try:
            return store.state()
        finally:
            store.db.close()


if __name__ == "__main__":
    main()
