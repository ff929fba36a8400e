"""Fixtures the service's browser tests share."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from headless import launch, playwright_or_skip


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium for a test module (skips with the reason when Chromium or Playwright is missing)."""
    sync_api = playwright_or_skip()
    with sync_api.sync_playwright() as pw:
        b = launch(pw)
        try:
            yield b
        finally:
            b.close()
