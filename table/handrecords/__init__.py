"""Hand-record files: the deals of a set of boards, in the formats dealing machines and scorers use.

``read_hand_records(path)`` and ``write_hand_records(boards, path)`` choose the format from the file
name's suffix; every reader returns boards in number order and raises only :class:`HandRecordError`
(file, board, what is wrong) on a file it cannot use. Formats and what they can hold:

======  =====  =====  ====================================================================
format  read   write  numbering / markings
======  =====  =====  ====================================================================
PBN     yes    yes    explicit numbers, dealer and vulnerability
LIN     yes    yes    explicit numbers, dealer and vulnerability
CSV     yes    yes    explicit numbers, dealer and vulnerability
DUP     yes    yes    consecutive from the header's first board (1..99); Law 2 markings
DLM     yes    yes    consecutive within 1..99; Law 2 markings
BRI     yes    yes    by position from 1; Law 2 markings
DGE     yes    yes    by position from 1; Law 2 markings
BER     yes    yes    by position from 1; Law 2 markings
RZD     yes    yes    by position from 1; Law 2 markings
CDS     yes    yes    explicit numbers 1..255; Law 2 markings
BHG     yes    yes    line number; Law 2 markings
======  =====  =====  ====================================================================

A writer refuses a set its format cannot carry (a gap in the numbers of a positional format, a board
with non-standard dealer or vulnerability) rather than write a file that reads back differently.
Layouts: each module's docstring and ``docs/dealing.md``.
"""
from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Protocol

from ..texts import Text
from . import ber, bhg, bri, cds, csv, dge, dlm, dup, lin, pbn, rzd
from .base import HandRecordBoard, HandRecordError, check_set

__all__ = ["HandRecordBoard", "HandRecordError", "FORMATS", "format_for", "read_hand_records", "write_hand_records",
           "read_bytes", "to_bytes"]



class HandRecordFormat(Protocol):
    """What each format module provides."""

    @property
    def NAME(self) -> str: ...
    @property
    def SUFFIXES(self) -> tuple[str, ...]: ...
    def read(self, data: bytes, source: str) -> list[HandRecordBoard]: ...
    def write(self, boards: Sequence[HandRecordBoard], source: str) -> bytes: ...


FORMATS: dict[str, HandRecordFormat] = {m.NAME: m for m in (pbn, lin, csv, dup, dlm, bri, dge, ber, rzd, cds, bhg)}
_BY_SUFFIX = {suffix: m for m in FORMATS.values() for suffix in m.SUFFIXES}

PathLike = str | os.PathLike[str]


def format_for(path: PathLike) -> HandRecordFormat:
    """The format module for a file name (by suffix, case-insensitive)."""
    suffix = Path(path).suffix.lower()
    try:
        return _BY_SUFFIX[suffix]
    except KeyError:
        known = ", ".join(sorted(_BY_SUFFIX))
        raise HandRecordError(os.fspath(path), Text("records.unknown_format", "unknown hand-record format {suffix} "
                                                    "(known: {known})", suffix=repr(suffix or "(no suffix)"),
                                                    known=known)) from None


def read_bytes(data: bytes, fmt: str, source: str = "<data>") -> list[HandRecordBoard]:
    return FORMATS[fmt.upper()].read(data, source)


def to_bytes(boards: Iterable[HandRecordBoard], fmt: str, source: str = "<data>") -> bytes:
    return FORMATS[fmt.upper()].write(check_set(list(boards), source), source)


def read_hand_records(path: PathLike) -> list[HandRecordBoard]:
    """The boards of a hand-record file, in number order."""
    fmt = format_for(path)
    name = os.fspath(path)
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise HandRecordError(name, Text("records.cannot_read", "cannot read the file: {why}",   # the system's words
                                          why=err.strerror or err)) from err
    return fmt.read(data, name)


def write_hand_records(boards: Iterable[HandRecordBoard], path: PathLike) -> None:
    """Write ``boards`` in the format the file name says; the file is replaced only once it is complete."""
    fmt = format_for(path)
    name = os.fspath(path)
    data = fmt.write(check_set(list(boards), name), name)
    target = Path(path)
    tmp = target.with_name(f".{target.name}.tmp")
    try:
        tmp.write_bytes(data)
        tmp.replace(target)
    except OSError as err:
        raise HandRecordError(name, Text("records.cannot_write", "cannot write the file: {why}",
                                          why=err.strerror or err)) from err
