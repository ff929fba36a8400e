"""The seat-unit firmware tests build ``firmware/`` (avr-gcc, simavr) once per session. Without the toolchain
they skip locally; in CI (``CI`` set) a missing toolchain is a failure."""
import os

import pytest

from hw_sim.avr import build, toolchain_missing


@pytest.fixture(scope="session")
def firmware_build() -> None:
    missing = toolchain_missing()
    if missing and not os.environ.get("CI"):
        pytest.skip(f"firmware toolchain not installed: {', '.join(missing)} (make firmware-deps)")
    build()
