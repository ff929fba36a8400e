"""Updates over the link (issue 26, must-show 3): an emulated seat unit running an older firmware, with the boot
loader in its boot section, is updated over its seat-reader pty by the host's update routine; the cable is
pulled once mid-transfer; the unit waits in its boot loader, the CLI finishes the update, and the unit comes
back with the new version and reads a card to the host's driver."""
from __future__ import annotations

import json
import os
import queue
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import serial
from click.testing import CliRunner

from bridgetable.cli import main
from bridgetable.firmware_cli import SHIPPED_HEX, shipped_version
from drivers.config import SeatMap
from drivers.decks import STANDARD_ORDER, DeckRegistry
from drivers.firmware_update import AppLink, BootLink, probe, update
from drivers.notices import DeviceNotice
from drivers.seat_reader import SeatReaderDriver
from firmware_host.boot import BAUD, BootInfo, BootStatus, BootType, FirmwareImage, UpdateError
from firmware_host.constants import ResetCause
from firmware_host.messages import EnterBootloader, UnitStatus
from hw_sim.avr import FIRMWARE_DIR, SeatUnit, ntag_uids
from table.cards import Deal
from table.events import CardPlayed

OLD = "seatunit-1.0.9"
DEAL = Deal.from_pbn("N:QJ3.KQ982.KT63.Q K985.J653.74.K84 AT7.4.AQ85.J7632 642.AT7.J92.AT95")


@pytest.fixture(scope="module")
def old_elf(firmware_build: None, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The firmware built as an older release (only its version string differs)."""
    build = tmp_path_factory.mktemp("fw-old")
    done = subprocess.run(["make", "-s", "-C", str(FIRMWARE_DIR), f"BUILD={build}",
                           f"FW_DEFS=-DFIRMWARE_VERSION='\"{OLD}\"'", "firmware"], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return build / "avr" / "seatunit.elf"


@pytest.fixture
def unit(old_elf: Path, tmp_path: Path) -> Iterator[SeatUnit]:
    with SeatUnit("t3-e", "SR-T3-E", "BB-T3-E", link_dir=tmp_path, elf=old_elf, boot=True) as u:
        yield u


def open_link(url: str, timeout: float = 10.0) -> serial.Serial:
    deadline = time.monotonic() + timeout
    while not os.path.exists(url):                 # a pulled cable: the link comes back on replug
        assert time.monotonic() < deadline, f"{url} did not come back"
        time.sleep(0.05)
    return serial.serial_for_url(url, baudrate=BAUD, timeout=0.02)


def firmware_listing(url: str) -> dict[str, Any]:
    r = CliRunner().invoke(main, ["devices", "--firmware", "--port", url, "--json"])
    assert r.exit_code == 0, r.output
    return next(d["unit"] for d in json.loads(r.output)["serial"] if d["url"] == url)


def test_update_over_the_link_survives_a_cable_pull(unit):
    new = shipped_version()
    assert new is not None and new != OLD
    image = FirmwareImage.from_hex(SHIPPED_HEX)
    assert image.version == new

    before = firmware_listing(unit.reader_url)
    assert (before["firmware"], before["serial"], before["boot_loader"]) == (OLD, "SR-T3-E", False)
    assert before["status"].startswith("OUTDATED")

    # the first attempt: the cable is pulled a third of the way through the image
    pulled: list[int] = []

    def pull(done: int, total: int) -> None:
        if not pulled and done >= total // 3:
            pulled.append(done)
            unit.unplug("reader", 1.5)
    link = open_link(unit.reader_url)
    with pytest.raises(UpdateError):
        update(link, image, progress=pull)
    link.close()
    assert pulled

    # the old image's record is gone, the new one incomplete: the unit stays in its boot loader
    time.sleep(1.6)
    stuck = firmware_listing(unit.reader_url)
    assert stuck["boot_loader"] and stuck["firmware"] is None
    assert stuck["status"].startswith("NO FIRMWARE")
    link = open_link(unit.reader_url)               # and so it does after a reset: the record is checked at boot
    try:
        boot = BootLink(link)
        unit.command("reset")
        info = BootInfo.decode(boot.request(BootType.QUERY, timeout=0.5, tries=10).payload)
    finally:
        link.close()
    assert [a.why for a in boot.announced] == [2] and not info.app_valid     # 2: no valid application

    # the same command again finishes the job
    r = CliRunner().invoke(main, ["devices", "update", unit.reader_url, str(SHIPPED_HEX)])
    assert r.exit_code == 0, r.output
    assert f"{new} written and verified" in r.output

    after = firmware_listing(unit.reader_url)
    assert (after["firmware"], after["boot_loader"], after["status"]) == (new, False, "current")

    # and the unit works: its reader's card reaches the host's driver, which sees the new version
    uids = ntag_uids("deck-0")
    decks = DeckRegistry()
    decks.learn("deck-0", [uids[c] for c in STANDARD_ORDER])
    events: queue.Queue[Any] = queue.Queue()
    reader = SeatReaderDriver(unit.reader_url, events.put, SeatMap({"SR-T3-E": "E"}, table=3), decks,
                              backoff=(0.02, 0.2))
    statuses: list[UnitStatus] = []
    handle = reader.on_message

    def spy(msg: Any) -> bool:
        if isinstance(msg, UnitStatus):
            statuses.append(msg)
        return handle(msg)
    reader.on_message = spy  # type: ignore[method-assign]
    reader.start(0.02)
    try:
        deadline = time.monotonic() + 20
        while not reader.connected:
            assert time.monotonic() < deadline, "the updated unit did not connect"
            time.sleep(0.02)
        assert reader.session.peer is not None and reader.session.peer.firmware == new
        reader.set_board(DEAL, "deck-0")
        card = sorted(DEAL.hands["E"])[0]
        unit.place(uids[card])
        notices = []
        while isinstance(ev := events.get(timeout=20), DeviceNotice):
            notices.append(ev.code)
        assert ev == CardPlayed("E", card, source=reader.source)
        # the boot loader starts the new image without a reset: the director hears of no watchdog failure
        assert statuses and not statuses[0].reset_cause & ResetCause.WATCHDOG and "UNIT_RESET" not in notices
    finally:
        reader.stop()


def test_enter_bootloader_needs_this_sessions_id_and_a_bad_image_is_never_started(unit):
    link = open_link(unit.reader_url)
    try:
        app = AppLink(link)
        assert app.hello(10) and app.session.peer is not None
        sid = app.session.peer.session_id
        app.send(EnterBootloader((sid + 1) & 0xFFFFFFFF))
        end = time.monotonic() + 2
        while time.monotonic() < end:               # another session's id: acked, and ignored
            app.pump()
        assert app.session.pending == 0
        assert probe(link).firmware == OLD          # still the application (a new host session)
        app = AppLink(link)
        assert app.hello(10) and app.session.peer is not None and app.session.peer.session_id == sid
        app.send(EnterBootloader(sid))
        boot = BootLink(link)
        info = boot.request(BootType.QUERY, timeout=0.5, tries=20)
        assert info.payload[8] == 1                  # the old image is still valid until the first write
        image = FirmwareImage.from_hex(SHIPPED_HEX)
        status, _ = boot.result(BootType.WRITE, bytes(4) + image.data[:256])
        assert status is BootStatus.OK
        # a COMMIT whose CRC is not the flash's is refused, and START then refuses too
        status, crc = boot.result(BootType.COMMIT, len(image.data).to_bytes(4, "little") + bytes(4) + b"\x00",
                                  timeout=3)
        assert status is BootStatus.CRC_MISMATCH and crc != 0
        assert boot.result(BootType.START)[0] is BootStatus.NO_VALID_APP
        assert boot.result(BootType.WRITE, (0x3F000).to_bytes(4, "little") + b"\x00")[0] is \
            BootStatus.BAD_ADDRESS                   # the boot section is not the application's
    finally:
        link.close()


def test_update_through_a_noisy_link_repeats_requests_and_lands_whole(unit):
    """Corrupted bytes both ways: lost requests and lost answers are asked again (each request is idempotent),
    and the image still checks as a whole."""
    image = FirmwareImage.from_hex(SHIPPED_HEX)
    unit.command("faults corrupt=0.0004 dir=both seed=11")
    link = open_link(unit.reader_url)
    try:
        report = update(link, image, timeout=20)
    finally:
        link.close()
    unit.command("faults corrupt=0 dir=both seed=11")
    assert report.retries > 0 and report.version == image.version
    link = open_link(unit.reader_url)
    try:
        assert probe(link).firmware == image.version
    finally:
        link.close()


def test_a_reset_mid_transfer_restarts_the_boot_loader_and_the_transfer_carries_on(unit):
    """Power lost (here: RESET pulled) while pages are being written: the unit restarts into its boot loader,
    not into the half-written image, and answers the next WRITE: each request stands on its own."""
    image = FirmwareImage.from_hex(SHIPPED_HEX)
    resets: list[int] = []

    def reset_once(done: int, total: int) -> None:
        if not resets and done >= total // 2:
            resets.append(done)
            unit.command("reset")
    link = open_link(unit.reader_url)
    try:
        report = update(link, image, progress=reset_once)
        assert resets and report.version == image.version and report.restarts == 1
    finally:
        link.close()
    link = open_link(unit.reader_url)
    try:
        assert probe(link).firmware == image.version
    finally:
        link.close()
