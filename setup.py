"""Compiles the law engine's replay path with Cython when it can (everything else is in pyproject.toml).

The modules below are plain Python and stay importable as such. Compiled, a corpus replay runs about a
fifth faster with byte-identical verdicts (docs/PERFORMANCE.md, tests/test_compiled.py). Without Cython or
a C compiler, or with BRIDGETABLE_PURE=1, the build goes on and the package runs as pure Python. A compiled
module shadows its source: table/compiled.py lists the modules and finds stale builds.
``annotation_typing=False``: the annotations are documentation, not C types (a ``Seat`` is a ``str``
subclass, which Cython's typed arguments would refuse).
"""
from __future__ import annotations

import os

from setuptools import setup

COMPILED = [
    "table/cards.py", "table/tricks.py", "table/events.py", "table/scoring.py", "table/auction.py",
    "table/play.py", "table/machine.py", "table/replay.py", "table/formats/pbn.py",
]


def ext_modules() -> list:
    if os.environ.get("BRIDGETABLE_PURE"):         # BRIDGETABLE_PURE=1 pip install -e . : no compiling
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:
        return []
    modules = cythonize(COMPILED, language_level=3, quiet=True, nthreads=os.cpu_count() or 1,
                        compiler_directives={"annotation_typing": False})
    for m in modules:
        m.optional = True                          # a failed C build leaves that module in pure Python
    return modules


setup(ext_modules=ext_modules(), options={"build_ext": {"parallel": os.cpu_count() or 1}})
