"""The law engine's compiled build (setup.py, Cython) is the same engine as its Python source.

A child process replays the same files twice: once importing ``table`` as usual (the compiled modules where
they were built), once with extension modules under ``table/`` hidden from the import system, so the
``.py`` sources run. The verdicts must be identical, byte for byte.
"""
from __future__ import annotations

import importlib.machinery
import json
import subprocess
import sys
from pathlib import Path

import pytest

from table.compiled import MODULES, PACKAGE, compiled_modules

REPLAY = r'''
import importlib.machinery as m, json, sys
root, pure, paths = sys.argv[1], sys.argv[2] == "pure", sys.argv[3:]
if pure:                                   # the table package's own directories load sources only
    sources = m.FileFinder.path_hook((m.SourceFileLoader, m.SOURCE_SUFFIXES),
                                     (m.SourcelessFileLoader, m.BYTECODE_SUFFIXES))
    normal = sys.path_hooks[:]
    def hook(path):
        if path.startswith(root + "/table"):
            return sources(path)
        for h in normal:
            try:
                return h(path)
            except ImportError:
                pass
        raise ImportError(path)
    sys.path_hooks.insert(0, hook)
    sys.path_importer_cache.clear()
from table.replay import replay_paths
import table.play
print(json.dumps({"play": table.play.__file__}))
for v in replay_paths(paths):
    print(json.dumps(v, sort_keys=True))
'''


def _replay(paths: list[str], pure: bool) -> tuple[str, list[str]]:
    out = subprocess.run([sys.executable, "-c", REPLAY, str(PACKAGE), "pure" if pure else "built", *paths],
                         capture_output=True, text=True, check=True, cwd=PACKAGE)
    lines = out.stdout.splitlines()
    return json.loads(lines[0])["play"], lines[1:]


def test_the_build_compiled_every_listed_module() -> None:
    """setup.py reads table/compiled.py's list: a build compiles all of it or (no compiler) none."""
    built = compiled_modules()
    assert built in ([], list(MODULES))


def _sample(corpus: Path | None) -> list[str]:
    paths = [str(PACKAGE / "bridgetable" / "examples" / "irregular.jsonl")]
    if corpus is not None:
        pbn = sorted(f for f in (corpus / "pbn-corpus").rglob("*") if f.suffix.lower() == ".pbn")
        paths += [str(f) for f in pbn[::40]]
    return paths


def _same_verdicts(paths: list[str]) -> int:
    if not compiled_modules():
        pytest.skip("no compiled build here (no C compiler, or BRIDGETABLE_PURE): nothing to compare")
    built_file, built = _replay(paths, pure=False)
    pure_file, pure = _replay(paths, pure=True)
    assert built_file.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))
    assert pure_file.endswith(".py")
    assert len(built) == len(pure) > 0
    for b, p in zip(built, pure):
        assert b == p
    return len(built)


def test_the_compiled_engine_gives_the_verdicts_of_the_source_on_the_example() -> None:
    assert _same_verdicts(_sample(None)) > 0


@pytest.mark.corpus
def test_the_compiled_engine_gives_the_verdicts_of_the_source_on_corpus_files(corpus: Path) -> None:
    assert _same_verdicts(_sample(corpus)) > 1000
