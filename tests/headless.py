"""What every headless-browser test shares: Debian's Chromium (Playwright's own download needs a CDN this
machine cannot reach), its launch arguments, and the screenshot folder (tests/artifacts, ignored by git)."""
from __future__ import annotations

import os
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
