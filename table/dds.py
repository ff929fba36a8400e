"""One double-dummy solve at a time in a process, and the solver without endplay's charts.

endplay's DDS (Bo Haglund's solver) keeps its search state per solver thread, and endplay's calls all use the
same one: two solves from two Python threads at once corrupt each other and crash the process (seen with two
services analysing their hand records in one test process). Every caller of ``endplay.dds`` holds this lock; the
solver releases the GIL while it runs, so the rest of the program goes on meanwhile.
"""
from __future__ import annotations

import importlib.util
import sys
import threading

SOLVER_LOCK = threading.Lock()


def solver_only() -> None:
    """Lets ``endplay.dds`` and ``endplay.types`` load without endplay's package ``__init__``, which imports its
    dealer scripts and with them matplotlib's pyplot: 0.7 CPU s and tens of MB in every process at its first
    analysis (each ``bridgetable serve``), for charts nothing here draws. The package's submodules load as usual
    (``from endplay.parsers import pbn`` too); only the names ``endplay/__init__.py`` re-exports are absent, and
    nothing here uses them. No effect once endplay is imported. Call it before importing from endplay."""
    if "endplay" in sys.modules:
        return
    spec = importlib.util.find_spec("endplay")
    if spec is None or spec.loader is None:
        return
    sys.modules["endplay"] = importlib.util.module_from_spec(spec)     # the package, its __init__ not run
