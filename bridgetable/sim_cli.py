"""``bridgetable devices`` and ``bridgetable sim ...``: list the hardware, run simulated devices and tables.

Registered on the main group by ``register_commands(main)`` (one line at the end of ``cli.py``).
"""
from __future__ import annotations

import json
import signal
import sys
import threading
from typing import Any

import click

from .verdict_output import expand, human


@click.group("devices", invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help="one JSON object on stdout")
@click.option("--all-links", is_flag=True, help="also list symlinks to serial ports (/dev/serial/by-id ...)")
@click.option("--firmware", is_flag=True,
              help="ask each serial port for a seat unit's firmware version and flag outdated ones")
@click.option("--port", "ports", multiple=True, metavar="PATH",
              help="with --firmware: ask only this port (no discovery); repeatable")
@click.pass_context
def devices(ctx: click.Context, as_json: bool, all_links: bool, firmware: bool, ports: tuple[str, ...]) -> None:
    """List serial ports (device, VID:PID, serial number) and USB devices; fine with none, or no libusb.
    `devices update PORT` flashes a seat unit over its link."""
    if ctx.invoked_subcommand is not None:
        return
    from drivers.discovery import discover
    if ports and not firmware:
        raise click.UsageError("--port goes with --firmware")
    found: dict[str, list[dict[str, Any]]] = (
        discover(include_links=all_links) if not ports else
        {"serial": [{"url": p, "vid_pid": None, "serial_number": None, "description": "given"} for p in ports],
         "usb": [], "notes": []})
    if firmware:
        from .firmware_cli import probe_port
        for d in found["serial"]:
            d["unit"] = probe_port(d["url"])
    if as_json:
        click.echo(json.dumps(found))
        return
    click.echo(f"serial ports: {len(found['serial']) or 'none'}")
    for d in found["serial"]:
        click.echo(f"  {d['url']:<28} {d['vid_pid'] or '-':<10} {d['serial_number'] or '-':<20} "
                   f"{d['description'] or ''}")
        if "unit" in d:
            u = d["unit"]
            click.echo(f"    firmware {u['firmware'] or '-'} ({u['serial'] or 'no serial'}): {u['status']}; "
                       f"this package ships {u['shipped'] or '-'}")
    if ports:
        return
    click.echo(f"USB devices: {len(found['usb']) or 'none'}")
    for d in found["usb"]:
        click.echo(f"  {d['url']:<28} {d['vid_pid']:<10} {d['serial_number'] or '-':<20} {d['description'] or ''}")
    for note in found["notes"]:
        click.echo(f"note: {note}", err=True)


@click.group("sim")
def sim() -> None:
    """Simulated devices and tables (hw_sim): replay records through the wire protocol and the drivers."""


def _faults(spec: str | None, seed: int | None) -> Any:
    from hw_sim.errors import FaultSpecError
    from hw_sim.faults import FaultSpec
    try:
        return FaultSpec.parse(spec, seed)
    except FaultSpecError as err:
        raise click.BadParameter(str(err), param_hint="--faults") from None


@sim.command("replay")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--transport", type=click.Choice(["inproc", "pty", "tcp", "usb", "avr"]), default="inproc",
              show_default=True, help="how the simulated devices are reached (avr: the seat-unit firmware, emulated)")
@click.option("--faults", "fault_spec", default=None, metavar="SPEC",
              help="e.g. corrupt=0.05,drop=0.02,dup=1,misread=0.1,unplug=1,slow=0.01")
@click.option("--seed", type=int, default=None, help="seed for every fault (overrides seed= in --faults)")
@click.option("--jsonl", is_flag=True, help="one JSON object per record on stdout (as `bridgetable replay --jsonl`)")
@click.option("--decks", "n_decks", type=int, default=4, show_default=True, help="decks the club learns first")
@click.option("--read-hands", is_flag=True,
              help="avr: every player reads the hand at the table at each board's start (checked against the deal)")
@click.option("--watchdog-resets", type=click.IntRange(0), default=0, show_default=True,
              help="avr: seat units reset by their watchdog per board (seeded choice of the moment)")
def sim_replay(paths: tuple[str, ...], transport: str, fault_spec: str | None, seed: int | None, jsonl: bool,
               n_decks: int, read_hands: bool, watchdog_resets: int) -> None:
    """Replay records with every call, card and hand read travelling through simulated devices, the wire
    protocol and the drivers; prints the same verdicts as `bridgetable replay`."""
    import hw_sim  # noqa: F401

    from .avr_table import AvrTable
    from .simulated_tables import SimError, SimResult, SimulatedTable, sim_replay_paths

    faults = _faults(fault_spec, seed)
    if (read_hands or watchdog_resets) and transport != "avr":
        raise click.BadParameter("hands read at the table and watchdog resets need the emulated seat units",
                                 param_hint="--transport avr")
    out = sys.stdout
    counts: dict[str, int] = {}
    results: list[SimResult] = []
    try:
        with (AvrTable(faults, n_decks=n_decks, read_hands=read_hands, watchdog_resets=watchdog_resets)
              if transport == "avr"
              else SimulatedTable(transport, faults, n_decks=n_decks)) as table:
            for v in sim_replay_paths(expand(paths), table, results):
                counts[v["status"]] = counts.get(v["status"], 0) + 1
                out.write((json.dumps(v, ensure_ascii=False) if jsonl else human(v)) + "\n")
                out.flush()
                if results and results[-1].mismatches:
                    for m in results[-1].mismatches:
                        click.echo(f"{v['source']}#{v['record']}: device path differs: {m}", err=True)
            health = table.health()
    except SimError as err:
        raise click.ClickException(str(err)) from None
    via = sum(r.via_devices for r in results)
    console = sum(r.console for r in results)
    errors = sum(1 for r in results for e in r.device_notices if e.is_error)
    bad = sum(1 for r in results if r.mismatches)
    summary = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
    hands = f"{sum(r.hands_read for r in results)} hands read at the table; " if read_hands else ""
    click.echo(f"{sum(counts.values())} records: {summary}; {via} events via devices ({transport}), {console} via "
               f"the console; {hands}{errors} device error events; faults {faults}; "
               f"{sum(h['crc_errors'] for h in health)} CRC errors, {sum(h['disconnects'] for h in health)} "
               f"reconnects", err=True)
    if bad:
        click.echo(f"{bad} records arrived differently from the file", err=True)
        sys.exit(1)


@sim.command("devices")
@click.option("--tables", type=int, default=1, show_default=True, help="simulated tables (4 readers + 4 boxes each)")
@click.option("--transport", type=click.Choice(["pty", "tcp"]), default="tcp", show_default=True)
@click.option("--kinds", default="reader,box", show_default=True, help="reader, box, screen (comma-separated)")
@click.option("--faults", "fault_spec", default=None, metavar="SPEC", help="wire/device faults (see docs/devices.md)")
@click.option("--seed", type=int, default=None)
@click.option("--link-dir", type=click.Path(file_okay=False), default=None, help="where pty links are made")
@click.option("--script", "script_path", type=click.Path(exists=True, dir_okay=False), default=None,
              help='JSONL of steps: {"device": "BB-1-N", "after": 1.5, "action": "press", "call": "1NT"}')
@click.option("--decks-out", type=click.Path(dir_okay=False), default=None,
              help="write the simulated club's deck registry (JSON) for the service to load")
@click.option("--duration", type=float, default=None, help="stop after this many seconds (default: Ctrl-C)")
@click.option("--json", "as_json", is_flag=True, help="print the devices as one JSON object")
def sim_devices(tables: int, transport: str, kinds: str, fault_spec: str | None, seed: int | None,
                link_dir: str | None, script_path: str | None, decks_out: str | None,
                duration: float | None, as_json: bool) -> None:
    """Start simulated devices on ptys or TCP ports for a separately running service; print their URLs."""
    import hw_sim  # noqa: F401
    from hw_sim.devices import make_device
    from hw_sim.port import DevicePort

    from .simulated_tables import DEVICE_CONFIG, club_decks

    faults = _faults(fault_spec, seed)
    prefix = {"reader": ("SR", "seat-reader"), "box": ("BB", "bidding-box"), "screen": ("BS", "bidding-screen")}
    wanted = [k.strip() for k in kinds.split(",") if k.strip()]
    for k in wanted:
        if k not in prefix:
            raise click.BadParameter(f"unknown kind {k!r} (reader, box, screen)", param_hint="--kinds")
    ports: dict[str, Any] = {}
    endpoints: list[Any] = []
    listing: list[dict[str, Any]] = []
    for t in range(1, tables + 1):
        for seat in "NESW":
            for k in wanted:
                serial = f"{prefix[k][0]}-{t}-{seat}"
                port = DevicePort(make_device(prefix[k][1], serial, config=DEVICE_CONFIG), faults, name=serial)
                if transport == "pty":
                    from hw_sim.pty import PtyEndpoint
                    ep: Any = PtyEndpoint(port, link_dir, serial)
                else:
                    from hw_sim.tcp import TcpEndpoint
                    ep = TcpEndpoint(port)
                ports[serial] = port
                endpoints.append(ep)
                listing.append({"table": t, "seat": seat, "kind": prefix[k][1], "serial": serial, "url": ep.url})
    if decks_out:
        club_decks().save(decks_out)
    if script_path:
        with open(script_path, encoding="utf-8") as f:
            steps = [json.loads(line) for line in f if line.strip() and not line.startswith("#")]
        for step in steps:
            serial = step.pop("device", None)
            if serial not in ports:
                raise click.BadParameter(f"script names unknown device {serial!r}", param_hint="--script")
            ports[serial].act(lambda d, s=step: d.load_script([s]))
    if as_json:
        click.echo(json.dumps({"devices": listing, "faults": str(faults), "decks": decks_out}))
    else:
        for d in listing:
            click.echo(f"table {d['table']} {d['seat']} {d['kind']:<14} {d['serial']:<10} {d['url']}")
        click.echo(f"{len(listing)} simulated devices ({transport}); faults {faults}; Ctrl-C to stop", err=True)
    sys.stdout.flush()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        stop.wait(duration)
    except KeyboardInterrupt:
        pass
    finally:
        for ep in endpoints:
            ep.close()


def register_commands(main: click.Group) -> None:
    from .firmware_cli import update_command
    devices.add_command(update_command)
    main.add_command(devices)
    main.add_command(sim)
