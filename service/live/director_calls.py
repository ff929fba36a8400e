"""Calls for the director from the tables (a seat's "call the director", a disputed result, "my cards differ", a
wrong board, a keyed lead the hand record contradicts): journalled club rows ``director_call`` (its number is the
call's id) and ``director_call_answer`` (with the director's ruling in words, if he gave one), replayed at
start-up, so the console's list survives a restart. A call may name its reason's ``code`` and ``law``; the list
carries the law's statement for the console."""
from __future__ import annotations

from typing import Any

from service.live.lawtext import statement
from service.store.journal import Row

MAX_KEPT = 500          # the calls the console lists (the others stay in the journal)

# The reasons a seat's "call the director" offers: code -> (the laws it is about, in both editions' numbering;
# the words the journal keeps). "other" carries the player's short note instead of a law.
REASONS: dict[str, tuple[str | None, str]] = {
    "insufficient_bid": ("27", "insufficient bid"),
    "call_out_of_rotation": ("29, 30, 31, 32", "call out of rotation"),
    "lead_out_of_turn": ("53, 54, 55, 56", "lead out of turn"),
    "revoke": ("62, 63, 64", "revoke"),
    "claim_dispute": ("68, 69, 70, 71", "claim disputed"),
    "unauthorized_information": ("16, 73", "unauthorized information (a hesitation, a remark)"),
    "misinformation": ("20, 21, 75", "a wrong or missing explanation or alert"),
    "other": (None, "other"),
}


class DirectorCalls:
    def __init__(self) -> None:
        self._calls: dict[int, dict[str, Any]] = {}

    def get(self, number: int) -> dict[str, Any] | None:
        return self._calls.get(number)

    def apply_row(self, row: Row) -> dict[str, Any] | None:
        """Take a journalled club row into the list (other kinds are not this list's)."""
        if row.kind == "director_call":
            n = row.seq                  # the club row's number: unique, given by the journal as it writes
            call: dict[str, Any] = {"id": n, "table": str(row.body["table"]), "seat": row.body.get("seat"),
                    "board": row.body.get("board"), "reason": row.body.get("reason") or "call", "at": row.at,
                    "answered": None, "code": row.body.get("code"), "law": row.body.get("law"),
                    "law_text": statement(str(row.body["law"]).split(",")[0]) if row.body.get("law") else "",
                    "ruling": None, "note": row.body.get("note")}
            if row.body.get("reason_parts"):
                call["reason_parts"] = row.body["reason_parts"]
            self._calls[n] = call
            if len(self._calls) > MAX_KEPT:
                del self._calls[self._evicted()]
            return call
        if row.kind == "director_call_answer":
            answered = self._calls.get(int(row.body["id"]))
            if answered is not None:
                answered["answered"] = row.at
                answered["ruling"] = row.body.get("ruling")
            return answered
        return None

    def _evicted(self) -> int:
        """The call the list drops: the oldest answered one; else the oldest of the table with the most calls
        listed, so that a flood from one table never pushes another table's unanswered call off the list."""
        answered = [n for n, c in self._calls.items() if c["answered"]]
        if answered:
            return min(answered)
        per_table: dict[str, int] = {}
        for c in self._calls.values():
            per_table[c["table"]] = per_table.get(c["table"], 0) + 1
        busiest = max(per_table, key=lambda t: per_table[t])
        return min(n for n, c in self._calls.items() if c["table"] == busiest)

    def listing(self, open_only: bool = False) -> list[dict[str, Any]]:
        return [dict(c) for _n, c in sorted(self._calls.items(), reverse=True) if not (open_only and c["answered"])]
