"""Fixtures the service's browser tests share."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from headless import browser_session


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """The headless Chromium of the test process for a test module (skips with the reason when Chromium or
    Playwright is missing); what the module opened in it is closed after it."""
    with browser_session() as b:
        yield b
