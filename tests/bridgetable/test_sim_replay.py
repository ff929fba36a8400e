"""Simulated tables: records played through simulated devices, the wire protocol and the drivers give the very
verdicts ``table.replay`` gives — on every transport, on the real corpus, and under seeded faults."""
from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from thoroughness import runs

import hw_sim  # noqa: F401
from bridgetable.cli import main
from bridgetable.simulated_tables import SimulatedTable, club_decks, sim_replay_paths
from drivers.notices import DeviceNotice
from firmware_host import Zone
from hw_sim.faults import FaultSpec
from table.cards import RANK_VALUE, SEATS, Deal
from table.events import CardPlayed
from table.replay import read_records, replay_paths, verdict

DEAL = "N:AKQJ.T98.765.432 T987.AKQ.432.765 6543.J76.AKQ.JT9 2.5432.JT98.AKQ8"
FAULTS = "corrupt=0.05,drop=0.02,dup=1,unplug=1"
EXAMPLES = Path(__file__).resolve().parents[2] / "bridgetable" / "examples"


def handmade_events(board: int = 3) -> list[dict]:
    """A whole board as a table-event log: hands read, an alerted auction, 40 cards played legally (lowest
    card that follows suit), then declarer claims the rest and both defenders accept (console path)."""
    deal = Deal.from_pbn(DEAL)
    hands = {s: sorted(deal.hands[s], key=lambda c: ("SHDC".index(c[0]), -RANK_VALUE[c[1]])) for s in SEATS}
    out: list[dict] = [{"type": "board", "board": board, "deal": DEAL}]
    out += [{"type": "hand", "seat": str(s), "cards": hands[s]} for s in SEATS]
    calls = ["1C", "Pass", "1NT", "Pass", "3NT", "Pass", "Pass", "Pass"]
    order = "SWNE"                                   # board 3: dealer South
    for i, c in enumerate(calls):
        out.append({"type": "call", "seat": order[i % 4], "call": c, **({"alert": True} if i == 0 else {})})
    declarer = "N"                                   # North named notrump first; East leads
    left = {s: list(hands[s]) for s in SEATS}
    leader = SEATS[(SEATS.index(declarer) + 1) % 4]
    for _ in range(10):
        trick: list[tuple[str, str]] = []
        for k in range(4):
            s = SEATS[(SEATS.index(leader) + k) % 4]
            cards = left[s]
            follow = [c for c in cards if trick and c[0] == trick[0][1][0]]
            pick = min(follow or cards, key=lambda c: RANK_VALUE[c[1]])
            cards.remove(pick)
            trick.append((s, pick))
            out.append({"type": "card", "seat": str(s), "card": pick})
        led = trick[0][1][0]
        leader = max((t for t in trick if t[1][0] == led), key=lambda t: RANK_VALUE[t[1][1]])[0]
    out.append({"type": "claim", "seat": declarer, "tricks": 9})
    out += [{"type": "claim_response", "seat": s, "accept": True} for s in ("E", "W")]
    return out


@pytest.fixture(scope="module")
def handmade(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("records") / "handmade.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in handmade_events()))
    return path


def reference(paths) -> list[str]:
    return [json.dumps(v, ensure_ascii=False) for v in replay_paths(paths)]


def simulated(paths, transport: str, faults=None, **kw) -> tuple[list[str], list]:
    results: list = []
    with SimulatedTable(transport, faults, **kw) as sim:
        out = [json.dumps(v, ensure_ascii=False) for v in sim_replay_paths(paths, sim, results)]
    return out, results


def test_handmade_record_is_a_sensible_board(handmade):
    v = next(iter(replay_paths([handmade])))
    assert v["status"] == "claimed" and v["contract"] == "3NT" and v["declarer"] == "N" and v["tricks"] == 9
    assert v["irregularities"] == []


@pytest.mark.parametrize("transport", ["inproc", "pty", "tcp", "usb"])
def test_every_transport_gives_the_replay_verdicts(transport, handmade):
    paths = [handmade, EXAMPLES / "irregular.jsonl"]
    got, results = simulated(paths, transport)
    assert got == reference(paths)                          # byte-identical JSON per record
    assert all(r.faithful for r in results)
    r = results[0]
    assert r.via_devices == 4 + 8 + 40 and r.console == 1 + 3  # hands, calls, cards / board, claim, 2 responses
    assert all(e.type == "card" and e.source.startswith("seat-reader:") for e in r.events if e.type == "card")


def test_decks_are_learned_over_the_wire_and_dummy_plays_into_its_zone(handmade):
    with SimulatedTable("inproc", n_decks=2) as sim:          # no registry given: the readers learn the decks
        assert sorted(sim.decks.decks) == ["deck-0", "deck-1"]
        record = next(read_records(handmade))
        r = sim.play(record)
        assert r.faithful
        dummy = sim.readers["S"][0].device                   # North declares 3NT: South is dummy
        declarer = sim.readers["N"][0].device
        south_cards = [e for e in record.events if e.type == "card" and e.seat == "S"]
        assert [z for z, _ in dummy.placed] == [Zone.DUMMY] * len(south_cards)
        assert {z for z, _ in declarer.placed} == {Zone.PLAY}
        assert dummy.session.pending == 0                    # every read acknowledged


def test_cli_sim_replay_prints_what_replay_prints(handmade):
    runner = CliRunner()
    ref = runner.invoke(main, ["replay", "--jsonl", str(handmade), str(EXAMPLES)])
    for transport, faults in (("inproc", "corrupt=0.02,drop=0.02,dup=1,misread=0.2,unplug=1"),
                              ("tcp", "dup=1,misread=0.2")):
        sim = runner.invoke(main, ["sim", "replay", "--jsonl", "--transport", transport, "--faults", faults,
                                   "--seed", "3", str(handmade), str(EXAMPLES)])
        assert sim.exit_code == 0, sim.output
        assert sim.stdout == ref.stdout
    bad = runner.invoke(main, ["sim", "replay", "--faults", "explode=1", str(handmade)])
    assert bad.exit_code == 2 and "unknown fault" in bad.output


def seeded_runs(record, seeds, spec: FaultSpec, **table) -> dict[str, int]:
    want = json.dumps(verdict(record))
    with SimulatedTable("inproc", spec, decks=club_decks(), action_timeout=36000, **table) as sim:
        for seed in seeds:
            sim.set_faults(spec, seed=seed)
            r = sim.play(record)
            assert r.faithful, (seed, r.mismatches)
            assert json.dumps(r.verdict) == want, seed
        health = sim.health()
    return {k: sum(h[k] for h in health) for k in ("crc_errors", "disconnects", "resumes", "links_lost")}


def test_seeded_faults_two_hundred_runs_identical(handmade):
    """200 seeded runs (50 in make test, tests/thoroughness.py) of the board's auction and play with 5 % of the
    bytes corrupted (both directions), 2 % of the frames dropped, every RFID read duplicated and one unplug/replug
    per board: the board record never changes. (The hand pickups are left to the test below: a 13-tag HAND_READ
    frame is ~130 bytes, which a 5 %-per-byte line delivers intact once in ~750 tries, so each costs ~1 s of
    CPU.)"""
    record = next(read_records(handmade))
    record.events = [e for e in record.events if e.type != "hand"]
    seeds = runs(200, 50)
    totals = seeded_runs(record, range(seeds), FaultSpec.parse(FAULTS))
    assert totals["disconnects"] >= seeds                   # every board lost a device and got it back
    assert totals["crc_errors"] > 5 * seeds


@pytest.mark.parametrize("hand_part_tags", [4, None], ids=["in-parts", "whole"])
def test_seeded_faults_with_hand_pickups(handmade, hand_part_tags):
    """The hands picked up as the seat unit sends them (parts of four tags) and as one 13-tag frame (the long
    frame a 5 %-per-byte line rarely lets through: ~750 tries a hand)."""
    record = next(read_records(handmade))
    seeded_runs(record, range(1000, 1005), FaultSpec.parse(FAULTS), hand_part_tags=hand_part_tags)


# The 200 seeds of the test below in four chunks of 50 on tables of their own: all CPU (the inproc transport's
# virtual clock), about 10 s each on an idle core (the hands in the seat unit's parts of four tags; whole, each
# hand cost ~1 s of CPU), so pytest-xdist's workers run them side by side.
WHOLE_BOARD_SEEDS = [range(start, start + 50) for start in range(2000, 2200, 50)]


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("BRIDGETABLE_SLOW"), reason="set BRIDGETABLE_SLOW=1 (about 3 minutes)")
@pytest.mark.timeout(2400)                          # the chunks run side by side: twice the suite's per-test timeout
@pytest.mark.parametrize("seeds", WHOLE_BOARD_SEEDS, ids=lambda r: f"{r.start}-{r.stop - 1}")
def test_seeded_faults_two_hundred_whole_boards(handmade, seeds):
    """The full board, hand pickups included, 200 seeds (2000-2199) in four chunks (slow: see above)."""
    seeded_runs(next(read_records(handmade)), seeds, FaultSpec.parse(FAULTS))


def test_the_whole_board_chunks_are_the_two_hundred_seeds():
    assert [seed for chunk in WHOLE_BOARD_SEEDS for seed in chunk] == list(range(2000, 2200))


def test_misreads_and_errors_never_touch_the_table(handmade):
    """Misread tags (unknown UIDs), and a stray card, a card at the wrong seat and an unbound box pushed in
    mid-board: clear error events, and the board's verdict is unchanged."""
    record = next(read_records(handmade))
    want = json.dumps(verdict(record))
    with SimulatedTable("inproc", "misread=0.5,seed=1", decks=club_decks()) as sim:
        original = sim._route
        unbound: list[str] = []

        def meddle(ev, deal, last_read, deck):
            routed = original(ev, deal, last_read, deck)
            if isinstance(ev, CardPlayed) and ev.card == "H8":       # just before a real card is read
                port = sim.readers[ev.seat][0]
                wrong = next(c for c, s in deal.owner.items() if s != ev.seat)
                port.act(lambda d: d.place_card(deck[wrong], Zone.PLAY))
                port.act(lambda d: d.place_card("E0040000DEADBEEF", Zone.PLAY))      # a stray tag
                box_port, box = sim.boxes[ev.seat]                     # a box that is nobody's
                serial = box.serial
                unbound.append(serial)
                sim.seat_map.bind(serial, None)
                errors = box.errors_emitted
                box_port.act(lambda d: d.press("7NT"))
                while box.errors_emitted == errors:
                    sim._step(box)
                sim.seat_map.bind(serial, str(ev.seat))
            return routed
        sim._route = meddle
        r = sim.play(record)
    assert json.dumps(r.verdict) == want and r.faithful
    codes = [e.code for e in r.device_notices if e.is_error]
    assert "WRONG_SEAT" in codes and "UNBOUND_DEVICE" in codes and codes.count("UNKNOWN_TAG") >= 10
    assert [e.detail for e in r.device_notices if e.code == "UNBOUND_DEVICE"] == [
        f"call 7NT from device {serial}, which is bound to no seat" for serial in unbound]
    assert all(isinstance(e, DeviceNotice) for e in r.device_notices)


# ---------------------------------------------------------------------------------------------- corpus
def corpus_files(corpus: Path, want: int) -> list[Path]:
    """Files holding at least ``want`` records: half BBO vugraph LIN, half PBN spread over the collection."""
    files: list[Path] = []
    for group, share in ((sorted((corpus / "lin-vugraph").glob("*.lin")), want // 2),
                         (sorted((corpus / "pbn-corpus").rglob("*.pbn"))[::40], want - want // 2)):
        n = 0
        for f in group:
            files.append(f)
            n += sum(1 for _ in read_records(f))
            if n >= share:
                break
    return files


@pytest.mark.corpus
def test_corpus_records_through_the_devices(corpus):
    files = corpus_files(corpus, 300)
    ref = reference(files)
    assert len(ref) >= 200
    got, results = simulated(files, "inproc", decks=club_decks())
    assert got == ref
    assert sum(r.via_devices for r in results) > 10 * len(results)


@pytest.mark.corpus
@pytest.mark.parametrize("transport", ["pty", "usb"])
@pytest.mark.timeout(2400)                          # about 4 minutes each: twice the suite's per-test timeout
def test_two_hundred_corpus_records_over_pty_and_pyusb(corpus, transport):
    """At least 200 real records (irregular ones included) through ptys (real termios) and through the
    real pyusb stack over the simulated backend: the same verdicts as `bridgetable replay`."""
    irregular = [corpus / "pbn-corpus" / p for p in (
        "1996-10th_World_Bridge_Team_Olympiad/F3.PBN",                 # an insufficient bid
        "1996-10th_World_Bridge_Team_Olympiad/ROUND01.PBN",            # a revoke
        "1997-11th_Cap_Gemini_World_Top_Tournament/ROUND13.PBN",       # inadmissible double, pass out of turn
        "1997-European_Team_Championship/O1o10606.pbn")] + [           # an opening lead out of turn
        corpus / "lin-vugraph" / "192_19240.lin"]                      # a call after the final pass
    files = corpus_files(corpus, 200) + irregular
    ref = reference(files)
    assert len(ref) >= 200
    codes = {i["code"] for v in ref for i in json.loads(v)["irregularities"]}
    assert {"INSUFFICIENT_BID", "REVOKE", "INADMISSIBLE_DOUBLE", "OPENING_LEAD_OUT_OF_TURN",
            "CALL_AFTER_FINAL_PASS"} <= codes
    got, _ = simulated(files, transport, decks=club_decks())
    assert got == ref


@pytest.mark.corpus
def test_corpus_over_tcp(corpus):
    files = sorted((corpus / "lin-vugraph").glob("*.lin"))[:2]
    got, _ = simulated(files, "tcp", decks=club_decks())
    assert got == reference(files)


@pytest.mark.corpus
def test_corpus_records_under_seeded_faults(corpus):
    """Two hundred corpus boards, each its own seed, through a faulty wire: identical verdicts."""
    files = corpus_files(corpus, 200)
    records = [r for f in files for r in read_records(f)][:200]
    spec = FaultSpec.parse(FAULTS + ",misread=0.05")
    with SimulatedTable("inproc", spec, decks=club_decks()) as sim:
        for i, record in enumerate(records):
            sim.set_faults(replace(spec, seed=1000 + i))
            r = sim.play(record)
            assert r.faithful, (record.source, record.index, r.mismatches)
            assert json.dumps(r.verdict) == json.dumps(verdict(record)), (record.source, record.index)
