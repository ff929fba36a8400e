import os
from pathlib import Path

import pytest
from hypothesis import settings

CORPUS = os.environ.get("BRIDGETABLE_CORPUS")

# Property tests draw fresh random examples on every local run (to go on finding bugs); the "ci" profile
# (.ci/run) draws the same examples every time, so a landing is decided by the code, not by the draw.
settings.register_profile("ci", derandomize=True, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


def pytest_configure(config: pytest.Config) -> None:
    """Refuse to test a stale compiled build: Python would run it instead of the edited source."""
    from table.compiled import stale_builds
    stale = stale_builds()
    if stale:
        pytest.exit("compiled modules older than their source (rebuild with `make setup` or "
                    "`pip install -e .`): " + ", ".join(stale), returncode=4)


@pytest.fixture(scope="session")
def corpus() -> Path:
    """The real-data folder (shared/data); tests that need it skip cleanly without it."""
    if not CORPUS or not Path(CORPUS).is_dir():
        pytest.skip("BRIDGETABLE_CORPUS not set")
    return Path(CORPUS)
