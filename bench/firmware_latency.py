"""Seat-unit firmware latency: a tag laid on an emulated MFRC522 -> ``CardPlayed`` from the host driver.

    python bench/firmware_latency.py [--corpus DIR] [--records 4]

Plays real corpus records through :class:`bridgetable.avr_table.AvrTable` (four seat units, the firmware
on simavr's ATmega2560 paced to the wall clock, the drivers on ptys) without faults. For every card: from the
moment the harness put the tag into the antenna's field (CLOCK_MONOTONIC, stamped in the harness process)
to the moment the seat-reader driver emitted ``CardPlayed`` (CLOCK_MONOTONIC in this process). Prints p50,
p99 and max beside the wire's own floor: the bytes of that CARD_READ frame at the firmware's 500000 Bd, 10 bits a byte.
Prints a Markdown table (docs/PERFORMANCE.md, "Seat-unit firmware", holds the figures of the last run).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bridgetable.avr_table import AvrTable  # noqa: E402
from firmware_host import CardRead, Frame, encode_frame  # noqa: E402
from table.replay import read_records  # noqa: E402

BAUD = 500000                 # firmware/src/board.h: 16 MHz / 32, exact (firmware 1.1.0 on; 115200 before)


def percentile(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default=os.environ.get("BRIDGETABLE_CORPUS", str(ROOT.parent / "shared" / "data")))
    ap.add_argument("--records", type=int, default=4)
    args = ap.parse_args()
    files = sorted((Path(args.corpus) / "pbn-corpus").rglob("*.pbn"))
    records = []
    for f in files:                                   # the first two records of each file, until enough
        records += list(read_records(f))[:2]
        if len(records) >= args.records:
            break
    records = records[:args.records]
    if not records:
        sys.exit(f"no PBN records under {args.corpus}/pbn-corpus (give --corpus or BRIDGETABLE_CORPUS)")
    t0 = time.monotonic()
    with AvrTable() as table:
        verdicts = [table.play(r) for r in records]
        lat = table.card_latencies_ms()
        stats = [u.stats() for u in table.units.values()]
    wall = time.monotonic() - t0
    frame = encode_frame(Frame(CardRead.TYPE, 0, 0, 1, CardRead(0, bytes(7), 0).encode()))
    floor_ms = len(frame) * 10 / BAUD * 1000
    emulated = sum(s["emulated_ms"] for s in stats) / len(stats) / 1000
    print("| records | cards | p50 ms | p99 ms | max ms | wire floor ms | emulated s / wall s |")
    print("|---|---|---|---|---|---|---|")
    print(f"| {len(records)} | {len(lat)} | {statistics.median(lat):.1f} | {percentile(lat, 0.99):.1f} | "
          f"{max(lat):.1f} | {floor_ms:.2f} ({len(frame)} bytes) | {emulated:.1f} / {wall:.1f} |")
    print(f"faithful: {sum(v.faithful for v in verdicts)}/{len(verdicts)}")


if __name__ == "__main__":
    main()
