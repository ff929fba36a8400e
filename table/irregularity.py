"""Irregularities as data: what happened, which law, who may choose what, and how it was disposed of."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .texts import translatable


@dataclass(frozen=True, slots=True)
class Option:
    """One rectification the law offers: ``chooser`` is a seat, ``"declarer"``, ``"defenders"``, ``"LHO"``
    resolved to a seat where known, or ``"director"``."""
    code: str
    text: str                        # English; a texts.Text carries its key for the pages' translations
    chooser: str

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "text": self.text, "chooser": self.chooser, **translatable(self.text, "text")}


@dataclass(slots=True)
class Irregularity:
    code: str                        # an IrregularityCode (typed str so consumers' lists of codes stay list[str])
    law: str
    seat: str | None
    phase: str                       # "auction" | "play" | "claim" | "board"
    position: dict[str, Any]         # {"call": index} or {"trick": n, "card": k}
    options: list[Option] = field(default_factory=list)
    detail: str = ""
    disposition: str | None = None    # accepted_by_action, rectified:<option>, ruled:<option>, ...
    disposition_law: str | None = None

    @property
    def open(self) -> bool:
        return self.disposition is None

    def dispose(self, how: str, law: str | None = None) -> None:
        self.disposition = how
        self.disposition_law = law

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"code": self.code, "law": self.law, "seat": self.seat, "phase": self.phase,
                             **self.position}
        if self.detail:
            d["detail"] = self.detail
            d.update(translatable(self.detail, "detail"))
        if self.options:
            d["options"] = [o.to_dict() for o in self.options]
        d["disposition"] = self.disposition
        if self.disposition_law:
            d["disposition_law"] = self.disposition_law
        return d


@dataclass(frozen=True, slots=True)
class LeadPenalty:
    """A Law 26 lead penalty owed after a withdrawn call, enforced only if the offender becomes a defender:
    at the offender's partner's first lead declarer may require/forbid a related suit (1997 26A2) or forbid
    any one suit he names (1997 26B); under the 2017 Laws only prohibit a suit not in ``specified`` (26B)."""
    offender: str
    restricted: str                          # the offender's partner
    law: str                                 # "26A" or "26B"
    suits: frozenset[str] = frozenset()      # related suits (26A), letters S H D C; empty for 26B
    source_code: str = ""                    # the irregularity that withdrew the call
    call_index: int = -1
    specified: frozenset[str] = frozenset()  # 2017 26B: suits the offender specified in the legal auction
