"""DLM: the Dealer4 dealing machine's board file (``.dlm``), an INI-like text file.

Layout: a ``[Document]`` line, then ``key=value`` lines. ``From board`` / ``To board`` give the range
(1..99); ``Status`` is ``Show`` or ``Hide``; ``Checksum`` is the number of boards, XOR 1 when
``Status=Show``; ``Crypto key`` is 0 for a plain file. Each board 1..99 has ``Duplicates NN=0`` and
``Board NN=`` followed by 26 letters and a 3-digit checksum. Letter *i* (``a``..``p``) is
``97 + 4·owner(card 2i) + owner(card 2i+1)``, owners 0..3 = N, E, S, W, cards in ``ALL_CARDS`` order;
the checksum is the board number XOR every letter's code. Boards outside the range are written as the
sorted deal (N holds the first 13 cards, and so on), as Dealer4 itself expects all 99 lines.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from functools import reduce

from ..cards import SEATS, Seat
from ..texts import Text
from .base import HandRecordBoard, HandRecordError, deal_from_owners, owners_of, require_positional, standard

NAME = "DLM"
SUFFIXES = (".dlm",)
MAX_BOARD = 99
_SORTED = [SEATS[k // 13] for k in range(52)]
_DIGITS = re.compile(r"[0-9]{1,5}")              # ASCII only: str.isdigit would take "²"


def _letters(owners: Sequence[Seat]) -> str:
    idx = {s: i for i, s in enumerate(SEATS)}
    return "".join(chr(97 + 4 * idx[owners[2 * i]] + idx[owners[2 * i + 1]]) for i in range(26))


def _checksum(board: int, letters: str) -> int:
    return reduce(lambda acc, ch: acc ^ ord(ch), letters, board)


def read(data: bytes, source: str) -> list[HandRecordBoard]:
    text = data.decode("latin-1")
    lines = [ln.strip() for ln in text.replace("\r", "\n").split("\n") if ln.strip()]
    if not lines or lines[0] != "[Document]":
        raise HandRecordError(source, Text("records.dlm_document", "not a DLM file: the first line is not [Document]"))
    fields: dict[str, str] = {}
    for ln in lines[1:]:
        key, sep, text_value = ln.partition("=")
        if not sep:
            raise HandRecordError(source, Text("records.dlm_line", "line {line} is not key=value", line=repr(ln[:40])))
        fields[key.strip()] = text_value.strip()
    try:
        first, last = int(fields["From board"]), int(fields["To board"])
    except KeyError as err:
        raise HandRecordError(source, Text("records.dlm_lacks", "the header lacks {field}",
                                           field=repr(err.args[0]))) from None
    except ValueError:
        raise HandRecordError(source, Text("records.dlm_numbers", "From board / To board are not numbers")) from None
    if not 1 <= first <= last <= MAX_BOARD:
        raise HandRecordError(source, Text("records.dlm_range", "board range {first}..{last} is not within 1..{limit}",
                                           first=first, last=last, limit=MAX_BOARD))
    if fields.get("Crypto key", "0").strip() not in ("", "0"):
        raise HandRecordError(source, Text("records.dlm_encrypted", "the file is encrypted (Crypto key is not 0); "
                                           "export it unencrypted"))
    expected = (last - first + 1) ^ (1 if fields.get("Status", "").lower() == "show" else 0)
    if fields.get("Checksum") is not None and fields["Checksum"] != str(expected):
        raise HandRecordError(source, Text("records.dlm_header_checksum", "header checksum {found} should be "
                                           "{expected}: damaged file", found=repr(fields["Checksum"]),
                                           expected=expected))
    boards = []
    for n in range(first, last + 1):
        value = fields.get(f"Board {n:02d}")
        if value is None:
            raise HandRecordError(source, Text("records.dlm_missing", "missing from the file"), n)
        letters, digits = value[:26], value[26:]
        if len(letters) != 26 or any(not "a" <= ch <= "p" for ch in letters) or not _DIGITS.fullmatch(digits):
            raise HandRecordError(source, Text("records.dlm_letters", "{value} is not 26 letters a-p and a checksum",
                                               value=repr(value)), n)
        if int(digits) != _checksum(n, letters):
            raise HandRecordError(source, Text("records.dlm_checksum", "checksum {found} should be {expected}: damaged "
                                               "line", found=digits, expected=f"{_checksum(n, letters):03d}"), n)
        owners = []
        for ch in letters:
            v = ord(ch) - 97
            owners += [SEATS[v // 4], SEATS[v % 4]]
        boards.append(standard(n, deal_from_owners(owners, source, n)))
    return boards


def write(boards: Sequence[HandRecordBoard], source: str) -> bytes:
    require_positional(boards, NAME, source, first=None, limit=MAX_BOARD)
    by_number = {b.board: b for b in boards}
    first, last = boards[0].board, boards[-1].board
    lines = ["[Document]", "Headline=bridgetable", "Status=Show", "Duplicates=1", f"From board={first}",
             f"To board={last}", "Next board to duplimate=0", "PrintOuts=0", "Crypto key=0",
             f"Checksum={len(boards) ^ 1}"]
    for n in range(1, MAX_BOARD + 1):
        b = by_number.get(n)
        letters = _letters(owners_of(b.deal) if b is not None else _SORTED)
        lines += [f"Duplicates {n:02d}=0", f"Board {n:02d}={letters}{_checksum(n, letters):03d}"]
    return ("\r\n".join(lines) + "\r\n").encode("ascii")
