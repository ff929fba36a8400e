"""The live-upload outbox piece by piece: signatures, the retry policy, the LIN file target, and the journal ->
outbox derivation (live and at start-up: the same keys, nothing stored twice, nothing lost)."""
from __future__ import annotations

import asyncio
import json
import random
import sqlite3
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from pydantic import ValidationError
from service_harness import free_port

from service.config.loading import load_settings
from service.config.settings import Settings
from service.errors import ConfigError
from service.live.club import Club
from service.live.hub import Hub
from service.outbox.delivery import Outbox
from service.outbox.targets import backoff_delay, board_lin, classify, lin_rs_entry, sign, verify_signature
from service.sim.dealing import deal_for
from service.sim.robot import next_event
from service.store.journal import Journal
from table.events import BoardStarted, CardPlayed
from table.formats.lin import read_lin

T = TypeVar("T")
SECRET = "s3cret-s3cret-s3cret"


# ---------------------------------------------------------------------------------------------- signatures
def test_signature_verifies_and_refuses_tampering() -> None:
    body = b'{"board":1,"score_ns":420}'
    h = sign(SECRET, body, t=1_700_000_000)
    assert h.startswith("t=1700000000,v1=") and len(h.split("v1=")[1]) == 64
    assert verify_signature(SECRET, h, body, now=1_700_000_010)
    assert not verify_signature(SECRET, h, body.replace(b"420", b"620"), now=1_700_000_010)   # body changed
    assert not verify_signature("another-secret-entirely", h, body, now=1_700_000_010)       # wrong key
    assert not verify_signature(SECRET, h, body, now=1_700_000_000 + 301)                    # replayed late
    assert not verify_signature(SECRET, h.replace("t=1700000000", "t=1700000001"), body, now=1_700_000_010)
    assert not verify_signature(SECRET, None, body) and not verify_signature(SECRET, "garbage", body)
    # a key rotation: the receiver accepts a header carrying several v1 MACs, one of them valid
    rotated = sign("old-secret-old-secret", body, t=1_700_000_000) + "," + h.split(",")[1]
    assert verify_signature(SECRET, rotated, body, now=1_700_000_000)


def test_backoff_doubles_is_capped_and_jittered() -> None:
    rng = random.Random(7)
    for attempts, full in [(1, 0.5), (2, 1.0), (3, 2.0), (4, 4.0), (5, 8.0), (6, 10.0), (30, 10.0)]:
        delays = [backoff_delay(attempts, 0.5, 10.0, rng) for _ in range(200)]
        assert all(full / 2 <= d <= full for d in delays), (attempts, min(delays), max(delays))
        assert max(delays) - min(delays) > full / 4          # really jittered, not a fixed schedule


def test_http_answers_are_classified() -> None:
    assert [classify(s) for s in (200, 201, 204, 409)] == ["delivered"] * 4
    assert [classify(s) for s in (408, 429, 500, 502, 503, 504)] == ["retry"] * 6
    assert [classify(s) for s in (301, 400, 401, 403, 404, 413, 422)] == ["permanent"] * 7


def test_retry_after_is_read_as_seconds_or_as_an_http_date() -> None:
    import httpx

    from service.outbox.targets import _retry_after

    def ra(value: str) -> Any:
        return _retry_after(httpx.Response(503, headers={"Retry-After": value}), now=784111777.0)
    assert ra("120") == 120.0
    assert ra("-5") == 0.0
    # RFC 9110's example date is 784111777 in Unix time: 30 s after ``now`` here
    assert ra("Sun, 06 Nov 1994 08:50:07 GMT") == pytest.approx(30.0)
    assert ra("Sun, 06 Nov 1994 08:49:00 GMT") == 0.0          # already past: go now
    assert ra("soon") is None and ra("") is None               # unreadable: our own backoff decides
    assert _retry_after(httpx.Response(503)) is None


def test_upload_settings_are_checked(tmp_path: Path) -> None:
    cfg = tmp_path / "club.toml"
    cfg.write_text('[[uploads]]\nname = "scorer"\nkind = "webhook"\nurl = "https://example.org/hook"\n'
                   f'secret = "{SECRET}"\n[[uploads]]\nname = "vugraph"\nkind = "lin"\ndirectory = "{tmp_path}"\n')
    s = load_settings(cfg)
    assert [(u.name, u.only_released) for u in s.uploads] == [("scorer", False), ("vugraph", True)]
    for bad in ({"name": "x", "kind": "webhook", "url": "https://h"},                  # unsigned webhook
                {"name": "x", "kind": "lin"},                                          # nowhere to send
                {"name": "x", "kind": "lin", "url": "ftp://h", "directory": "/tmp"},
                {"name": "bad name", "kind": "lin", "directory": "/tmp"},
                {"name": "x", "kind": "carrier-pigeon", "directory": "/tmp"}):
        with pytest.raises(ValidationError):
            Settings.model_validate({"uploads": [bad]})
    cfg.write_text('[[uploads]]\nname = "a"\nkind = "lin"\ndirectory = "/tmp"\n[[uploads]]\nname = "a"\n'
                   'kind = "lin"\ndirectory = "/tmp"\n')
    with pytest.raises(ConfigError, match="unique"):
        load_settings(cfg)


# ---------------------------------------------------------------------------------------------- in-process club
def _settings(tmp: Path, **kw: Any) -> Settings:
    """Tables A and B without an event: each table owes every board (Law 16B), so the public feed carries a board
    once both completed it; ``tables=[{"id": "A"}]`` for one table, whose boards nobody else owes."""
    return Settings.model_validate({
        "database": str(tmp / "journal.db"), "tables": kw.pop("tables", [{"id": "A"}, {"id": "B"}]),
        "regulation": {"results_release": "immediate"},
        "uploads": kw.pop("uploads", [{"name": "feed", "kind": "lin", "directory": str(tmp / "lin")}]), **kw})


def run_club(settings: Settings, fn: Callable[[Club, Outbox], Awaitable[T]]) -> T:
    """Start a club on ``settings``' journal the way the service's lifespan does, run ``fn``, shut down."""
    async def main() -> T:
        journal = Journal(settings.database, settings.synchronous)
        club = Club(settings, journal, Hub())
        club.load()
        journal.start()
        club.start()
        ob = Outbox(club, settings.database, settings.uploads, rng=random.Random(1))
        await ob.start()
        try:
            return await fn(club, ob)
        finally:
            await ob.stop()
            journal.close()
            club.close()
    return asyncio.run(main())


async def play_board(club: Club, table: str, n: int, seed: int = 5) -> None:
    """A whole board by the robots (auction and play, no irregularity) through ``Club.submit``."""
    rng = random.Random(f"{table}{n}")
    await club.submit(table, {"type": "board", "board": n, "deal": deal_for(seed, n).to_pbn()}, "director")
    while True:
        step = next_event(club.table(table).table, rng, None)
        if step is None:
            return
        await club.submit(table, step[0], "director")


async def quick_board(club: Club, table: str, n: int, contract: str = "4S", declarer: str = "N",
                      tricks: int = 10) -> None:
    async def post(body: dict[str, Any]) -> None:
        await club.submit(table, body, "director")

    await post({"type": "board", "board": n})
    await post({"type": "contract", "contract": contract, "declarer": declarer})
    if contract != "PASS":
        await post({"type": "claim", "seat": declarer, "tricks": tricks})
        for seat in ("E", "W") if declarer in "NS" else ("N", "S"):
            await post({"type": "claim_response", "seat": seat, "accept": True})


def stored(db: str) -> dict[str, dict[str, Any]]:
    with sqlite3.connect(db) as c:
        return {k: {"table": t, "board": b, "version": v, "seq": s, "supersedes": sup, "payload": json.loads(p)}
                for k, t, b, v, s, sup, p in c.execute(
                    "SELECT key, table_id, board, version, seq, supersedes, payload FROM outbox_message")}


async def drained(ob: Outbox, timeout: float = 10.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        st = (await ob.stats())["targets"]
        if all(t["pending"] == 0 and t["held"] == 0 and t["in_flight"] == 0 for t in st) or time.monotonic() > deadline:
            return {t["name"]: t for t in st}
        await asyncio.sleep(0.05)


def test_lin_file_target_writes_what_the_lin_reader_reads(tmp_path: Path) -> None:
    settings = _settings(tmp_path)

    async def go(club: Club, ob: Outbox) -> dict[str, Any]:
        for n in (1, 2):
            await play_board(club, "A", n)
        await quick_board(club, "B", 1, "PASS")
        await quick_board(club, "B", 2, "PASS")     # the other room plays board 2 too: then it is public
        return await drained(ob)

    st = run_club(settings, go)
    assert st["feed"]["delivered"] == 4 and st["feed"]["failed"] == 0
    msgs = {(m["table"], m["board"]): m["payload"] for m in stored(settings.database).values()}
    for n in (1, 2):
        path = tmp_path / "lin" / f"A-{n}.lin"
        recs = list(read_lin(path))
        assert len(recs) == 1 and recs[0].error is None
        rec, p = recs[0], msgs[("A", n)]
        first = rec.events[0]
        assert isinstance(first, BoardStarted) and first.board == n and first.deal == deal_for(5, n).to_pbn()
        calls = [e for e in rec.events if e.type == "call"]
        cards = [e for e in rec.events if e.type == "card"]
        assert calls and len(cards) == 52                  # the whole auction and play went through LIN
        assert rec.recorded.contract == p["contract"]      # the rs| entry matches the auction read back
        assert rec.recorded.declarer == p["declarer"] and rec.recorded.result is not None \
            and int(rec.recorded.result) == p["tricks"]
        lead = cards[0]
        assert isinstance(lead, CardPlayed) and p["lead"] == str(lead.card)
    assert "rs|PASS|" in (tmp_path / "lin" / "B-1.lin").read_text()
    assert not list((tmp_path / "lin").glob(".*.tmp"))      # no temporary file left behind
    assert lin_rs_entry({"contract": "3NTX", "declarer": "E", "tricks": 7}) == "3NEX-2"
    assert lin_rs_entry({"adjustment": {"kind": "artificial"}}) == "ADJ"
    assert board_lin({"table": "A", "board": 3, "contract": None}, []).startswith("vg|")


def test_rederivation_at_start_up_stores_nothing_twice_and_loses_nothing(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    db = settings.database

    async def session(club: Club, ob: Outbox) -> None:
        for n in range(1, 4):
            await quick_board(club, "A", n, tricks=9 + n)
            await quick_board(club, "B", n, "3NT", "E", 8)
        await club.submit("A", {"type": "board", "board": 4}, "director")        # board 4 in play: no result
        await club.adjust("B", 2, {"kind": "artificial", "ns": "A+", "ew": "A-"})
        await club.submit("B", {"type": "board", "board": 4}, "director")        # board 4 left unfinished ...
        await club.submit("B", {"type": "contract", "contract": "2H", "declarer": "N"}, "director")
        await club.submit("B", {"type": "board", "board": 5}, "director")        # ... for board 5
        await drained(ob)

    run_club(settings, session)
    live = stored(db)
    assert len(live) == 8              # 6 results, one corrected by the adjustment, one board left unfinished
    left = next(m for m in live.values() if (m["table"], m["board"]) == ("B", 4))
    assert left["payload"]["complete"] is False and left["payload"]["contract"] == "2H"
    assert left["payload"]["tricks"] is None and left["seq"] == 19      # made by the row that started board 5
    adjusted = [m for m in live.values() if m["version"] == 2]
    assert len(adjusted) == 1 and adjusted[0]["supersedes"] in live
    assert adjusted[0]["payload"]["adjustment"]["kind"] == "artificial"

    async def nothing(club: Club, ob: Outbox) -> int:
        return ob.messages_made

    assert run_club(settings, nothing) == 0               # a restart derives the same results: nothing new
    assert stored(db) == live

    # a crash between the journal commit and the outbox insert: the newest version of two results is missing
    lost = sorted(live, key=lambda k: live[k]["seq"])[-2:]
    with sqlite3.connect(db) as c:
        for k in lost:
            c.execute("DELETE FROM outbox WHERE key = ?", (k,))
            c.execute("DELETE FROM outbox_message WHERE key = ?", (k,))
    assert run_club(settings, nothing) == 2
    assert stored(db) == live                             # the very same keys, versions and payloads

    # from nothing at all (the outbox added to an existing journal): the same keys again
    with sqlite3.connect(db) as c:
        c.execute("DELETE FROM outbox")
        c.execute("DELETE FROM outbox_message")
    run_club(settings, nothing)
    again = stored(db)
    # the first version of the adjusted board is not re-made (only the latest version of each result is)
    assert set(again) == set(live) - {adjusted[0]["supersedes"]}
    assert all(again[k]["payload"] == {**live[k]["payload"], "version": again[k]["version"],
                                       "supersedes": again[k]["supersedes"]} for k in again)


def test_a_result_completed_while_the_outbox_was_down_is_sent_once(tmp_path: Path) -> None:
    """Rows journaled by a run without the outbox (or whose inserts were lost) are picked up at start-up."""
    settings = _settings(tmp_path, tables=[{"id": "A"}])
    bare = settings.model_copy(update={"uploads": []})

    async def without(club: Club, ob: Outbox) -> None:
        await quick_board(club, "A", 1)
        await club.adjust("A", 1, {"kind": "assigned", "contract": "4S", "declarer": "N", "tricks": 9})

    async def with_(club: Club, ob: Outbox) -> dict[str, Any]:
        await quick_board(club, "A", 2)
        return await drained(ob)

    run_club(bare, without)          # an outbox with no target still records nothing, then nothing is due
    with sqlite3.connect(settings.database) as c:
        c.execute("DELETE FROM outbox")
        c.execute("DELETE FROM outbox_message")
    st = run_club(settings, with_)
    msgs = stored(settings.database)
    assert st["feed"]["delivered"] == 2 == len(msgs)
    one = next(m for m in msgs.values() if m["board"] == 1)
    assert one["payload"]["adjustment"]["kind"] == "assigned" and one["payload"]["score_ns"] == -50
    assert one["payload"]["table_score_ns"] == 420 and one["seq"] == 6     # the adjustment row made it


def test_a_feed_holds_a_board_until_released_and_writes_only_its_latest_version(tmp_path: Path) -> None:
    hook = {"name": "scorer", "kind": "webhook", "url": f"http://127.0.0.1:{free_port()}/nobody", "secret": SECRET,
            "backoff_base_s": 60}
    settings = _settings(tmp_path, uploads=[{"name": "feed", "kind": "lin", "directory": str(tmp_path / "lin")}, hook],
                         tables=[{"id": "A"}])
    settings = settings.model_copy(update={"regulation": settings.regulation.model_copy(
        update={"results_release": "director"})})

    async def go(club: Club, ob: Outbox) -> tuple[dict[str, Any], dict[str, Any]]:
        await quick_board(club, "A", 1)
        await club.adjust("A", 1, {"kind": "assigned", "contract": "4S", "declarer": "N", "tricks": 9})
        deadline = time.monotonic() + 10        # the outbox's workers: the older version superseded, the hook tried
        while True:
            held = {t["name"]: t for t in (await ob.stats())["targets"]}
            settled = held["feed"]["superseded"] >= 1 and held["scorer"]["since_start"].get("network", 0) >= 1
            if settled or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.05)
        assert not (tmp_path / "lin" / "A-1.lin").exists()       # not released: nothing on the public feed
        await club.release(1)
        deadline = time.monotonic() + 10
        while not (tmp_path / "lin" / "A-1.lin").exists() and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.2)
        return held, {t["name"]: t for t in (await ob.stats())["targets"]}

    held, after = run_club(settings, go)
    # two versions made while held: the older is superseded at once, the newer waits for the release
    assert (held["feed"]["held"], held["feed"]["superseded"], held["feed"]["delivered"]) == (1, 1, 0)
    # the webhook (not only_released) was tried at once: nobody listens, so it waits for its next attempt
    assert held["scorer"]["held"] == 0 and held["scorer"]["pending"] == 2
    assert held["scorer"]["last_error"] and "ConnectError" in held["scorer"]["last_error"]
    assert held["scorer"]["since_start"].get("network", 0) >= 1
    assert (after["feed"]["delivered"], after["feed"]["superseded"], after["feed"]["held"]) == (1, 1, 0)
    assert "rs|4SN-1|" in (tmp_path / "lin" / "A-1.lin").read_text()      # the assigned 4S by N, 9 tricks


def test_a_keyed_result_is_sent_once_the_opponents_confirm_it(tmp_path: Path) -> None:
    """A scoring-only table's keyed result is no result until confirmed: no version while it waits (nor when
    the next board starts), one made by the confirmation row, and a restart derives the very same key."""
    settings = _settings(tmp_path, tables=[{"id": "A"}])

    async def go(club: Club, ob: Outbox) -> tuple[int, int, dict[str, Any]]:
        await club.set_table_kind("A", "scoring")
        await club.submit("A", {"type": "board", "board": 1}, "seat:A:N")
        await club.submit("A", {"type": "result", "contract": "4S", "declarer": "N", "lead": "HK", "tricks": 10},
                          "seat:A:N")
        await asyncio.sleep(0.2)
        waiting = ob.messages_made
        await club.confirm("A", 1, {"accept": False, "side": "EW", "seat": "E"}, "seat:A:E")   # disputed
        disputed = ob.messages_made
        await club.confirm("A", 1, {"accept": True, "side": "EW", "seat": "E"}, "seat:A:E")
        return waiting, disputed, await drained(ob)

    waiting, disputed, st = run_club(settings, go)
    assert (waiting, disputed) == (0, 0)
    msgs = stored(settings.database)
    assert st["feed"]["delivered"] == 1 == len(msgs)
    (key, msg), = msgs.items()
    assert msg["payload"]["contract"] == "4S" and msg["payload"]["score_ns"] == 420
    assert msg["seq"] == 4                                      # the accepting confirmation made it

    async def nothing(club: Club, ob: Outbox) -> int:
        return ob.messages_made

    with sqlite3.connect(settings.database) as c:               # derived again from nothing: the same key
        c.execute("DELETE FROM outbox")
        c.execute("DELETE FROM outbox_message")
    assert run_club(settings, nothing) == 1
    assert set(stored(settings.database)) == {key}
