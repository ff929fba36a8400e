"""Connection limits over real sockets (``service/connection_guard.py``): a slow client holding more unfinished
requests than the process has open files locks nobody else out and does not flood the log; the caps answer
429/503 and free their slots when connections end."""
from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

import httpx

from service.testing import ServerProcess

CONFIG = {"tables": [{"id": "1"}, {"id": "2"}], "regulation": {"spectators": {"delay_s": 0}}}
ATTACKER = "127.0.0.2"          # another client address on the loopback (Linux answers all of 127/8)


class SlowLoris(threading.Thread):
    """Holds up to ``n`` connections from ``ATTACKER`` that send a request head a header at a time and never finish
    it; reopens those the server closes, until ``stop``."""

    def __init__(self, port: int, n: int) -> None:
        super().__init__(daemon=True)
        self.port, self.n = port, n
        self.socks: list[socket.socket] = []
        self.opened = self.closed_by_server = 0
        self.done = threading.Event()

    def _open(self) -> None:
        try:
            s = socket.create_connection(("127.0.0.1", self.port), timeout=0.5, source_address=(ATTACKER, 0))
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


def test_a_slow_client_holding_1100_unfinished_requests_locks_nobody_out(tmp_path: Path) -> None:
    with ServerProcess(tmp_path, CONFIG, open_files=1024) as server:
        loris = SlowLoris(server.port, 1100)
        loris.start()
        worst, answers = 0.0, 0
        deadline = time.monotonic() + 20.0
        try:
            while time.monotonic() < deadline:
                t = time.monotonic()
                r = httpx.get(server.base + "/api/health", timeout=1.0)   # a new connection each time
                worst = max(worst, time.monotonic() - t)
                assert r.status_code == 200, r.text
                answers += 1
                time.sleep(0.2)
        finally:
            loris.done.set()
            loris.join(10)
        assert loris.opened >= 1100, loris.opened               # the attack really held that many
        assert answers >= 50 and worst < 1.0, (answers, worst)
        log_size = server.log_path.stat().st_size
        assert log_size < 1_000_000, log_size
        # afterwards everything works, the attacker's address included
        with server.client(server.token) as d:
            assert d.get("/api/tables").raise_for_status().json()
            assert d.get("/api/health").json()["tables"] == 2
        time.sleep(0.5)
        s = socket.create_connection(("127.0.0.1", server.port), timeout=2, source_address=(ATTACKER, 0))
        s.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert s.recv(100).startswith(b"HTTP/1.1 200"), "the attacker's address is served again"
        s.close()
