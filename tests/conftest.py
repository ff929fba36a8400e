import os
from pathlib import Path

import pytest

CORPUS = os.environ.get("BRIDGETABLE_CORPUS")


@pytest.fixture(scope="session")
def corpus() -> Path:
    """The real-data folder (shared/data); tests that need it skip cleanly without it."""
    if not CORPUS or not Path(CORPUS).is_dir():
        pytest.skip("BRIDGETABLE_CORPUS not set")
    return Path(CORPUS)
