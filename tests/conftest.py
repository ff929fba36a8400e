import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

CORPUS = os.environ.get("BRIDGETABLE_CORPUS")

# A slow or loaded machine must not turn a correct product red: no deadline and no too-slow health check in
# any profile. Property tests draw fresh random examples on every local run (to go on finding bugs); the "ci"
# profile (.ci/run) draws the same examples every time, so a landing is decided by the code, not by the draw.
_PATIENT = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large]}
settings.register_profile("default", **_PATIENT)
settings.register_profile("ci", derandomize=True, print_blob=True, **_PATIENT)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture(scope="session")
def corpus() -> Path:
    """The real-data folder (shared/data); tests that need it skip cleanly without it."""
    if not CORPUS or not Path(CORPUS).is_dir():
        pytest.skip("BRIDGETABLE_CORPUS not set")
    return Path(CORPUS)


# What the product and its tests make in the temp folder, by name: the simulators' pty link folders (hw_sim's
# PtyEndpoint, SimulatedTable's pty transport), the emulated seat units' (SeatUnit, AvrTable) and the device
# benchmark's. Each is removed by whoever made it when it closes; a run that leaves one behind fails.
PROJECT_TEMP_PREFIXES = ("hw_sim-", "seatunit-", "seatunits-", "bench-devices-")


def _project_entries(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir() if p.name.startswith(PROJECT_TEMP_PREFIXES)}


@pytest.fixture(scope="session", autouse=True)
def nothing_left_in_the_temp_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Fails the run if the session leaves a project folder in the temp dir.

    Other processes share /tmp (other runs of this suite too), so the session gets a temp dir of its own: TMPDIR
    and ``tempfile.gettempdir()`` point into a fresh ``bridgetable-tests-*`` folder for the whole session (the
    servers and emulators the tests start inherit it), and what it holds under the project's prefixes at the
    end, that it did not hold at the start, is a leak. The folder is removed afterwards either way. pytest's own
    ``tmp_path`` folders stay where pytest keeps them (the last three runs)."""
    tmp_path_factory.getbasetemp()                      # fixed before the temp dir moves
    own = Path(tempfile.mkdtemp(prefix="bridgetable-tests-"))
    saved_env, saved_tempdir = os.environ.get("TMPDIR"), tempfile.tempdir
    os.environ["TMPDIR"] = tempfile.tempdir = str(own)
    try:
        before = _project_entries(own)
        yield
        left = sorted(_project_entries(own) - before)
        listing = [f"{name}/ ({', '.join(sorted(p.name for p in (own / name).iterdir())) or 'empty'})"
                   if (own / name).is_dir() else name for name in left]
    finally:
        if saved_env is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = saved_env
        tempfile.tempdir = saved_tempdir
        shutil.rmtree(own, ignore_errors=True)
    if left:
        pytest.fail(f"the tests left {len(left)} folder(s) in the temp dir: {'; '.join(listing)}", pytrace=False)


@pytest.fixture(scope="session", autouse=True)
def shared_browser_stops() -> Iterator[None]:
    """The browser tests share one Chromium per test process (``headless.browser_session``): closed at the end."""
    yield
    from headless import stop_shared_browser
    stop_shared_browser()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """Captured output that is not valid Unicode (a test that feeds the journal a lone surrogate logs it) written
    with escapes: pytest-xdist sends each report to the controller as UTF-8 and a worker that cannot crashes."""
    outcome = yield
    report = outcome.get_result()
    report.sections = [(title, text.encode("utf-8", "backslashreplace").decode("utf-8"))
                       for title, text in report.sections]



# The tests that run for minutes (they carry a per-test timeout above the suite's, pyproject.toml): each runs on a
# pytest-xdist worker of its own, beside the rest of its module. Listed by name because the scheduler sees names
# only; collection fails when a test with such a timeout is missing here. Longest first (CI's --durations, issue
# 22): they are handed out in this order, two to a worker at the start, so the longest start at once.
RUN_ALONE = (
    "tests/firmware/test_avr_replay.py::test_two_hundred_corpus_boards_with_every_hand_read_at_the_table",
    "tests/bridgetable/test_sim_replay.py::test_seeded_faults_two_hundred_whole_boards",
    "tests/firmware/test_avr_replay.py::test_fifty_seeded_fault_runs_with_a_watchdog_reset_mid_board",
    "tests/firmware/test_avr_replay.py::test_fifty_seeded_fault_runs_give_the_fault_free_verdicts",
    "tests/bridgetable/test_sim_replay.py::test_two_hundred_corpus_records_over_pty_and_pyusb[",
    "tests/firmware/test_avr_replay.py::test_two_hundred_corpus_boards_give_the_replay_verdicts",
)


def _runs_alone(nodeid: str) -> bool:
    return nodeid.startswith(RUN_ALONE)


def _runs_for_minutes(item: pytest.Item) -> bool:
    marker = item.get_closest_marker("timeout")
    limit = (marker.args[0] if marker.args else marker.kwargs.get("timeout")) if marker else None
    return limit is not None and float(limit) > float(item.config.getini("timeout") or 0)


@pytest.hookimpl(optionalhook=True)                 # without pytest-xdist (-p no:xdist) the hook is not there
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """How pytest-xdist shares the tests out: a module's tests form one unit, run by one worker, so its
    module-scoped server or browser starts once; a test of RUN_ALONE is a unit of its own. Units go out in the
    order of the collection (longest first: ``pytest_collection_modifyitems``). pytest-xdist's own loadscope
    reorders the units by their number of tests, most first (``--loadscope-reorder``, on by default), which put the
    one-test units of RUN_ALONE, the longest of all, last: that is switched off here."""
    from xdist.scheduler import LoadScopeScheduling

    config.option.loadscopereorder = False

    class ByModule(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return nodeid if _runs_alone(nodeid) else nodeid.split("::", 1)[0]

    return ByModule(config, log)


# The modules that take longest (the --durations of a run on four workers, docs/PERFORMANCE.md), longest first:
# they are handed out before the rest, so that no worker picks one up when the others are nearly done.
LONGEST_MODULES = (
    "tests/service/test_phone_evening_browser.py", "tests/service/test_service_fuzz.py",
    "tests/service/test_public_screen.py", "tests/service/test_service_crash.py",
    "tests/service/test_round_guidance_browser.py", "tests/service/test_page_gallery.py",
    "tests/dataconnector/test_dc_evening.py", "tests/firmware/test_avr_replay.py",
    "tests/bridgetable/test_sim_replay.py", "tests/service/test_upload_faults.py", "tests/drivers/test_dealer.py",
    "tests/service/test_leaks.py", "tests/firmware/test_reader_emulation.py", "tests/service/test_exports.py",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The tests that run for minutes first, then the longest modules, then those with slow tests, then the rest
    (each module's own order kept)."""
    unlisted = [item.nodeid for item in items if _runs_for_minutes(item) and not _runs_alone(item.nodeid)]
    if unlisted:
        raise pytest.UsageError(f"tests/conftest.py: add to RUN_ALONE the tests that run for minutes: {unlisted}")

    def unit(item: pytest.Item) -> str:
        return item.nodeid if _runs_alone(item.nodeid) else item.nodeid.split("::", 1)[0]

    def cost(item: pytest.Item) -> tuple[int, int]:
        module = item.nodeid.split("::", 1)[0]
        if _runs_alone(item.nodeid):
            return 0, next(k for k, name in enumerate(RUN_ALONE) if item.nodeid.startswith(name))
        if module in LONGEST_MODULES:
            return 1, LONGEST_MODULES.index(module)
        return (2, 0) if item.get_closest_marker("slow") else (3, 0)

    rank: dict[str, tuple[int, int]] = {}
    for item in items:
        rank[unit(item)] = min(cost(item), rank.get(unit(item), cost(item)))
    items.sort(key=lambda item: rank[unit(item)])
