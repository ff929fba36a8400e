"""A pushed view's patches (service/live/patches.py): the pieces make the same text as the view encoded whole,
and the ops, applied as the pages apply them (service/web/static/common.js, viewStream), turn one version into
the next exactly."""
from __future__ import annotations

import copy
import json
from typing import Any

from service.live import patches


def apply_patch(view: dict[str, Any], ops: list[Any]) -> None:
    """What ``viewStream`` does with a patch's ``set`` (decoded ops: ``[path, value]`` or ``[path]``)."""
    for where, *value in ops:
        parent: Any = view
        for k in where[:-1]:
            parent = parent[k]
        if value:
            parent[where[-1]] = value[0]
        else:
            del parent[where[-1]]


def apply(view: dict[str, Any], ops: list[str]) -> dict[str, Any]:
    """The next version from ``view`` and a patch's encoded ops, ``view`` untouched."""
    out = copy.deepcopy(view)
    apply_patch(out, [json.loads(op) for op in ops])
    return out


OLD: dict[str, Any] = {
    "event": {"name": "Club pairs", "sections": [{"id": "A"}]}, "view": "public", "revision": 7,
    "boards": [{"board": 1, "visible": False, "played": 1}, {"board": 2, "visible": False, "played": 0}],
    "progress": [{"table": "1", "board": 1, "done": []}, {"table": "2", "board": None, "done": []}],
    "rankings": [{"section": "A", "rows": [{"place": "1", "score": 0.0}]}],
    "finished": 1,
}


def test_the_pieces_make_the_views_text() -> None:
    assert patches.whole(patches.pieces(OLD)) == json.dumps(OLD, separators=(",", ":"))
    assert patches.whole(patches.pieces({})) == "{}"


def test_a_patch_turns_one_version_into_the_next() -> None:
    new = copy.deepcopy(OLD)
    new["revision"] = 9
    new["progress"][1]["board"] = 2                                   # an element of a list
    new["boards"].append({"board": 3, "visible": False, "played": 0})  # a list that grew: whole
    new["event"]["name"] = "Club pairs, evening"                       # a value that is not a list: whole
    new["finished"] = True                                             # 1 -> true is a change (JSON's, JS's)
    del new["rankings"]                                                # a key removed
    new["alerts"] = []                                                 # a key added
    old_p, new_p = patches.pieces(OLD), patches.pieces(new)
    ops = patches.ops(old_p, new_p)
    assert apply(OLD, ops) == new and json.dumps(apply(OLD, ops)["finished"]) == "true"
    assert '[["progress",1],{"table":"2","board":2,"done":[]}]' in ops
    assert not any(op.startswith('[["progress",0]') for op in ops)     # what did not change is not sent
    assert patches.changed(old_p, new_p)


def test_the_revision_alone_is_no_change() -> None:
    new = dict(OLD, revision=8)
    assert not patches.changed(patches.pieces(OLD), patches.pieces(new), ignore=("revision",))
    assert patches.changed(patches.pieces(OLD), patches.pieces(new))
    assert patches.ops(patches.pieces(OLD), patches.pieces(OLD)) == []
