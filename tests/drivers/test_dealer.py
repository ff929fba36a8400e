"""The dealing machine driver against the simulated machine: every fault caught at the right board and
pocket, no false alarms, over the in-process transport (many seeded runs) and once over a real pty."""
from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from click.testing import CliRunner
from thoroughness import runs

import hw_sim  # noqa: F401  (sim:// URLs)
from drivers.dealer import (
    DUPLICATE_CARD,
    JAM,
    MISSING_CARD,
    UNKNOWN_CARD,
    WRONG_BOARD,
    WRONG_CARD,
    WRONG_POCKET,
    BoardVerifier,
    DealerDriver,
    DealerError,
    Decision,
    summary,
)
from drivers.decks import DeckRegistry
from hw_sim.dealer_sim import FAULT_KINDS, DealerFaults, SimulatedDealer, expected_problems
from table.cards import Deal, Seat
from table.dealgen import generate
from table.handrecords import HandRecordBoard, write_hand_records

FAULT_RUNS = 30
CLEAN_SETS = runs(100, 25)            # tests/thoroughness.py: the full count in CI


def owners(boards):
    return {b.board: {c: str(s) for c, s in b.deal.owner.items()} for b in boards}


def expected(sim, boards, deck_check=True):
    own = owners(boards)
    return sum((expected_problems(i, own[i.board], deck_check) for i in sim.machine.injected), Counter())


def deal(sim, boards, operator=lambda stop: Decision.CONTINUE, **kw):
    drv = DealerDriver(sim.url, **sim.driver_kwargs(DeckRegistry()))
    try:
        return drv.deal_set(boards, operator=operator, **kw)
    finally:
        drv.close()


def plan_every_fault(seed: int) -> DealerFaults:
    """Every kind of fault once, each at a seeded board of 1..32 (several may share a board)."""
    rng = random.Random(f"plan:{seed}")
    plan: dict[int, list[str]] = {}
    for kind in FAULT_KINDS:
        plan.setdefault(rng.randrange(1, 33), []).append(kind)
    return DealerFaults(plan={b: tuple(k) for b, k in plan.items()}, seed=seed)


# ------------------------------------------------------------------------------------------ the verifier alone

def _board7() -> HandRecordBoard:
    """Board 7 with the 10 of hearts in East's hand."""
    deal = generate(1, seed="b7")[0].deal
    if deal.owner["HT"] != Seat.E:
        hands = {s: set(deal.hands[s]) for s in deal.hands}
        holder = deal.owner["HT"]
        swap = next(iter(hands[Seat.E]))
        hands[holder] = hands[holder] - {"HT"} | {swap}
        hands[Seat.E] = hands[Seat.E] - {swap} | {"HT"}
        deal = Deal(hands)
    return HandRecordBoard.of(7, deal)


def test_a_card_in_the_wrong_pocket_gets_a_volunteers_message():
    v = BoardVerifier(_board7())
    p = v.card("HT", "N", b"\xe0\x04\x00\x01")
    assert p.kind == WRONG_POCKET and p.pocket == "N" and p.belongs == "E" and p.board == 7
    assert p.message == ("Board 7: the 10 of hearts went into the North pocket; it belongs to East. "
                         "Take it out and put it in East's pocket, then press Continue.")
    assert v.failed
    assert "1. the 10 of hearts went into the North pocket" in v.instructions()
    assert "Redeal" in v.instructions()


def test_the_verifier_finds_duplicates_missing_cards_and_a_wrong_board():
    rec = _board7()
    v = BoardVerifier(rec)
    assert v.board_read(8).kind == WRONG_BOARD and "Take board 8 out, put board 7 in" in v.problems[0].message
    v = BoardVerifier(rec)
    for c in rec.hands()["E"]:
        assert v.card(c, "E", bytes.fromhex("E004" + c.encode().hex() + "0000")) is None
    dup = v.card("HT", "E", b"\x01\x02\x03\x04")                # another tag: a second copy in the deck
    assert dup.kind == DUPLICATE_CARD and "the deck has two of this card" in dup.message
    missing = v.finish()
    assert {p.card for p in missing} == set(rec.deal.owner) - set(rec.hands()["E"])
    assert all(p.kind == MISSING_CARD and p.pocket == rec.deal.owner[p.card] for p in missing)
    assert "The deck seems to lack it" in missing[0].message


# ------------------------------------------------------------------------------------------ (b) the simulated machine

@pytest.mark.parametrize("seed", range(FAULT_RUNS))
def test_every_fault_is_caught_at_its_board_and_pocket(seed):
    boards = generate(32, seed=f"set-{seed}")
    with SimulatedDealer("inproc", plan_every_fault(seed)) as sim:
        found = []
        report = deal(sim, boards, on_problem=found.append)
        assert {i.kind for i in sim.machine.injected} == set(FAULT_KINDS)
        got = Counter(p.key() for p in report.problems)
        assert got == expected(sim, boards), (got - expected(sim, boards), expected(sim, boards) - got)
        assert [p.key() for p in found] == [p.key() for p in report.problems]       # reported as they happened
    for p in report.problems:
        assert f"oard {p.board}" in p.message
        if p.pocket and p.kind != JAM:
            where = p.belongs if p.kind == WRONG_CARD else p.pocket
            assert {"N": "North", "E": "East", "S": "South", "W": "West"}[where] in p.message
    failed = {p.board for p in report.problems if p.blocking and p.kind != WRONG_BOARD}   # a wrong board: retried
    for r in report.boards:
        assert r.status == ("fixed_by_hand" if r.board in failed else "ok"), (r, failed)
    assert report.stray == 0


@pytest.mark.parametrize("seed", range(3))
def test_rates_of_faults_on_a_noisy_wire(seed):
    """Random fault rates and a link that corrupts and drops frames: still exactly the injected faults."""
    boards = generate(32, seed=f"noisy-{seed}")
    faults = DealerFaults.parse("wrong_pocket=0.1,duplicate=0.05,missing=0.05,foreign=0.05,unknown=0.05,"
                                "wrong_board=0.05,jam=0.1,unreadable=0.05", seed=seed)
    with SimulatedDealer("inproc", faults, seed, wire="corrupt=0.0005,drop=0.005") as sim:
        report = deal(sim, boards)
        assert Counter(p.key() for p in report.problems) == expected(sim, boards)
        assert sim.machine.injected


def test_zero_false_alarms_over_clean_sets():
    clean = 0
    with SimulatedDealer("inproc") as sim:
        drv = DealerDriver(sim.url, **sim.driver_kwargs(DeckRegistry()))
        for k in range(CLEAN_SETS):
            report = drv.deal_set(generate(32, seed=f"clean-{k}"))
            assert report.problems == [] and report.ok and report.cards == 32 * 52, summary(report)
            clean += 1
        drv.close()
    with SimulatedDealer("inproc", wire="corrupt=0.001,drop=0.01", seed=5) as sim:
        drv = DealerDriver(sim.url, **sim.driver_kwargs(DeckRegistry()))
        for k in range(5):
            report = drv.deal_set(generate(32, seed=f"clean-wire-{k}"))
            assert report.problems == [] and report.ok, summary(report)
            clean += 1
        assert drv.session.health.crc_errors + drv.session.health.retransmits > 0    # the wire really was noisy
        drv.close()
    assert clean == CLEAN_SETS + 5


def test_every_fault_over_a_real_pty(tmp_path):
    boards = generate(32, seed="pty")
    with SimulatedDealer("pty", plan_every_fault(99), auto_continue=0.05, link_dir=tmp_path) as sim:
        assert sim.url.startswith(str(tmp_path))
        report = deal(sim, boards, timeout=5.0)
        assert Counter(p.key() for p in report.problems) == expected(sim, boards)
        assert report.cards >= 32 * 52 - 4


# ------------------------------------------------------------------------------------------ operator decisions

def test_redeal_deals_the_board_again_cleanly():
    boards = generate(8, seed="redeal")
    with SimulatedDealer("inproc", DealerFaults(plan={3: ("wrong_pocket", "missing")})) as sim:
        stops = []

        def operator(stop):
            stops.append(stop)
            return Decision.REDEAL
        report = deal(sim, boards, operator=operator)
    assert [s.board for s in stops] == [3]
    assert "Board 3 needs attention:" in stops[0].message and Decision.REDEAL in stops[0].choices
    r3 = report.boards[2]
    assert r3.status == "ok" and r3.attempts == 2
    assert sim.machine.boards_dealt == [1, 2, 3, 3, 4, 5, 6, 7, 8]
    assert report.ok


def test_wrong_board_waits_for_the_right_board_then_deals_it():
    boards = generate(4, seed="wb")
    with SimulatedDealer("inproc", DealerFaults(plan={2: ("wrong_board",)})) as sim:
        stops = []
        report = deal(sim, boards, operator=lambda s: stops.append(s) or Decision.CONTINUE)
    assert stops[0].choices == (Decision.CONTINUE, Decision.SKIP, Decision.ABORT)
    assert "Take board" in stops[0].message and "put board 2 in" in stops[0].message
    assert report.ok and report.boards[1].attempts == 2
    assert sim.machine.boards_dealt == [1, 2, 3, 4]


def test_without_an_operator_failed_boards_are_skipped_and_abort_stops_the_run():
    boards = generate(6, seed="skip")
    faults = DealerFaults(plan={2: ("foreign",), 4: ("unknown",)})
    with SimulatedDealer("inproc", faults) as sim:
        report = deal(sim, boards, operator=None)
    assert [r.status for r in report.boards] == ["ok", "skipped", "ok", "skipped", "ok", "ok"]
    assert {p.kind for p in report.boards[3].problems} == {UNKNOWN_CARD, MISSING_CARD}
    assert "board 2: skipped (WRONG_CARD)" in summary(report)
    with SimulatedDealer("inproc", faults) as sim:
        report = deal(sim, boards, operator=lambda s: Decision.ABORT)
    assert [r.status for r in report.boards] == ["ok", "aborted"]


def test_a_machine_that_stays_jammed_is_an_error():
    with SimulatedDealer("inproc", DealerFaults(plan={1: ("jam",)}), auto_continue=None) as sim:
        drv = DealerDriver(sim.url, **sim.driver_kwargs(DeckRegistry()))
        with pytest.raises(DealerError, match="board 1: the machine has said nothing"):
            drv.deal_set(generate(2, seed=1), jam_timeout=30.0)
        sim.port.act(lambda m: m.press_continue())         # the volunteer clears it: dealing resumes
        drv.close()


def test_a_device_that_is_not_a_dealer_is_refused():
    from hw_sim import registry
    from hw_sim.clock import VirtualClock
    from hw_sim.devices import SeatReader
    from hw_sim.port import DevicePort
    clock = VirtualClock()
    port = DevicePort(SeatReader("SR-NOT-A-DEALER", clock=clock), clock=clock, name="not-a-dealer")
    url = registry.register(port)
    drv = DealerDriver(url, clock=clock.now, sleep=clock.advance)
    with pytest.raises(DealerError, match="did not connect .* not a dealing machine"):
        drv.deal_set(generate(1, seed=1), connect_timeout=3.0)
    assert drv.session.health.refusals >= 1
    drv.close()
    registry.unregister("not-a-dealer")


# ------------------------------------------------------------------------------------------ command line

def test_cli_verify_against_the_simulated_machine(tmp_path):
    from bridgetable.cli import main
    write_hand_records(generate(32, seed="cli"), tmp_path / "set.dup")
    r = CliRunner()
    out = r.invoke(main, ["deal", "verify", str(tmp_path / "set.dup"), "--machine", "sim"])
    assert out.exit_code == 0, out.output
    assert "32 boards, 1664 cards read: 32 ok" in out.output
    out = r.invoke(main, ["deal", "verify", str(tmp_path / "set.dup"), "--machine", "sim", "--jsonl", "--faults",
                          "wrong_pocket=0.2,jam=0.1", "--seed", "4", "--on-problem", "continue"])
    assert out.exit_code == 1, out.output
    lines = [json.loads(ln) for ln in out.output.splitlines() if ln.startswith("{")]
    assert len([x for x in lines if x["type"] == "board"]) == 32
    wrong = [x for x in lines if x["type"] == "problem" and x["kind"] == WRONG_POCKET]
    assert wrong and all("it belongs to" in x["message"] for x in wrong)
    out = r.invoke(main, ["deal", "verify", str(tmp_path / "set.dup"), "--machine", "sim", "--faults", "bogus=1"])
    assert out.exit_code == 2 and "unknown dealer fault 'bogus'" in out.output
