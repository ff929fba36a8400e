"""Records played on several tables of emulated seat units at once (the emulation runs at wall-clock speed, so
hundreds of boards need tables side by side), and the deterministic choice of real corpus boards to play."""
from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from bridgetable.avr_table import AvrTable
from hw_sim.faults import FaultSpec
from table.events import CallMade, CardPlayed, HandRead, to_dict
from table.record import GameRecord
from table.replay import read_records, verdict


def playable(record: GameRecord) -> bool:
    """A record the seat units can play: it starts a board with a deal and has cards played."""
    ev = record.events
    return bool(ev) and ev[0].type == "board" and bool(getattr(ev[0], "deal", None)) and any(
        isinstance(e, CardPlayed) for e in ev)


def every_nth(files: Iterable[Path], want: int) -> list[GameRecord]:
    """``want`` playable records spread evenly over ``files`` (every Nth playable record, in file order)."""
    pool = [r for f in files for r in read_records(f) if playable(r)]
    step = max(1, len(pool) // want)
    return pool[::step][:want]


def corpus_sample(corpus: Path, n_pbn: int, n_lin: int) -> list[GameRecord]:
    """Real boards chosen the same way every run: every Nth playable record of the PBN collection and of the
    BBO vugraph LIN files."""
    pbn = sorted(p for p in (corpus / "pbn-corpus").rglob("*") if p.suffix.lower() == ".pbn")
    lin = sorted((corpus / "lin-vugraph").glob("*.lin"))
    return every_nth(pbn, n_pbn) + every_nth(lin, n_lin)


def stripped(events: Iterable[Any]) -> list[str]:
    """Events as comparable text: without their source and timestamp, and a call without its written explanation
    (a bidding box sends the call and its alert; a LIN record's ``an`` gives the explanation the box cannot)."""
    out = []
    for e in events:
        d = to_dict(e)
        d.pop("source", None)
        d.pop("ts", None)
        if d.get("type") == "call":
            d.pop("explanation", None)
        out.append(json.dumps(d, sort_keys=True, ensure_ascii=False))
    return out


@dataclass
class Outcome:
    """One record played on an emulated table, against what `bridgetable replay` says of it."""
    where: str                                 # source:index
    table: int                                 # which of the parallel tables played it
    seed: int | None
    faithful: bool
    same_verdict: bool
    same_events: bool                          # the table received exactly the record's events, none lost or doubled
    via_devices: int                           # events that went through a device (the rest by the console)
    console: int
    events: int                                # the record's events
    actions: int                               # its calls and cards
    cards_as_dealt: bool                       # every card played by the seat the deal gives it to
    mismatches: list[str] = field(default_factory=list)
    stats: dict[str, int] = field(default_factory=dict)
    hands_read: int = 0                        # hands read at the table (AvrTable read_hands), checked by the table


def _play_share(jobs: list[tuple[GameRecord, int | None]], spec: FaultSpec | None, bytedrop: float,
                bytedup: float, k: int, table_kw: dict[str, Any]) -> list[Outcome]:
    out: list[Outcome] = []
    table = AvrTable(name=f"P{k}", **table_kw)
    picked = table_kw.get("read_hands", False)
    with table:
        table.set_byte_faults(bytedrop, bytedup)
        for record, seed in jobs:
            table.set_faults(replace(spec, seed=seed) if spec is not None and seed is not None else spec)
            r = table.play(record)
            out.append(Outcome(f"{record.source}:{record.index}", k, seed, r.faithful,
                               json.dumps(r.verdict) == json.dumps(verdict(record)),
                               stripped(_without_pickups(r.events, picked)) == stripped(record.events),
                               r.via_devices, r.console,
                               len(record.events), sum(isinstance(e, (CallMade, CardPlayed)) for e in record.events),
                               "HAND_RECORD_MISMATCH" not in {i["code"] for i in r.verdict["irregularities"]},
                               r.mismatches, hands_read=r.hands_read))
        totals: dict[str, int] = {}
        for unit in table.units.values():
            for key, v in unit.stats().items():
                totals[key] = totals.get(key, 0) + v
        if out:
            out[-1].stats = totals
    return out


def _without_pickups(events: list[Any], picked: bool) -> list[Any]:
    """The events a table received without the four hands read at each board's start (when asked for): the
    record's own events, to compare with the record."""
    if not picked:
        return events
    out, pickup = [], 0
    for e in events:
        if e.type == "board":
            pickup = 4
        elif pickup and isinstance(e, HandRead):
            pickup -= 1
            continue
        out.append(e)
    return out


def play_on_tables(jobs: list[tuple[GameRecord, int | None]], tables: int, spec: FaultSpec | None = None,
                   bytedrop: float = 0.0, bytedup: float = 0.0, **table_kw: Any) -> list[Outcome]:
    """Play ``(record, fault seed)`` jobs on ``tables`` tables of four emulated units each, in parallel
    (threads: the work is in the emulator processes); outcomes in job order. The harness counters of each
    table's four units are summed on that table's last outcome. ``table_kw`` go to each ``AvrTable``
    (``read_hands``, ``watchdog_resets``)."""
    shares = [jobs[k::tables] for k in range(tables)]
    run: Callable[[int], list[Outcome]] = lambda k: _play_share(shares[k], spec, bytedrop, bytedup, k, table_kw)
    with ThreadPoolExecutor(max_workers=tables) as pool:
        done = list(pool.map(run, range(tables)))
    out: list[Outcome] = []
    for i in range(len(jobs)):
        out.append(done[i % tables][i // tables])
    return out
