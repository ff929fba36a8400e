import os
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
