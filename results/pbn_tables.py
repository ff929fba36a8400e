"""PBN 2.1 table sections (§5: ScoreTable, TotalScoreTable, OptimumResultTable, any ``...Table``):
read them with their games' tags, and write them in export format.

The game reader in ``table.formats.pbn`` drops table sections (it reads auctions and play); this one
keeps only tags and tables, which is what results need. Per PBN 2.1 §5.2:

- the tag value lists the columns, ``;``-separated; a column is ``[+|-]Name[\\width[L|R]]`` (``+``
  descending, ``-`` ascending order; minimum width and alignment for export);
- table elements are section tokens or ``"string tokens"``; ``?`` is unknown, ``-`` irrelevant, and a
  leading ``^`` marks an artificial score value (:func:`cell` splits it off);
- in import format rows need not be one per line, so rows are cut from the token stream by the
  number of columns; a table ends at the next tag or at the blank line that ends the game.

``#`` takes a tag's value from the previous game and ``##v`` sets a value for this and later games
(PBN 2.1 §4.8), as real files use them. Comments (``{}``, ``;`` to end of line) and ``%`` escape
lines are skipped.
"""
from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import IO, Any

from .errors import ScoreTableError

__all__ = ["Column", "PbnTable", "TableGame", "read_tables", "parse_columns", "cell", "format_table", "quote"]


@dataclass(frozen=True)
class Column:
    name: str
    width: int | None = None
    align: str | None = None          # "L" or "R"
    order: str | None = None          # "+" descending, "-" ascending

    @property
    def spec(self) -> str:
        s = (self.order or "") + self.name
        if self.width is not None:
            s += f"\\{self.width}{self.align or ''}"
        return s


_COL_RE = re.compile(r"\s*([+-]?)([^\\;]+?)\s*(?:\\(\d+)([LR]?))?\s*")


def parse_columns(value: str) -> list[Column]:
    cols = []
    for part in value.split(";"):
        m = _COL_RE.fullmatch(part)
        if not m or not m.group(2):
            raise ScoreTableError(f"bad column {part!r} in {value!r}")
        cols.append(Column(m.group(2), int(m.group(3)) if m.group(3) else None, m.group(4) or None, m.group(1) or None))
    return cols


@dataclass
class PbnTable:
    name: str
    columns: list[Column]
    rows: list[list[str]] = field(default_factory=list)

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.columns]

    def dicts(self) -> list[dict[str, str]]:
        names = self.names
        return [dict(zip(names, r)) for r in self.rows]

    def expanded(self) -> list[dict[str, str]]:
        """Rows repeated ``Multiplicity`` times (1 when there is no such column)."""
        out = []
        for d in self.dicts():
            m = d.get("Multiplicity", "1")
            out += [d] * (int(m) if m.isascii() and m.isdigit() else 1)    # not "²", which int() refuses
        return out


@dataclass
class TableGame:
    tags: dict[str, str]
    tables: dict[str, PbnTable]
    line: int


def cell(text: str) -> tuple[str | None, bool]:
    """A table element -> (value or ``None`` for ``?``/``-``, artificial). ``"^60"`` -> ("60", True)."""
    t = text.strip()
    art = t.startswith("^")
    if art:
        t = t[1:]
    if t in ("?", "-", ""):
        return None, art
    return t, art


def quote(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


_TOKEN_RE = re.compile(r'"((?:[^"\\]|\\.)*)"|(\S+)')
_TAG_RE = re.compile(r'\[\s*([A-Za-z0-9_]+)\s*"((?:[^"\\]|\\.)*)"\s*\]')


def _unescape(v: str) -> str:
    return re.sub(r'\\([\\"])', r"\1", v)


def _strip_comments(text: str) -> str:
    """Blank out ``{...}`` and ``;...`` comments (not inside strings), keeping line numbers."""
    out = []
    i, n = 0, len(text)
    in_str = False
    while i < n:
        c = text[i]
        if in_str:
            out.append(c)
            if c == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 2
                continue
            if c == '"':
                in_str = False
            i += 1
            continue
        if c == '"':
            in_str = True
            out.append(c)
        elif c == "{":
            j = text.find("}", i)
            j = n if j < 0 else j + 1
            # \x01 keeps a comment-only line from reading as the blank line that ends a game
            out.append("\x01" + "".join(ch if ch == "\n" else " " for ch in text[i + 1:j]))
            i = j
            continue
        elif c == ";":
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append("\x01" + " " * (j - i - 1))
            i = j
            continue
        else:
            out.append(c)
        i += 1
    return "".join(out)


def _load(src: str | os.PathLike[str] | IO[Any]) -> str:
    if isinstance(src, os.PathLike) or isinstance(src, str) and "\n" not in src and os.path.exists(src):
        with open(src, "rb") as f:
            data = f.read()
    elif isinstance(src, str):
        return src
    else:
        data = src.read()
        if isinstance(data, str):
            return data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def read_tables(src: str | os.PathLike[str] | IO[Any]) -> list[TableGame]:
    """Every game of a PBN file (a path, a stream, or the text itself) with its tags and tables."""
    text = _load(src).lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    text = "\n".join("" if ln.startswith("%") else ln for ln in text.split("\n"))
    text = _strip_comments(text)
    games: list[TableGame] = []
    last: dict[str, str] = {}
    sticky: dict[str, str] = {}
    cur: TableGame | None = None
    table: PbnTable | None = None
    pending: list[str] = []

    def close_table() -> None:
        nonlocal table, pending
        if table is not None:
            k = len(table.columns)
            if len(pending) % k:
                raise ScoreTableError(f"line {cur.line if cur else '?'}: {table.name} has {len(pending)} elements, "
                                      f"not a multiple of its {k} columns")
            table.rows += [pending[i:i + k] for i in range(0, len(pending), k)]
        table, pending = None, []

    def close_game() -> None:
        nonlocal cur
        close_table()
        if cur is not None:
            for k, v in sticky.items():
                cur.tags.setdefault(k, v)
            last.update(cur.tags)
            games.append(cur)
        cur = None

    for lineno, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            close_game()
            continue
        line = line.replace("\x01", " ")
        pos = 0
        for m in _TAG_RE.finditer(line):
            if table is not None:
                pending += _tokens(line[pos:m.start()])
            name, value = m.group(1), _unescape(m.group(2))
            close_table()
            if cur is not None and name in ("Event", "Board") and name in cur.tags:
                close_game()                     # a repeated Event/Board tag starts the next game
            if cur is None:
                cur = TableGame({}, {}, lineno)
            if value == "#":
                value = last.get(name, "")
            elif value.startswith("##"):
                value = sticky[name] = value[2:]
            elif name in sticky:
                sticky[name] = value
            if name.endswith("Table"):
                table = PbnTable(name, parse_columns(value))
                cur.tables[name] = table
            else:
                cur.tags[name] = value
            pos = m.end()
        rest = line[pos:]
        if table is not None:
            pending += _tokens(rest)
    close_game()
    return games


def _tokens(s: str) -> list[str]:
    return [_unescape(m.group(1)) if m.group(1) is not None else m.group(2) for m in _TOKEN_RE.finditer(s)]


def format_table(name: str, columns: list[Column], rows: Iterable[Iterable[str]]) -> str:
    """A table section in export format: the tag, then one row per line, elements padded to each
    column's minimum width (left or right aligned), separated by one space; string tokens quoted
    when they hold a space or are empty."""
    # the column spec goes in as written: "\\3R" is text in a tag value, as real files write it
    out = [f'[{name} "{";".join(c.spec for c in columns)}"]']
    for row in rows:
        cells = []
        for c, v in zip(columns, row):
            v = quote(v) if (not v or any(ch.isspace() or ch in ';{}"' for ch in v)) else v
            if c.width:
                v = v.ljust(c.width) if c.align == "L" else v.rjust(c.width)
            cells.append(v)
        out.append(" ".join(cells).rstrip())
    return "\n".join(out)
