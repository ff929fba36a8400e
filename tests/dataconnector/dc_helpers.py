"""Helpers of the Data Connector's tests: the service with the endpoint on, as a process."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
from service_harness import PLAIN_HTTP, ServerProcess, free_port

CLUB_ID, LICENCE_KEY = "CLUB001", "LICENCE-KEY-123"      # the sdist's golden requests carry these


def wait_port(port: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/", timeout=1.0, verify=PLAIN_HTTP).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    raise RuntimeError(f"the Data Connector did not answer on port {port}")


class DcServer(ServerProcess):
    """``bridgetable serve`` with the Data Connector on its own port."""

    def __init__(self, workdir: Path, config: dict[str, Any] | None = None, **kw: Any) -> None:
        self.dc_port = free_port()
        dc = {"club_id": CLUB_ID, "licence_key": LICENCE_KEY, "port": self.dc_port}
        cfg = dict(config or {})
        dc.update(cfg.pop("dataconnector", {}))
        super().__init__(workdir, {**cfg, "dataconnector": dc}, **kw)
        self.dc_base = f"http://127.0.0.1:{self.dc_port}"

    def start(self, timeout: float = 120.0) -> DcServer:
        super().start(timeout)
        wait_port(self.dc_port, timeout)
        return self
