"""The seat-unit firmware tests build ``firmware/`` (avr-gcc, simavr) once per session. Without the toolchain
they skip locally; in CI (``CI`` set) a missing toolchain is a failure. Under pytest-xdist every worker asks for the
build: a lock file lets one run ``make`` while the others wait, then find it up to date."""
import fcntl
import os

import pytest

from hw_sim.avr import FIRMWARE_DIR, build, toolchain_missing


@pytest.fixture(scope="session")
def firmware_build() -> None:
    missing = toolchain_missing()
    if missing and not os.environ.get("CI"):
        pytest.skip(f"firmware toolchain not installed: {', '.join(missing)} (make firmware-deps)")
    with open(FIRMWARE_DIR / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        build()
