"""The seat unit's real firmware (``firmware/``) on an emulated ATmega2560: one :class:`SeatUnit` is one
``seatunit-sim`` process (``firmware/harness/seatunit_sim.c``, built on simavr) running the firmware ELF.

The unit has two serial links, published as ptys under stable paths (like udev ``/dev/serial/by-id`` links):
``reader_url`` (its MFRC522 card reader, a seat-reader device) and ``box_url`` (its bidding-box keys, a
bidding-box device). A driver opens them with ``serial.serial_for_url(path)`` exactly as it would open
``/dev/ttyUSB0``. Physical actions go to the harness: a tag laid on the antenna (:meth:`SeatUnit.place`), the
field emptied (:meth:`SeatUnit.remove`), either on the play zone's antenna or the dummy zone's (the unit's
two MFRC522s), a hand laid on the play antenna (:meth:`SeatUnit.lay_hand`), a watchdog reset
(:meth:`SeatUnit.watchdog_reset`), a call keyed (:meth:`SeatUnit.press`) or a single key
(:meth:`SeatUnit.key`), a cable pulled (:meth:`SeatUnit.unplug`), wire faults (:meth:`SeatUnit.set_faults`). The
bidding box's SSD1306 display (simavr's part on the TWI bus) is read back as text by :meth:`SeatUnit.display`.

The MFRC522 reads ISO/IEC 14443 A tags (4- or 7-byte UIDs), so emulated decks are NTAG-style 7-byte UIDs
(:func:`ntag_uids`), not the 8-byte ISO 15693 UIDs of :mod:`hw_sim.tags`.

The MFRC522 model (``firmware/harness/mfrc522_model.c``) keeps RF time: frames take their air time, the chip's
timer raises TimerIRq only once its programmed time has elapsed, each NTAG follows NXP's state machine, and
several tags in the field collide during anticollision. An SPI byte takes the cycles of the firmware's SCK setting
(2 µs at the board's 4 MHz), not simavr 1.6's fixed 100 µs (the harness times SPDR itself). Not modelled: power
loss, RF noise.
"""
from __future__ import annotations

import logging
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from .faults import FaultSpec
from .tags import deck_uids

log = logging.getLogger(__name__)

FIRMWARE_DIR = Path(__file__).resolve().parent.parent / "firmware"
BUILD_DIR = FIRMWARE_DIR / "build"
ELF = BUILD_DIR / "avr" / "seatunit.elf"
BOOT_BIN = BUILD_DIR / "avr" / "boot.bin"           # the boot loader (firmware/boot/), for SeatUnit(boot=True)
HARNESS = BUILD_DIR / "native" / "seatunit-sim"
VECTORS_CLI = BUILD_DIR / "native" / "vectors"
LINKS = ("reader", "box")


class AvrUnavailable(RuntimeError):
    """The firmware or its harness cannot be built or started (toolchain or simavr missing, build error)."""


SIMAVR_HEADER = Path("/usr/include/simavr/sim_avr.h")


def toolchain_missing() -> list[str]:
    """The build tools that are not installed (empty when the firmware and its harness can be built)."""
    missing = [tool for tool in ("make", "avr-gcc", "cc") if shutil.which(tool) is None]
    if not SIMAVR_HEADER.exists():
        missing.append("simavr (libsimavr-dev)")
    return missing


def build() -> None:
    """Build the firmware ELF, the harness and the vector CLI (``make -C firmware``; quick when up to date)."""
    missing = toolchain_missing()
    if missing:
        raise AvrUnavailable(f"cannot build the seat unit firmware: {', '.join(missing)} not installed (apt-get "
                             "install gcc-avr avr-libc binutils-avr simavr libsimavr-dev libsimavrparts1 libelf-dev)")
    done = subprocess.run(["make", "-s", "-C", str(FIRMWARE_DIR), "all"], capture_output=True, text=True)
    if done.returncode != 0:
        raise AvrUnavailable(f"building the firmware failed:\n{done.stdout}{done.stderr}")


def ntag_uids(name: str, seed: int = 0) -> dict[str, str]:
    """card -> 7-byte ISO 14443 A UID (NXP prefix 04) for the emulated deck ``name``: the 6 random bytes of
    :func:`hw_sim.tags.deck_uids` behind the NTAG manufacturer byte, so each deck stays distinct."""
    return {card: "04" + uid[4:] for card, uid in deck_uids(name, seed).items()}


def harness_faults(spec: FaultSpec, bytedrop: float = 0.0, bytedup: float = 0.0) -> str:
    """The harness's ``faults`` command for a fault spec: corrupt bytes, dropped frames (and, beyond the spec,
    dropped and duplicated single bytes), in one or both directions, seeded."""
    return (f"faults corrupt={spec.corrupt} drop={spec.drop} bytedrop={bytedrop} bytedup={bytedup} "
            f"dir={spec.dir} seed={spec.seed}")


class SeatUnit:
    """One emulated seat unit (card reader + bidding box) behind two ptys, their links in ``link_dir`` (by
    default a fresh ``seatunit-*`` folder of the temp dir, removed on close). ``elf``: another firmware build
    (default: ``firmware/build``'s); ``boot``: with the boot loader (updates over the link)."""

    def __init__(self, name: str, reader_serial: str, box_serial: str, *, link_dir: str | Path | None = None,
                 start_timeout: float = 10.0, elf: str | Path | None = None, boot: bool = False) -> None:
        if not (ELF.exists() and HARNESS.exists() and BOOT_BIN.exists()):
            build()
        firmware = Path(elf) if elf is not None else ELF
        # boot: the boot loader in its section, run first at every reset (BOOTRST), the ELF recorded as installed
        boot_args = ["--boot", str(BOOT_BIN)] if boot else []
        self.name = name
        self._own_dir = not link_dir                 # a folder made here is removed on close
        self.dir = Path(link_dir) if link_dir else Path(tempfile.mkdtemp(prefix="seatunit-"))
        self._lock = threading.Lock()
        self._lines: queue.Queue[str] = queue.Queue()
        self.placed_ns: dict[str, int] = {}          # action id -> CLOCK_MONOTONIC ns the tag entered the field
        self.errors: list[str] = []
        try:
            self._proc = subprocess.Popen(
                [str(HARNESS), "--elf", str(firmware), "--link-dir", str(self.dir), "--name", name,
                 "--reader-serial", reader_serial, "--box-serial", box_serial, *boot_args],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
        except BaseException:
            self._remove_dir()
            raise
        self._reader = threading.Thread(target=self._read_output, name=f"seatunit-{name}", daemon=True)
        self._reader.start()
        try:
            ready = self._expect("ready", start_timeout).split()
        except TimeoutError:
            self.close()
            raise AvrUnavailable(f"the seat unit harness did not start: {self._stderr()}") from None
        self.urls = {"reader": ready[1], "box": ready[2]}

    @property
    def reader_url(self) -> str:
        return self.urls["reader"]

    @property
    def box_url(self) -> str:
        return self.urls["box"]

    # ------------------------------------------------------------------ harness I/O
    def _read_output(self) -> None:
        assert self._proc.stdout is not None
        for line in self._proc.stdout:
            line = line.strip()
            if line.startswith("placed "):
                _, ident, ns = line.split()
                self.placed_ns[ident] = int(ns)
            elif line.startswith("error "):
                self.errors.append(line[6:])
                log.warning("seat unit %s: %s", self.name, line[6:])
            else:
                self._lines.put(line)

    def _expect(self, prefix: str, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or self._proc.poll() is not None and self._lines.empty():
                raise TimeoutError(f"seat unit {self.name}: no {prefix!r} answer")
            try:
                line = self._lines.get(timeout=min(left, 0.1))
            except queue.Empty:
                continue
            if line.startswith(prefix):
                return line

    def _stderr(self) -> str:
        if self._proc.poll() is None or self._proc.stderr is None:
            return "still running"
        return self._proc.stderr.read().strip() or f"exit status {self._proc.returncode}"

    def command(self, *lines: str) -> None:
        """Send harness commands (see ``firmware/harness/seatunit_sim.c``) in one write: the harness reads them in
        one go and so schedules them at the same emulated moment, however late this thread runs."""
        with self._lock:
            if self._proc.poll() is not None:
                raise AvrUnavailable(f"seat unit {self.name} stopped: {self._stderr()}")
            assert self._proc.stdin is not None
            self._proc.stdin.write("".join(line + "\n" for line in lines))
            self._proc.stdin.flush()

    # ------------------------------------------------------------------ physical actions
    # Tag actions go to the play zone's antenna, or with ``dummy=True`` to the dummy zone's (the unit's second
    # MFRC522, on its own chip select).
    @staticmethod
    def _zone(dummy: bool) -> str:
        return "dummy " if dummy else ""

    def place(self, uid: str, ident: str = "-", after_ms: int = 0, *, dummy: bool = False) -> None:
        """A tag laid on the antenna (it replaces any tag there): now, or ``after_ms`` emulated ms after the
        previous tag action (tag actions happen in the order asked, one hand at the antenna)."""
        action = f"placeafter {after_ms} {uid} {ident}" if after_ms else f"place {uid} {ident}"
        self.command(self._zone(dummy) + action)

    def add(self, uid: str, ident: str = "-", *, dummy: bool = False) -> None:
        """One more tag laid on the antenna beside those already there (the field holds several tags)."""
        self.command(f"{self._zone(dummy)}add {uid} {ident}")

    def lay_hand(self, uids: list[str], after_ms: int = 0) -> None:
        """A hand laid squared on the play antenna, every tag entering the field at once (replacing any tag
        there): ``after_ms`` emulated ms after the previous tag action. The tags go in one write: sent line by line
        by a thread a loaded machine runs late, the first tag can enter the field alone (the later lines arrive
        after its slot has passed), and the firmware rightly reads a lone tag as a card played."""
        if not uids:
            raise ValueError("a hand has at least one card")
        first = f"placeafter {after_ms} {uids[0]} -" if after_ms else f"place {uids[0]} -"
        self.command(first, *(f"add {uid} -" for uid in uids[1:]))

    def watchdog_reset(self) -> None:
        """The MCU resets as its watchdog resets it (WDRF set, RAM kept); the tags stay on the antennas."""
        self.command("wdreset")

    def reader_chip_reset(self) -> None:
        """The MFRC522 alone resets (a glitch on its supply): its set-up is lost, the MCU runs on."""
        self.command("chipreset")

    def loop_reset(self) -> None:
        """Restart the main-loop measurement (``loop_max_us``, ``loop_busy_permille`` in :meth:`stats`)."""
        self.command("loopreset")

    def remove(self, after_ms: int = 0, *, dummy: bool = False) -> None:
        self.command(self._zone(dummy) + (f"remove {after_ms}" if after_ms else "remove"))

    def press(self, call: str, alert: bool = False) -> None:
        """Key a call: Alert first if asked, then Pass / X / XX, or a level key and a strain key."""
        self.command(f"press {call}{' alert' if alert else ''}")

    KEYS = ("1", "2", "3", "4", "5", "6", "7", "Pass", "C", "D", "H", "S", "NT", "X", "XX", "Alert", "Undo", "Stop",
            "Director", "Earlier", "Later")

    def key(self, name: str) -> None:
        """Press one bidding-box key (one of :attr:`KEYS`): a level key alone composes a bid without making it."""
        if name not in self.KEYS:
            raise ValueError(f"no key {name!r} on the bidding box (keys: {' '.join(self.KEYS)})")
        self.command(f"key {name}")

    def display(self, timeout: float = 5.0) -> list[str]:
        """The bidding box display's 8 text lines, read back from the SSD1306's pixels (trailing blanks cut;
        ``~`` for a cell that holds no glyph of the firmware's font)."""
        self.command("display")
        line = self._expect("display", timeout)
        return line[len("display "):].split("|")

    def pulses(self, timeout: float = 5.0) -> dict[str, list[tuple[int, int]]]:
        """The feedback pins' high pulses ended since the last call: ``{"led": [...], "buzzer": [...]}``, each
        pulse ``(rising edge, length)`` in emulated microseconds."""
        self.command("pulses")
        line = self._expect("pulses", timeout)
        out: dict[str, list[tuple[int, int]]] = {}
        for part in line.split()[1:]:
            name, _, spans = part.partition("=")
            out[name] = [(int(a), int(b)) for a, b in (s.split(":") for s in spans.split(",") if s)]
        return out

    def unplug(self, link: str, seconds: float) -> None:
        """Pull ``link``'s cable ("reader", "box" or "all") for ``seconds``; the unit itself keeps running."""
        self.command(f"unplug {link} {max(1, round(seconds * 1000))}")

    def set_faults(self, spec: FaultSpec, bytedrop: float = 0.0, bytedup: float = 0.0) -> None:
        self.command(harness_faults(spec, bytedrop, bytedup))

    def sync(self, settle_ms: int = 0, timeout: float = 10.0) -> None:
        """Wait until every key press and tag action asked so far has been carried out, and ``settle_ms``
        emulated milliseconds more (time for the firmware to read and send what the last action caused)."""
        self.synced(self.ask_sync(settle_ms), timeout)

    def ask_sync(self, settle_ms: int = 0) -> str:
        """The first half of :meth:`sync`: the harness is asked, the answer's id returned for :meth:`synced`
        (several units synced at once: :func:`sync_units`)."""
        ident = f"s{time.monotonic_ns()}"
        self.command(f"sync {ident} {settle_ms}")
        return ident

    def synced(self, ident: str, timeout: float = 10.0) -> None:
        """The second half of :meth:`sync`: wait for the answer to :meth:`ask_sync`."""
        self._expect(f"synced {ident}", timeout)

    def holds_within(self, cond: Callable[[], bool], settle_ms: int, grace_s: float = 3.0,
                     timeout: float = 60.0) -> bool:
        """Whether ``cond`` (a check on the host's side, never a harness query) comes true before this unit has
        run ``settle_ms`` more emulated milliseconds, the host given ``grace_s`` more to read what the unit sent
        by then. A bound in the unit's own time, for an answer that may rightly never come (a test showing what
        older firmware fails to send): a loaded machine stretches it without changing the answer, where a
        wall-clock wait long enough for a loaded machine costs every quiet run its whole length."""
        ident = self.ask_sync(settle_ms)
        deadline = time.monotonic() + timeout
        while not cond():
            try:
                self.synced(ident, timeout=0.02)
            except TimeoutError:
                if time.monotonic() > deadline:
                    raise
                continue
            grace = time.monotonic() + grace_s
            while not cond():
                if time.monotonic() > grace:
                    return False
                time.sleep(0.02)
            break
        return True         # an answer to the sync still to come is skipped by the next wait for another

    def stats(self, timeout: float = 5.0) -> dict[str, int]:
        """The harness's counters (emulated ms, MFRC522 transceives, bytes and faults per link)."""
        self.ask_stats()
        return self.answered_stats(timeout)

    def ask_stats(self) -> None:
        """The first half of :meth:`stats` (several units asked at once: :class:`EmulatedClock`)."""
        self.command("stats")

    def answered_stats(self, timeout: float = 5.0) -> dict[str, int]:
        """The second half of :meth:`stats`."""
        line = self._expect("stats", timeout)
        return {k: int(v, 16) if k == "pins" else int(v)
                for k, v in (part.split("=") for part in line.split()[1:])}

    def close(self) -> None:
        if self._proc.poll() is None:
            try:
                self.command("quit")
                self._proc.wait(timeout=5)
            except (OSError, AvrUnavailable, subprocess.TimeoutExpired):
                self._proc.kill()
                self._proc.wait()
        self._reader.join(timeout=2)
        for stream in (self._proc.stdin, self._proc.stdout, self._proc.stderr):
            if stream is not None:
                stream.close()
        for link in LINKS:
            try:
                os.unlink(self.dir / f"{self.name}-{link}")
            except FileNotFoundError:
                pass
        self._remove_dir()

    def _remove_dir(self) -> None:
        if self._own_dir:
            shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> SeatUnit:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def sync_units(units: Iterable[SeatUnit], settle_ms: int = 0, timeout: float = 10.0) -> None:
    """:meth:`SeatUnit.sync` of several units side by side: each is asked first, then each answer awaited. Each
    unit's answer still comes only once its own actions are done and ``settle_ms`` emulated ms more have passed;
    one unit after the other, each would have waited for its own ``settle_ms`` after the previous unit's."""
    asked = [(unit, unit.ask_sync(settle_ms)) for unit in units]
    for unit, ident in asked:
        unit.synced(ident, timeout)


class EmulatedClock:
    """The seat units' emulated time in seconds (the slowest unit's), for a harness's deadlines: "no answer
    within 30 s" then means 30 s of the chips' time, as at a real table. The emulation is paced to the wall clock
    but falls behind it on a loaded machine (each unit needs a share of a core to keep up); a wall-clock deadline
    would then fail a unit that was merely slow to be emulated.

    The units are asked (a ``stats`` command to each, side by side) at most every ``refresh_s`` wall seconds;
    in between the clock runs on with the wall clock from the last answer, so it is never behind the units by
    more than ``refresh_s`` and a harness polling it often costs nothing. A unit that does not answer in time
    leaves the wall clock to count; one that stopped, from then on (a deadline still comes)."""

    virtual = False

    def __init__(self, units: Iterable[SeatUnit], refresh_s: float = 2.0) -> None:
        self.units = list(units)
        self.refresh_s = refresh_s
        self._answered = -float("inf")              # wall time of the last answer
        self._emulated = 0.0                         # the units' emulated seconds then
        self._stopped = False

    def now(self) -> float:
        wall = time.monotonic()
        if not self._stopped and wall - self._answered >= self.refresh_s:
            try:
                for unit in self.units:
                    unit.ask_stats()
                self._emulated = min(unit.answered_stats()["emulated_ms"] for unit in self.units) / 1000.0
                self._answered = wall
            except TimeoutError:                     # no answer in time: the wall time counts
                pass
            except (AvrUnavailable, OSError, ValueError):
                self._stopped = True
        if self._answered == -float("inf"):
            self._emulated, self._answered = 0.0, wall
        return self._emulated + (wall - self._answered)

    def advance(self, dt: float) -> None:           # emulated time passes by itself
        time.sleep(max(0.0, dt))
