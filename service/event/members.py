"""The club's member list, read from the CSV a director imports (``POST /api/players``), and how a player entered
at a table is shown.

The file is UTF-8 (a byte-order mark is dropped), its fields separated by commas, semicolons or tabs (the one the
first line uses most). A header row names the columns (``member``/``number``/``id``/``no`` and ``name``, in
English or Chinese, in any order, other columns ignored); without one (the first field then has digits), every
row is two plain columns: the member number, then the name. A bad row is refused with its line number; nothing
is imported then.
"""
from __future__ import annotations

import csv
import io
import re

from table.texts import Text

MAX_CSV_CHARS = 500_000
MAX_MEMBERS = 5000
MAX_NAME = 80
NUMBER = re.compile(r"^[A-Za-z0-9._/-]{1,20}$")
NUMBER_HEADERS = ("member", "number", "id", "no", "no.", "member no", "member number", "membership", "nr",
                  "會員", "會員編號", "會員號碼", "編號", "号码", "會號")
NAME_HEADERS = ("name", "player", "full name", "姓名", "名字", "名稱", "選手")


class MemberListError(ValueError):
    """A member list that cannot be imported (the message names the line)."""


def _delimiter(first_line: str) -> str:
    counts = {d: first_line.count(d) for d in (",", ";", "\t")}
    best = max(counts, key=lambda d: counts[d])
    return best if counts[best] else ","


def _has_digit(cell: str) -> bool:
    """A first row without a header starts with a member number, which has digits (a header word has none)."""
    return any(ch.isdigit() for ch in cell)


def _column(header: list[str], names: tuple[str, ...]) -> int | None:
    cells = [h.strip().lower() for h in header]
    for i, cell in enumerate(cells):
        if cell in names:
            return i
    for i, cell in enumerate(cells):            # "Member number", "Player name", "會員編號 (CBA)"
        if any(n in cell for n in names if len(n) > 2):
            return i
    return None


def parse_members(text: str) -> dict[str, str]:
    """Member number -> name, in the file's order (``MemberListError`` with the line for a bad row)."""
    if len(text) > MAX_CSV_CHARS:
        raise MemberListError(Text("members.too_long", "the member list is longer than {count} characters",
                                   count=MAX_CSV_CHARS))
    text = text.lstrip("\ufeff")
    lines = text.splitlines()
    first = next((ln for ln in lines if ln.strip()), None)
    if first is None:
        raise MemberListError(Text("members.empty", "the member list is empty"))
    rows = list(csv.reader(io.StringIO(text), delimiter=_delimiter(first)))
    numbered = [(i + 1, [c.strip() for c in row]) for i, row in enumerate(rows) if any(c.strip() for c in row)]
    line, header = numbered[0]
    num_col, name_col = _column(header, NUMBER_HEADERS), _column(header, NAME_HEADERS)
    if num_col is not None and name_col is not None and num_col != name_col:
        body = numbered[1:]
    elif num_col is None and name_col is None and not (NUMBER.match(header[0]) and _has_digit(header[0])):
        raise MemberListError(Text("members.header", "line {line}: the header needs a member-number column (member, "
                                   "number or id) and a name column (name)", line=line))
    elif num_col is not None or name_col is not None:
        raise MemberListError(Text("members.header_both", "line {line}: the header needs both a member-number column "
                                   "(member, number or id) and a name column (name)", line=line))
    else:
        num_col, name_col, body = 0, 1, numbered
    out: dict[str, str] = {}
    for line, row in body:
        if max(num_col, name_col) >= len(row):
            raise MemberListError(Text("members.fields", "line {line}: expected a member number and a name, got "
                                       "{count} field(s)", line=line, count=len(row)))
        number, name = row[num_col], " ".join(row[name_col].split())
        if not NUMBER.match(number):
            raise MemberListError(Text("members.number", "line {line}: '{number}' is not a member number (1-20 "
                                       "letters, digits, . _ / -)", line=line, number=number))
        if not name:
            raise MemberListError(Text("members.no_name", "line {line}: member {number} has no name", line=line,
                                       number=number))
        if len(name) > MAX_NAME:
            raise MemberListError(Text("members.name_long", "line {line}: the name is longer than {count} characters",
                                       line=line, count=MAX_NAME))
        if number in out:
            raise MemberListError(Text("members.twice", "line {line}: member number {number} is given twice",
                                       line=line, number=number))
        out[number] = name
        if len(out) > MAX_MEMBERS:
            raise MemberListError(Text("members.too_many", "line {line}: more than {count} members", line=line,
                                       count=MAX_MEMBERS))
    if not out:
        raise MemberListError(Text("members.none", "the member list has a header but no members"))
    return out


def player_name(value: str, members: dict[str, str]) -> str:
    """What a seat entered, as shown: a member number from the list becomes ``"Name (number)"``; anything else
    is a free name (``ValueError`` when empty or too long)."""
    v = " ".join(str(value).split())
    if not v:
        raise ValueError(Text("members.name_empty", "a player's name or member number is empty"))
    if len(v) > MAX_NAME:
        raise ValueError(Text("members.player_long", "a player's name is longer than {count} characters",
                                count=MAX_NAME))
    if v in members:
        return f"{members[v]} ({v})"
    return v
