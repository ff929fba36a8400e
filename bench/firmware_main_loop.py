"""Seat-unit firmware main loop: the longest stretch awake and the share of time awake, per antenna load.

    python bench/firmware_main_loop.py [--old COMMIT]

Runs the firmware (``make -C firmware`` first) on the emulated ATmega2560 with its MFRC522 model and, for each
load (no tag, one tag, two tags, one on each antenna, a hand of 13 tags), lets it settle 700 emulated ms, then
reads the harness's ``loop_max_us`` (the longest time between two SLEEPs: the main loop leaving the UART rings,
the sessions and the keys unserved) and ``loop_busy_permille`` over one emulated second. ``--old`` also builds
the firmware of that commit from git history (978fe6d: before the non-blocking reader) and measures it.
Emulated time: the machine's load does not enter the figures. docs/PERFORMANCE.md ("The main loop") holds them.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hw_sim.avr import SeatUnit, ntag_uids  # noqa: E402

DECK = ntag_uids("deck-0")
HAND = sorted(DECK)[:13]
LOADS: list[tuple[str, Callable[[SeatUnit], object]]] = [
    ("no tag", lambda u: None),
    ("one tag", lambda u: u.place(DECK["SA"])),
    ("two tags", lambda u: (u.place(DECK["SA"]), u.add(DECK["HK"]))),
    ("one on each antenna", lambda u: (u.place(DECK["SA"]), u.place(DECK["HK"], dummy=True))),
    ("a hand of 13 tags", lambda u: u.lay_hand([DECK[c] for c in HAND])),
]


def old_elf(commit: str, where: Path) -> Path:
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit, "firmware"], capture_output=True,
                             check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(where)], input=archive, check=True)
    subprocess.run(["make", "-s", "-C", str(where / "firmware"), "build/avr/seatunit.elf"], check=True)
    return where / "firmware" / "build" / "avr" / "seatunit.elf"


def measure(label: str, elf: Path | None) -> None:
    print(f"| {label} | longest stretch awake | awake |\n|---|---:|---:|")
    with tempfile.TemporaryDirectory(prefix="fw-loop-") as links, \
            SeatUnit("loop", "SR-LOOP", "BB-LOOP", link_dir=links, elf=elf) as u:
        u.sync(300)                                   # the boot's set-up is not a main-loop turn
        for name, lay in LOADS:
            u.remove()
            u.remove(dummy=True)
            u.sync(200)
            lay(u)
            u.sync(700)
            u.loop_reset()
            u.sync(1000)
            s = u.stats()
            print(f"| {name} | {s['loop_max_us'] / 1000:.1f} ms | {s['loop_busy_permille'] / 10:.1f} % |")
    print()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", metavar="COMMIT", help="also measure the firmware of this commit")
    args = ap.parse_args()
    measure("this tree's firmware", None)
    if args.old:
        with tempfile.TemporaryDirectory(prefix="fw-old-") as where:
            measure(f"firmware of {args.old}", old_elf(args.old, Path(where)))


if __name__ == "__main__":
    main()
