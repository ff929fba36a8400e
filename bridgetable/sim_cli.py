"""``bridgetable devices`` and ``bridgetable sim ...``: list the hardware, run simulated devices and tables.

Registered on the main group by ``register_commands(main)`` (one line at the end of ``cli.py``).
"""
from __future__ import annotations

import json
import sys
from typing import Optional

import click


@click.command("devices")
@click.option("--json", "as_json", is_flag=True, help="one JSON object on stdout")
@click.option("--all-links", is_flag=True, help="also list symlinks to serial ports (/dev/serial/by-id ...)")
def devices(as_json: bool, all_links: bool) -> None:
    """List serial ports (device, VID:PID, serial number) and USB devices; fine with none, or no libusb."""
    from drivers.discovery import discover
    found = discover(include_links=all_links)
    if as_json:
        click.echo(json.dumps(found))
        return
    click.echo(f"serial ports: {len(found['serial']) or 'none'}")
    for d in found["serial"]:
        click.echo(f"  {d['url']:<28} {d['vid_pid'] or '-':<10} {d['serial_number'] or '-':<20} "
                   f"{d['description'] or ''}")
    click.echo(f"USB devices: {len(found['usb']) or 'none'}")
    for d in found["usb"]:
        click.echo(f"  {d['url']:<28} {d['vid_pid']:<10} {d['serial_number'] or '-':<20} {d['description'] or ''}")
    for note in found["notes"]:
        click.echo(f"note: {note}", err=True)


@click.group("sim")
def sim() -> None:
    """Simulated devices and tables (hw_sim): replay records through the wire protocol and the drivers."""


def register_commands(main: click.Group) -> None:
    main.add_command(devices)
    main.add_command(sim)
