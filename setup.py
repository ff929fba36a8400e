"""Compiles the law engine's replay path with Cython when it can (everything else is in pyproject.toml).

The modules below are plain Python and stay importable as such. Compiled, a corpus replay runs about a
fifth faster with byte-identical verdicts (docs/PERFORMANCE.md, tests/test_compiled.py). Without Cython or
a C compiler, or with BRIDGETABLE_PURE=1, the build goes on and the package runs as pure Python. A compiled
module shadows its source: table/compiled.py lists the modules and finds stale builds.
``annotation_typing=False``: the annotations are documentation, not C types (a ``Seat`` is a ``str``
subclass, which Cython's typed arguments would refuse).
"""
from __future__ import annotations

import ast
import os
from pathlib import Path

from setuptools import setup


def compiled_sources() -> list[str]:
    """table/compiled.py's MODULES (read, not imported: the build runs before the package is installed)."""
    tree = ast.parse(Path(__file__).with_name("table").joinpath("compiled.py").read_text(encoding="utf-8"))
    modules = next(ast.literal_eval(n.value) for n in tree.body
                   if isinstance(n, ast.Assign) and any(getattr(t, "id", "") == "MODULES" for t in n.targets))
    return [m.replace(".", "/") + ".py" for m in modules]


def ext_modules() -> list:
    if os.environ.get("BRIDGETABLE_PURE"):         # BRIDGETABLE_PURE=1 pip install -e . : no compiling
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:
        return []
    modules = cythonize(compiled_sources(), language_level=3, quiet=True, nthreads=os.cpu_count() or 1,
                        compiler_directives={"annotation_typing": False})
    for m in modules:
        m.optional = True                          # a failed C build leaves that module in pure Python
    return modules


setup(ext_modules=ext_modules(), options={"build_ext": {"parallel": os.cpu_count() or 1}})
