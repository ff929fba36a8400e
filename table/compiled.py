"""Which of the law engine's modules run compiled (setup.py builds them with Cython), and which compiled
builds are older than their Python source.

Python imports a compiled module in preference to the ``.py`` beside it, so after an edit a stale build
would run instead of the edited code until the package is rebuilt (``make setup`` or ``pip install -e .``).
"""
from __future__ import annotations

import importlib.machinery
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent
# what setup.py compiles (it reads this list)
MODULES = ("table.cards", "table.tricks", "table.events", "table.scoring", "table.auction", "table.play",
           "table.machine", "table.replay", "table.formats.pbn")


def _builds(module: str) -> tuple[Path, list[Path]]:
    source = PACKAGE.joinpath(*module.split(".")).with_suffix(".py")
    builds = [source.with_name(source.stem + suffix) for suffix in importlib.machinery.EXTENSION_SUFFIXES]
    return source, [b for b in builds if b.exists()]


def compiled_modules() -> list[str]:
    """The modules that have a compiled build beside their source."""
    return [m for m in MODULES if _builds(m)[1]]


def stale_builds() -> list[str]:
    """Compiled builds older than their source: rebuild before trusting a run."""
    stale = []
    for m in MODULES:
        source, builds = _builds(m)
        stale += [str(b) for b in builds if source.exists() and b.stat().st_mtime < source.stat().st_mtime]
    return stale
