"""What every headless-browser test shares: Debian's Chromium (Playwright's own download needs a CDN this
machine cannot reach), its launch arguments, and the screenshot folder (tests/artifacts, ignored by git)."""
from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("BRIDGETABLE_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
ARTIFACTS = Path(__file__).parent / "artifacts"


def playwright_or_skip() -> Any:
    """``playwright.sync_api``, with the artifacts folder ready; the test skips (with the reason) when
    Chromium or Playwright is missing."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}: `make browsers` installs Debian's chromium "
                    "(apt-get install -y chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / ".gitignore").write_text("*\n")
    return sync_api


def launch(pw: Any) -> Any:
    return pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)


def wait_until(page: Any, expression: str, arg: Any = None, timeout: float = 15.0) -> None:
    """Poll a JavaScript predicate with ``page.evaluate`` until it holds. Playwright's own
    ``wait_for_function`` evaluates its predicate from a string inside the page once the first check fails,
    which the service's Content-Security-Policy (no 'unsafe-eval') forbids; ``evaluate`` goes through the
    DevTools protocol, which the page's policy does not govern."""
    deadline = time.monotonic() + timeout
    while not page.evaluate(expression, arg):
        if time.monotonic() > deadline:
            raise TimeoutError(f"still false after {timeout:g} s: {expression}")
        time.sleep(0.1)
