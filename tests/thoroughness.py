"""How many times the long repeated tests repeat. ``make test`` is the developer's loop: a seeded or property test
there draws fewer of its examples, seeds or sets (every assertion and every path still runs); ``.ci/run`` sets
``BRIDGETABLE_SLOW=1`` and draws the full counts, as it runs the other slow runs (issue 22: the slow runs are
CI's). A test that repeats names both counts at its call, so the two runs are read off the test itself."""
from __future__ import annotations

import os

SLOW = bool(os.environ.get("BRIDGETABLE_SLOW"))


def runs(full: int, quick: int) -> int:
    """``full`` under ``BRIDGETABLE_SLOW`` (CI), ``quick`` in ``make test``."""
    return full if SLOW else quick
