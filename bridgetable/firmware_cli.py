"""``bridgetable devices update`` and ``bridgetable devices --firmware``: the seat units' firmware over their
links (firmware_host.boot; docs/hardware.md §5). The firmware the package ships is ``firmware/``: its version
is FIRMWARE_VERSION in ``firmware/src/board.h``, its image ``firmware/build/avr/seatunit.hex``
(``make firmware``)."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import click

FIRMWARE_DIR = Path(__file__).resolve().parent.parent / "firmware"
SHIPPED_HEX = FIRMWARE_DIR / "build" / "avr" / "seatunit.hex"
BOARD_H = FIRMWARE_DIR / "src" / "board.h"


def shipped_version() -> str | None:
    """The firmware version this package ships (None when ``firmware/`` is not installed with it)."""
    try:
        m = re.search(r'#define FIRMWARE_VERSION "([^"]+)"', BOARD_H.read_text(encoding="utf-8"))
    except OSError:
        return None
    return m.group(1) if m else None


def verdict(running: str | None, shipped: str | None) -> str:
    """How a unit's firmware compares with the shipped one: current, OUTDATED, newer, or unknown."""
    from firmware_host.boot import version_key
    if running is None:
        return "NO FIRMWARE: update it"
    have, ship = version_key(running), version_key(shipped or "")
    if have is None or ship is None:
        return "unknown"
    return "current" if have == ship else "OUTDATED: update it" if have < ship else "newer than this package"


def probe_port(url: str, timeout: float = 3.0) -> dict[str, Any]:
    """What the unit on ``url`` (its seat-reader link) runs, as plain data."""
    import serial

    from drivers.firmware_update import probe
    from firmware_host.boot import BAUD, UpdateError
    shipped = shipped_version()
    out: dict[str, Any] = {"url": url, "serial": None, "firmware": None, "boot_loader": False, "shipped": shipped}
    try:
        port = serial.serial_for_url(url, baudrate=BAUD, timeout=0.02)
    except (OSError, ValueError) as err:
        return out | {"status": f"cannot open: {err}"}
    try:
        found = probe(port, timeout=timeout)
    except UpdateError as err:
        return out | {"status": f"no seat unit: {err}"}
    finally:
        port.close()
    if found.boot is not None:
        out |= {"boot_loader": True, "firmware": found.boot.app_version if found.boot.app_valid else None}
        out["status"] = verdict(out["firmware"], shipped) + " (waiting in its boot loader)"
    else:
        out |= {"serial": found.serial, "firmware": found.firmware, "status": verdict(found.firmware, shipped)}
    return out


@click.command("update")
@click.argument("port")
@click.argument("hex_file", required=False, type=click.Path(exists=True, dir_okay=False))
@click.option("--timeout", default=10.0, show_default=True, help="seconds to wait for the unit at each stage")
def update_command(port: str, hex_file: str | None, timeout: float) -> None:
    """Flash a seat unit over its seat-reader link PORT (e.g. /dev/serial/by-id/...-if00-port0) with HEX_FILE
    (default: the firmware this package ships). Safe to interrupt: the unit then waits in its boot loader and
    the same command finishes the job."""
    import serial

    from drivers.firmware_update import update
    from firmware_host.boot import BAUD, FirmwareImage, UpdateError
    path = Path(hex_file) if hex_file else SHIPPED_HEX
    if not path.exists():
        raise click.ClickException(f"no firmware image at {path}: build it with `make firmware`, or name a .hex")
    try:
        image = FirmwareImage.from_hex(path)
    except UpdateError as err:
        raise click.ClickException(str(err)) from None
    try:
        link = serial.serial_for_url(port, baudrate=BAUD, timeout=0.02)
    except (OSError, ValueError) as err:
        raise click.ClickException(f"cannot open {port}: {err}") from None
    shown = -1

    def progress(done: int, total: int) -> None:
        nonlocal shown
        if done * 10 // total != shown:
            shown = done * 10 // total
            click.echo(f"  {done}/{total} pages", err=True)
    click.echo(f"updating {port} to {image.version} ({len(image.data)} bytes, CRC-32 {image.crc:08x})", err=True)
    try:
        report = update(link, image, progress=progress, timeout=timeout)
    except UpdateError as err:
        raise click.ClickException(f"update not finished: {err}. The unit waits in its boot loader: run the "
                                   "same command again") from None
    finally:
        link.close()
    click.echo(f"{port}: {report.version} written and verified ({report.pages} pages, CRC-32 {report.crc:08x}, "
               f"{report.retries} requests repeated, {report.seconds:.1f} s"
               + (f", the unit reset {report.restarts} times on the way" if report.restarts else "")
               + "); the unit restarted")
