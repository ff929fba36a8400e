"""The Data Connector's tests run the scoring programs' own client (``bridgemate-dataconnector-client``, a test
dependency) over real HTTP against a real ``bridgetable serve``. Its sdist's fixtures and getting-started sample
are fetched from PyPI with pip, once per run, into pytest's cache (never copied into the repository)."""
from __future__ import annotations

import fcntl
import subprocess
import sys
import tarfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from dc_helpers import DcServer

CLIENT = "bridgemate-dataconnector-client==1.2.1"


@pytest.fixture(scope="session")
def sdist(request: pytest.FixtureRequest) -> Path:
    """The unpacked sdist of the client (its ``tests/fixtures`` and ``examples``)."""
    cache = Path(request.config.cache.mkdir("dataconnector-sdist"))       # type: ignore[union-attr]
    root = cache / "bridgemate_dataconnector_client-1.2.1"
    # one pytest-xdist worker fetches it, the others wait for it (a fresh machine's pip took ~50 s, in each worker)
    with open(cache / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (root / "examples" / "getting_started.py").is_file():
            subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                            CLIENT, "-d", str(cache)], check=True, timeout=300)
            with tarfile.open(cache / "bridgemate_dataconnector_client-1.2.1.tar.gz") as tar:
                tar.extractall(cache, filter="data")
    return root


@pytest.fixture
def dc_server(tmp_path: Path) -> Iterator[DcServer]:
    server = DcServer(tmp_path / "srv").start()
    try:
        yield server
    finally:
        server.stop()
