"""What every headless-browser test shares: Debian's Chromium (Playwright's own download needs a CDN this
machine cannot reach), its launch arguments, and the screenshot folder (tests/artifacts, ignored by git)."""
from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# The old headless shell (`make browsers` installs Debian's chromium-headless-shell): the same Blink renders the
# pages, without the desktop browser's processes, at a tenth of the CPU per browser context. Debian's full
# chromium is the fallback.
HEADLESS_SHELL = "/usr/bin/chromium-headless-shell"
CHROMIUM = os.environ.get("BRIDGETABLE_CHROMIUM") or (
    HEADLESS_SHELL if Path(HEADLESS_SHELL).exists() else "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
ARTIFACTS = Path(__file__).parent / "artifacts"

# On a seat page: the legal card the page's own seat (or, on declarer's page, dummy) plays, following the suit
# led when it can; the card, or null when it is not this page's turn.
PLAY_ONE = """() => {
  const s = state; if (!s || !s.turn) return null;
  const buttons = [...document.querySelectorAll(`.hand.${s.turn} button.card.play`)];
  if (!buttons.length) return null;
  const led = s.trick && s.trick.cards.length && s.trick.cards.length < 4 ? s.trick.cards[0].card[0] : null;
  const b = buttons.find(x => led && x.dataset.card[0] === led) || buttons[0];
  b.click(); return b.dataset.card;
}"""


def playwright_or_skip() -> Any:
    """``playwright.sync_api``, with the artifacts folder ready; the test skips (with the reason) when
    Chromium or Playwright is missing."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}: `make browsers` installs Debian's chromium-headless-shell "
                    "(apt-get install -y chromium-headless-shell)")
    sync_api = pytest.importorskip("playwright.sync_api")
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / ".gitignore").write_text("*\n")
    return sync_api


def launch(pw: Any) -> Any:
    return pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)


class _Shared:
    """The test process's Playwright driver and Chromium, started by the first browser test and kept for the
    next ones (each start of the two cost ~0.9 CPU s, and a run made ~50)."""
    playwright: Any = None
    browser: Any = None
    loop: asyncio.AbstractEventLoop | None = None


def _resume() -> None:
    # Playwright's sync API marks its event loop as this thread's running loop between two of its calls (its
    # dispatcher is a greenlet inside that loop); a test that is not a browser test finds it unmarked (_park),
    # so its own asyncio.run works. The loop is marked again before Playwright's next call.
    if _Shared.loop is not None:
        asyncio._set_running_loop(_Shared.loop)


def _park() -> None:
    if _Shared.loop is not None and asyncio._get_running_loop() is _Shared.loop:
        asyncio._set_running_loop(None)


@contextlib.contextmanager
def browser_session() -> Iterator[Any]:
    """Chromium for a browser test (or a module of them): the test process's own, started at the first use. The
    browser contexts and pages the test opened are closed after it, so the next test starts from none; a browser
    that died is launched again. Skips (with the reason) when Chromium or Playwright is missing."""
    sync_api = playwright_or_skip()
    _resume()
    try:
        if _Shared.browser is None or not _Shared.browser.is_connected():
            if _Shared.playwright is not None:         # a browser that died: its driver is started afresh too
                with contextlib.suppress(Exception):
                    stop_shared_browser()
                _Shared.playwright = _Shared.browser = _Shared.loop = None
                asyncio._set_running_loop(None)         # not the old driver's loop, whatever its stop did
            _Shared.playwright = sync_api.sync_playwright().start()
            _Shared.loop = asyncio._get_running_loop()
            _Shared.browser = launch(_Shared.playwright)
        yield _Shared.browser
    finally:
        _resume()
        if _Shared.browser is not None and _Shared.browser.is_connected():
            for context in list(_Shared.browser.contexts):
                context.close()
        _park()


def stop_shared_browser() -> None:
    """Closes the test process's Chromium and Playwright driver (the end of the test session)."""
    if _Shared.playwright is None:
        return
    _resume()
    try:
        if _Shared.browser is not None and _Shared.browser.is_connected():
            _Shared.browser.close()
        _Shared.playwright.stop()
    finally:
        _Shared.playwright = _Shared.browser = _Shared.loop = None


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


def axe_source() -> str:
    """axe-core's engine (axe.min.js) as the test extra ``axe-playwright-python`` ships it inside its wheel; the
    test skips (with the reason) when that package is missing."""
    pytest.importorskip("axe_playwright_python", reason="pip install -e '.[test]' brings axe-playwright-python")
    from importlib.resources import files
    return (files("axe_playwright_python") / "axe.min.js").read_text(encoding="utf-8")


def axe_violations(page: Any, impacts: tuple[str, ...] = ("critical", "serious")) -> list[dict[str, Any]]:
    """axe-core's violations of the page as it is now, of the given impacts, each as axe reports it (``id``,
    ``impact``, ``help``, ``nodes`` with their ``target`` and ``failureSummary``). The engine goes in through
    ``page.evaluate`` (the DevTools protocol): the service's Content-Security-Policy would refuse a script tag
    whose content is not a file of the service."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.evaluate(axe_source())
    result = page.evaluate("() => axe.run(document, {resultTypes: ['violations']})")
    return [v for v in result["violations"] if v.get("impact") in impacts]


def axe_summary(violations: list[dict[str, Any]]) -> str:
    """One line per violation and element, for an assertion's message."""
    return "\n".join(f"{v['impact']} {v['id']}: {v['help']} at {n['target']}: {n.get('failureSummary', '')}"
                     for v in violations for n in v["nodes"])
