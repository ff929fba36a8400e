"""A pushed view sent whole once, then as patches: only what changed since the audience's last version.

The results screen of a 500-table event is about 270 KB of JSON, and it moves whenever a table starts or
completes a board (a table's progress, a board's count of tables that played it): written whole to a thousand
spectators' sockets at each move, that was a quarter of a gigabyte per move, and the writes stalled the event
loop. A view is encoded in pieces, once: each top-level value, and each element of a top-level list (a table's
progress, a board's entry, a section's ranking). Two versions are compared piece by piece as JSON text (exact:
no ``1 == True`` or ``1 == 1.0`` confusion), and the patch carries the pieces that differ.

On the wire (``service/web/static/common.js``, ``viewStream``, applies them; ``docs/service.md``):

* ``{"type": T, "seq": n, T: {...}}``: the whole view, the audience's version ``n``;
* ``{"type": T + "_patch", "from": n - 1, "seq": n, "set": [op, ...]}``: version ``n`` from version ``n - 1``,
  each op ``[[key], value]`` (a top-level value replaced), ``[[key, i], value]`` (element ``i`` of a
  top-level list replaced, the list's length unchanged) or ``[[key]]`` (the key removed).

A client that holds another version than ``from`` (it missed one) reopens its stream and is greeted whole.
"""
from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from typing import Any

Pieces = dict[str, str | list[str]]


def _enc(x: Any) -> str:
    return json.dumps(x, separators=(",", ":"), default=str)


def pieces(view: Mapping[str, Any]) -> Pieces:
    """``view`` encoded in pieces: a top-level list element by element, any other value whole."""
    return {k: [_enc(x) for x in v] if isinstance(v, list) else _enc(v) for k, v in view.items()}


def _text(piece: str | list[str]) -> str:
    return "[" + ",".join(piece) + "]" if isinstance(piece, list) else piece


def whole(p: Pieces) -> str:
    """The JSON text of the view ``p`` was made of (the same text ``json.dumps`` gives, compact)."""
    return "{" + ",".join(f"{_enc(k)}:{_text(v)}" for k, v in p.items()) + "}"


def changed(old: Pieces, new: Pieces, ignore: Collection[str] = ()) -> bool:
    """Whether ``new`` differs from ``old`` in anything but the ``ignore`` keys."""
    return any(k not in ignore and old.get(k) != v for k, v in new.items()) or \
        any(k not in new and k not in ignore for k in old)


def ops(old: Pieces, new: Pieces) -> list[str]:
    """The ops (JSON texts) that turn ``old``'s view into ``new``'s."""
    out: list[str] = []
    for k, v in new.items():
        o = old.get(k)
        if o == v:
            continue
        key = _enc(k)
        if isinstance(o, list) and isinstance(v, list) and len(o) == len(v):
            out += [f"[[{key},{i}],{b}]" for i, (a, b) in enumerate(zip(o, v)) if a != b]
        else:
            out.append(f"[[{key}],{_text(v)}]")
    out += [f"[[{_enc(k)}]]" for k in old if k not in new]
    return out
