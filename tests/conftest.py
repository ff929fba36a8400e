import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

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
