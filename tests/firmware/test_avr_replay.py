"""Records replayed through four emulated seat units (the firmware on simavr, the unchanged drivers on ptys):
the verdicts are those of `bridgetable replay`, without faults and under seeded wire faults, dropped and
duplicated bytes, misreads, double reads and pulled cables."""
from __future__ import annotations

import json
import os
import statistics
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from parallel_avr import corpus_sample, play_on_tables, stripped

from bridgetable.avr_table import AvrTable
from bridgetable.cli import main
from bridgetable.simulated_tables import sim_replay_paths
from firmware_host import CardRead, Zone
from hw_sim.faults import FaultSpec
from table.cards import RANK_VALUE, SEATS, Deal, Seat
from table.events import HandRead
from table.replay import read_records, replay_paths, verdict

DEAL = "N:AKQJ.T98.765.432 T987.AKQ.432.765 6543.J76.AKQ.JT9 2.5432.JT98.AKQ8"
EXAMPLE = Path(__file__).resolve().parents[2] / "bridgetable" / "examples" / "irregular.jsonl"


@pytest.fixture(scope="module")
def table(firmware_build: None) -> Iterator[AvrTable]:
    """One table of four emulated seat units for the module (each test sets its own faults)."""
    with AvrTable() as t:
        yield t


def test_the_irregular_example_gives_the_replay_verdict(table):
    table.set_faults(None)
    table.set_byte_faults()
    results: list = []
    got = [json.dumps(v, ensure_ascii=False) for v in sim_replay_paths([EXAMPLE], table, results)]
    assert got == [json.dumps(v, ensure_ascii=False) for v in replay_paths([EXAMPLE])]
    assert all(r.faithful for r in results)
    assert sum(r.via_devices for r in results) >= 10


def played_board(board: int = 3) -> list[dict]:
    """A whole board as a table-event log: an alerted auction to 3NT by North, then all 52 cards, each player
    following suit with the lowest card it can (or discarding its lowest)."""
    deal = Deal.from_pbn(DEAL)
    out: list[dict] = [{"type": "board", "board": board, "deal": DEAL}]
    for i, c in enumerate(["1C", "Pass", "1NT", "Pass", "3NT", "Pass", "Pass", "Pass"]):
        out.append({"type": "call", "seat": "SWNE"[i % 4], "call": c, **({"alert": True} if i == 0 else {})})
    left = {s: list(deal.hands[s]) for s in SEATS}
    leader = Seat.E
    for _ in range(13):
        trick: list[tuple[Seat, str]] = []
        for k in range(4):
            s = SEATS[(SEATS.index(leader) + k) % 4]
            follow = [c for c in left[s] if trick and c[0] == trick[0][1][0]]
            pick = min(follow or left[s], key=lambda c: RANK_VALUE[c[1]])
            left[s].remove(pick)
            trick.append((s, pick))
            out.append({"type": "card", "seat": str(s), "card": pick})
        led = trick[0][1][0]
        leader = max((t for t in trick if t[1][0] == led), key=lambda t: RANK_VALUE[t[1][1]])[0]
    return out


@pytest.fixture(scope="module")
def board_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("records") / "played.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in played_board()))
    return path


def test_a_whole_played_board_gives_the_replay_verdict_and_the_read_latency(table, board_file):
    table.set_faults(None)
    table.set_byte_faults()
    (record,) = read_records(board_file)
    r = table.play(record)
    assert r.faithful, r.mismatches
    assert json.dumps(r.verdict) == json.dumps(verdict(record))
    assert r.via_devices == 60                               # 8 calls keyed, 52 cards laid on antennas
    lat = table.card_latencies_ms()
    assert len(lat) == 52 and statistics.median(lat) < 200   # a tag reaches the driver within a few polls


@pytest.mark.corpus
def test_real_corpus_boards_give_the_replay_verdicts(table, corpus):
    """A sample of real boards (two PBN tournaments, one vugraph match): every call keyed on a bidding box,
    every card laid on a seat's antenna."""
    files = [sorted((corpus / "pbn-corpus").rglob("*.pbn"))[0], sorted((corpus / "lin-vugraph").glob("*.lin"))[0]]
    records = [r for f in files for r in list(read_records(f))[:2]]
    assert len(records) == 4
    table.set_faults(None)
    table.set_byte_faults()
    for record in records:
        r = table.play(record)
        assert r.faithful, (record.source, record.index, r.mismatches)
        assert json.dumps(r.verdict) == json.dumps(verdict(record)), (record.source, record.index)
        assert r.via_devices > 40
        assert stripped(r.events) == stripped(record.events)


SLOW = pytest.mark.skipif(not os.environ.get("BRIDGETABLE_SLOW"), reason="set BRIDGETABLE_SLOW=1 (a few minutes)")
LONG = pytest.mark.timeout(2400)  # 3-5 minutes on an idle machine, wall-clock emulation: twice the suite's timeout
TABLES = 4                      # tables side by side: each emulated unit costs ~6-12 % of a core


def through_the_devices(o) -> bool:
    """Every call keyed and every card laid on an antenna; a card the deal gives to another seat (a hand record
    that contradicts the play) cannot be laid on the player's antenna and goes by the console."""
    return o.via_devices + o.console == o.events and (o.via_devices == o.actions if o.cards_as_dealt
                                                      else 0 < o.via_devices < o.actions)


def assert_all_as_replayed(outcomes) -> None:
    """Every record: no mismatch on the way, the replay verdict, exactly the record's events at the table, and
    every call and card through the devices."""
    bad = [(o.where, o.seed, o.mismatches[:3]) for o in outcomes
           if not (o.faithful and o.same_verdict and o.same_events and through_the_devices(o))]
    assert not bad, bad


def corpus_boards(corpus, n: int):
    """``n`` real boards chosen deterministically: three quarters every Nth of the PBN collection, a quarter
    every Nth of the vugraph LIN files."""
    records = corpus_sample(corpus, n - n // 4, n // 4)
    assert len(records) == n and len({(r.source, r.index) for r in records}) == n
    return records


@pytest.mark.corpus
def test_a_spread_of_corpus_boards_on_parallel_tables(firmware_build, corpus):
    """Always on: 8 boards from across the corpus on two tables at once."""
    assert_all_as_replayed(play_on_tables([(r, None) for r in corpus_boards(corpus, 8)], 2))


@pytest.mark.corpus
@pytest.mark.slow
@SLOW
@LONG
def test_two_hundred_corpus_boards_give_the_replay_verdicts(firmware_build, corpus):
    """200 real boards (150 PBN, 50 LIN, spread over the whole corpus), every call keyed on a bidding box and
    every card laid on a seat's antenna, on four tables at once."""
    outcomes = play_on_tables([(r, None) for r in corpus_boards(corpus, 200)], TABLES)
    assert len(outcomes) == 200
    assert_all_as_replayed(outcomes)


@pytest.mark.parametrize("seed", [1, 2])
def test_seeded_faults_give_the_same_verdicts(table, board_file, seed):
    """Noise on the wire, lost frames, dropped and duplicated bytes, misread and twice-read tags, a cable
    pulled once per board: the record still arrives whole and in order."""
    spec = FaultSpec.parse("corrupt=0.01,drop=0.02,dup=0.2,misread=0.1,unplug=2,replug=0.4")
    table.set_faults(replace(spec, seed=seed))
    table.set_byte_faults(bytedrop=0.003, bytedup=0.003)
    pulls = sum(s["reader_unplugs"] + s["box_unplugs"] for s in (u.stats() for u in table.units.values()))
    try:
        for record in [*read_records(EXAMPLE), *read_records(board_file)]:
            r = table.play(record)
            assert r.faithful, r.mismatches
            assert json.dumps(r.verdict) == json.dumps(verdict(record))
            assert stripped(r.events) == stripped(record.events)
        stats = [u.stats() for u in table.units.values()]
        assert sum(s["reader_faulted"] + s["box_faulted"] for s in stats) > 0
        assert sum(s["reader_unplugs"] + s["box_unplugs"] for s in stats) == pulls + 4   # unplug=2, two boards
    finally:
        table.set_faults(None)
        table.set_byte_faults()


WIRE_FAULTS = FaultSpec.parse("corrupt=0.01,drop=0.02,dup=0.2,misread=0.1,unplug=2,replug=0.4")


def seeded_fault_runs(record, seeds: list[int], tables: int) -> None:
    """One board per seed under wire faults, byte faults and two pulled cables: each run gives the fault-free
    run's verdict and exactly the record's events (none lost, none doubled); every table saw faults and
    exactly two cable pulls per board."""
    outcomes = play_on_tables([(record, seed) for seed in seeds], tables, WIRE_FAULTS, bytedrop=0.003,
                              bytedup=0.003)
    assert [o.seed for o in outcomes] == seeds
    assert_all_as_replayed(outcomes)
    for k in range(tables):
        mine = [o for o in outcomes if o.table == k]
        stats = mine[-1].stats
        assert stats["reader_unplugs"] + stats["box_unplugs"] == 2 * len(mine)
        assert stats["reader_faulted"] + stats["box_faulted"] > 0


@pytest.fixture(scope="module")
def played(board_file):
    """The whole played board (its fault-free run on the units gives the replay verdict: see above)."""
    (record,) = read_records(board_file)
    return record


def test_a_few_seeded_fault_runs_on_parallel_tables(firmware_build, played):
    seeded_fault_runs(played, [101, 102, 103, 104], 2)


@pytest.mark.slow
@SLOW
@LONG
def test_fifty_seeded_fault_runs_give_the_fault_free_verdicts(firmware_build, played):
    seeded_fault_runs(played, list(range(1000, 1050)), TABLES)


def test_cli_sim_replay_over_avr_prints_what_replay_prints(firmware_build):
    runner = CliRunner()
    want = runner.invoke(main, ["replay", "--jsonl", str(EXAMPLE)])
    got = runner.invoke(main, ["sim", "replay", "--transport", "avr", "--jsonl", str(EXAMPLE)])
    assert got.exit_code == 0, got.output
    assert got.stdout == want.stdout
    assert "via devices (avr)" in got.stderr


# ---------------------------------------------------------------------- hands read at the table, the dummy zone
def assert_hands_read(outcomes) -> None:
    """Every board's four hands read at the table, each the hand record's (a hand read otherwise is a mismatch
    of the run: AvrTable._pick_up_hands)."""
    bad = [(o.where, o.hands_read, o.mismatches[:3]) for o in outcomes if o.hands_read != 4]
    assert not bad, bad


def test_every_hand_read_at_the_table_and_dummys_cards_from_the_dummy_zone(firmware_build, played):
    """The whole played board with each player's hand laid on the play antenna at the start (HAND_READ in
    parts, put together by the driver, checked by the table against the deal) and declarer laying dummy's cards
    on the dummy zone's antenna of dummy's unit (its second MFRC522): the replay verdict, the record's events,
    every dummy card a CARD_READ of zone DUMMY from dummy's unit and every other card one of zone PLAY."""
    with AvrTable(read_hands=True, name="H") as t:
        reads: list[tuple[str, int, str]] = []
        for seat, (_, drv) in t.readers.items():
            handle = drv.on_message

            def spy(msg, seat=seat, handle=handle):
                if isinstance(msg, CardRead):
                    reads.append((str(seat), int(msg.zone), msg.uid.hex().upper()))
                return handle(msg)
            drv.on_message = spy
        r = t.play(played)
        assert r.faithful, r.mismatches
        assert json.dumps(r.verdict) == json.dumps(verdict(played))
        assert r.hands_read == 4
        hands = [e for e in r.events if isinstance(e, HandRead)]
        deal = Deal.from_pbn(DEAL)
        assert sorted((str(h.seat), sorted(h.cards)) for h in hands) == sorted(
            (str(s), sorted(deal.hands[s])) for s in SEATS)
        assert stripped([e for e in r.events if not isinstance(e, HandRead)]) == stripped(played.events)
        deck = t.decks.decks["deck-2"]                      # board 3
        card_of = {deck.uid_of(c): c for c in deal.owner}
        dummy = "S"                                         # 3NT by North
        by_zone = {(seat, zone, card_of[uid]) for seat, zone, uid in reads}
        assert {c for s, z, c in by_zone if z == Zone.DUMMY} == set(deal.hands[Seat(dummy)])
        assert all(s == dummy for s, z, c in by_zone if z == Zone.DUMMY)
        assert len({c for s, z, c in by_zone if z == Zone.PLAY}) == 39
        assert sum(u.stats()["spi_contention"] for u in t.units.values()) == 0


@pytest.mark.corpus
def test_corpus_boards_with_every_hand_read_at_the_table(firmware_build, corpus):
    """Always on: 4 boards from across the corpus on two tables, every hand read at the table."""
    outcomes = play_on_tables([(r, None) for r in corpus_boards(corpus, 4)], 2, read_hands=True)
    assert_all_as_replayed(outcomes)
    assert_hands_read(outcomes)


@pytest.mark.corpus
@pytest.mark.slow
@SLOW
@LONG
def test_two_hundred_corpus_boards_with_every_hand_read_at_the_table(firmware_build, corpus):
    """Must-show 2 (issue 26): 200 real boards through four emulated units per table, every hand read at the
    table and checked against the hand record, dummy's cards from the dummy zone, the verdicts of the plain
    replay."""
    outcomes = play_on_tables([(r, None) for r in corpus_boards(corpus, 200)], TABLES, read_hands=True)
    assert len(outcomes) == 200
    assert_all_as_replayed(outcomes)
    assert_hands_read(outcomes)


def watchdog_fault_runs(record, seeds: list[int], tables: int) -> None:
    """One board per seed under the wire faults, with every hand read at the table and one unit reset by its
    watchdog mid-board: the fault-free verdict, exactly the record's events (none lost, none doubled)."""
    outcomes = play_on_tables([(record, seed) for seed in seeds], tables, WIRE_FAULTS, bytedrop=0.003,
                              bytedup=0.003, read_hands=True, watchdog_resets=1)
    assert [o.seed for o in outcomes] == seeds
    assert_all_as_replayed(outcomes)
    assert_hands_read(outcomes)
    for k in range(tables):
        mine = [o for o in outcomes if o.table == k]
        assert mine[-1].stats["wd_resets"] == len(mine)


def test_a_few_seeded_watchdog_resets_mid_board(firmware_build, played):
    watchdog_fault_runs(played, [201, 202], 2)


@pytest.mark.slow
@SLOW
@LONG
def test_fifty_seeded_fault_runs_with_a_watchdog_reset_mid_board(firmware_build, played):
    watchdog_fault_runs(played, list(range(2000, 2050)), TABLES)


def test_cli_sim_replay_reads_the_hands_and_resets_a_unit(firmware_build):
    """`bridgetable sim replay --transport avr --read-hands --watchdog-resets 1`: the verdicts of `replay`, the
    hands read at the table counted; without the emulated units both options are refused in words."""
    runner = CliRunner()
    want = runner.invoke(main, ["replay", "--jsonl", str(EXAMPLE)])
    got = runner.invoke(main, ["sim", "replay", "--transport", "avr", "--read-hands", "--watchdog-resets", "1",
                               "--jsonl", str(EXAMPLE)])
    assert got.exit_code == 0, got.output
    assert got.stdout == want.stdout
    assert "4 hands read at the table" in got.stderr
    refused = runner.invoke(main, ["sim", "replay", "--read-hands", str(EXAMPLE)])
    assert refused.exit_code == 2 and "emulated seat units" in refused.output
