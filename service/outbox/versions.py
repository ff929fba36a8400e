"""The versions of the board results the outbox sends: which journal row makes a new one, and its key.

A version is made when a board completes (engine state ``board_complete``), when it is left unfinished for the
next board (the result is frozen), when a row after completion changes the result (a late ruling), and by each
Law 12 adjustment (or its cancellation). A result keyed at a scoring-only table makes none until the
opponents confirm it (``BoardRecord.awaiting_confirmation``); the confirmation row then makes it.
A version's idempotency key is ``<source>:<table>:<board>:<seq>``: the
journal ``seq`` of the row that produced it, and the database's ``source`` id (a new database never repeats an
old one's keys). A new version of a result carries ``supersedes`` (the previous key) and a higher ``version``.

At start-up, after the club has replayed its journal, every table's results are derived again and compared
with the last version stored (``rederive``); live, ``on_row`` applies the same rules to each committed row.
"""
from __future__ import annotations

from typing import Any

from service.live.runtime import BoardRecord, TableRuntime, summarize
from service.outbox.store import LastVersion, Message, canonical
from service.outbox.targets import board_lin
from service.store.journal import Row


def result_content(res: dict[str, Any] | None, adj: dict[str, Any] | None) -> dict[str, Any]:
    """The fields of a board's result (``runtime.summarize``) and adjustment whose change makes a new version."""
    res = res or {}
    score = adj["score_ns"] if adj and adj.get("kind") == "assigned" else res.get("score_ns")
    return {"contract": res.get("contract"), "declarer": res.get("declarer"), "tricks": res.get("tricks"),
            "score_ns": score, "table_score_ns": res.get("score_ns"), "status": res.get("status"),
            "complete": bool(res.get("complete")), "adjustment": adj}


def _latest_version(rt: TableRuntime, rec: BoardRecord,
                    freeze: Row | None) -> tuple[dict[str, Any], int, str] | None:
    """(content, seq, at) of the latest version ``on_row`` makes of ``rec``'s result, from its journal rows
    replayed on a scratch table; ``freeze`` is the row that started the next board. None: no version yet."""
    scratch = TableRuntime(rt.id, rt.regulation)
    frozen: dict[str, Any] | None = None
    latest: tuple[dict[str, Any], int, str] | None = None
    try:
        for row in sorted([*rec.rows, *([freeze] if freeze is not None else [])], key=lambda r: r.seq):
            if row is freeze:
                frozen = summarize(scratch.table)
            else:
                scratch.apply_row(row)
                if not (row.kind in ("adjustment", "confirmation") or row.kind == "event" and frozen is None
                        and scratch.table.state == "board_complete"):
                    continue
            srec = scratch.boards.get(rec.number)
            if srec is not None and srec.awaiting_confirmation:     # a keyed result counts once confirmed
                continue
            content = result_content(frozen or summarize(scratch.table), srec.adjustment if srec else None)
            if latest is None or content != latest[0]:
                latest = (content, row.seq, row.at)
    finally:
        scratch.close()
    return latest


class ResultVersions:
    """The latest version of each (table, board) result, and the new versions rows make."""

    def __init__(self, source: str, last: dict[tuple[str, int], LastVersion]) -> None:
        self.source = source
        self._last = last
        self._current: dict[str, int | None] = {}       # table -> board in play at the last row seen
        self.messages_made = 0

    def _derive(self, rt: TableRuntime, rec: BoardRecord, content: dict[str, Any], row_seq: int,
                at: str) -> Message | None:
        """A new version of ``rec``'s result made at journal row ``row_seq``, unless it is the version stored."""
        number = rec.number
        cj = canonical(content)
        last = self._last.get((rt.id, number))
        if last is not None and last.content == cj:
            return None
        key = f"{self.source}:{rt.id}:{number}:{row_seq}"
        if last is not None and last.key == key:
            return None
        version = last.version + 1 if last else 1
        rows = [r for r in rec.rows if r.seq <= row_seq]
        payload = {"schema": "bridgetable.result/1", "source": self.source, "key": key, "version": version,
                   "supersedes": last.key if last else None, "table": rt.id, "board": number,
                   "dealer": rec.dealer, "vulnerable": rec.vulnerable, **content,
                   "lead": next((r.body.get("card") for r in rows
                                 if r.kind == "event" and r.body.get("type") == "card"), None),
                   "at": at, "seq": row_seq}
        lin = board_lin(payload, [r.body for r in rows if r.kind == "event"])
        self._last[(rt.id, number)] = LastVersion(key, version, cj)
        self.messages_made += 1
        return Message(key, rt.id, number, version, row_seq, payload["supersedes"], cj, payload, lin,
                       number in rt.released)

    def rederive(self, tables: list[TableRuntime]) -> list[Message]:
        """Every table's results as the replayed journal has them, where they differ from what is stored.

        The common case costs a comparison: a board whose result is the version stored. Otherwise (an insert
        lost to a crash, or an outbox added to an existing journal) the board's rows are replayed on a scratch
        table under the rules of ``on_row``, to find the row that made its latest version: the key is then the
        one the live path made, or would have made."""
        out: list[Message] = []
        for rt in tables:
            recs = sorted((r for r in rt.boards.values() if r.rows), key=lambda r: r.rows[0].seq)
            for i, rec in enumerate(recs):
                last = self._last.get((rt.id, rec.number))
                now = canonical(result_content(rt.result(rec.number), rec.adjustment))
                if last is not None and last.content == now:
                    continue
                later = [r for r in recs[i + 1:] if not r.not_played]     # a board not played starts nothing
                freeze = later[0].rows[0] if rec is not rt.current and not rec.not_played and later else None
                latest = _latest_version(rt, rec, freeze)
                if latest is not None:
                    msg = self._derive(rt, rec, *latest)
                    if msg is not None:
                        out.append(msg)
            self._current[rt.id] = rt.board_number
        return out

    def on_row(self, rt: TableRuntime, row: Row) -> list[Message]:
        """The new versions a journalled row of ``rt`` makes."""
        if row.kind in ("adjustment", "confirmation"):
            numbers = [int(row.body["board"])]
        elif row.kind != "event":
            return []
        elif row.body.get("type") == "board":
            prev = self._current.get(rt.id)
            self._current[rt.id] = rt.board_number
            numbers = [prev] if prev is not None and prev != rt.board_number else []
        elif rt.table.state == "board_complete" and rt.board_number is not None:
            numbers = [rt.board_number]
        else:
            return []
        msgs = []
        for n in numbers:
            rec = rt.boards.get(n)
            if rec is not None and not rec.awaiting_confirmation:
                m = self._derive(rt, rec, result_content(rt.result(n), rec.adjustment), row.seq, row.at)
                if m is not None:
                    msgs.append(m)
        return msgs
