"""hw_sim: fault specs, the device port, and every transport carrying a loopback device (real code paths)."""
from __future__ import annotations

import time

import pytest
import serial
import usb.core
import usb.util

import hw_sim  # noqa: F401  (registers sim://)
from hw_sim import registry
from hw_sim.clock import SkippingClock, VirtualClock
from hw_sim.errors import FaultSpecError, Unplugged
from hw_sim.faults import FaultSpec, WireFaults
from hw_sim.loopback import LoopbackDevice
from hw_sim.port import DevicePort
from hw_sim.pty import serve_pty
from hw_sim.tcp import serve_tcp
from hw_sim.usb_backend import SimUsbBackend


# ---------------------------------------------------------------------------------------------- faults
def test_fault_spec_parses_short_and_long_names():
    s = FaultSpec.parse("corrupt=0.05,drop=0.02,dup=1,unplug=1,seed=7")
    assert (s.corrupt, s.drop, s.dup, s.unplug, s.seed) == (0.05, 0.02, 1.0, 1, 7)
    assert FaultSpec.parse("corrupt_byte=0.1,drop_frame=0.2,duplicate_read,misread_tag=0.5,slow=0.01") == \
        FaultSpec(corrupt=0.1, drop=0.2, dup=1.0, misread=0.5, slow=0.01)
    assert FaultSpec.parse("", seed=3).seed == 3
    assert FaultSpec.parse(str(s)) == s


@pytest.mark.parametrize("bad", ["corrupt=2", "explode=1", "unplug=x", "dir=sideways", "slow=-1"])
def test_fault_spec_rejects_bad_parts_clearly(bad):
    with pytest.raises(FaultSpecError) as err:
        FaultSpec.parse(bad)
    assert bad.split("=")[0] in str(err.value)


def frames(n: int, size: int = 20) -> bytes:
    return b"".join(bytes([1 + (i + k) % 250 for k in range(size)]) + b"\0" for i in range(n))


def test_wire_faults_are_seeded_and_rates_hold():
    data = frames(2000)
    spec = FaultSpec(corrupt=0.05, seed=7)
    a, b = WireFaults(spec, "x"), WireFaults(spec, "x")
    out_a = a.apply(data)
    out_b = b""
    for i in range(0, len(data), 37):                     # chunking does not change the faults
        out_b += b.apply(data[i:i + 37])
    assert out_a == out_b
    changed = sum(x != y for x, y in zip(data, out_a))
    assert changed == a.corrupted
    assert 0.04 < changed / len(data) < 0.06
    assert WireFaults(spec, "y").apply(data) != out_a     # another stream, other faults


def test_drop_frame_drops_whole_frames_only():
    data = frames(1000)
    w = WireFaults(FaultSpec(drop=0.1, seed=1), "x")
    out = w.apply(data)
    kept = out.split(b"\0")[:-1]
    assert len(kept) == 1000 - w.dropped
    assert 60 < w.dropped < 140
    originals = set(data.split(b"\0")[:-1])
    assert all(k in originals for k in kept)


# ---------------------------------------------------------------------------------------------- the port
def test_port_unplug_and_replug_on_a_virtual_clock():
    clock = VirtualClock()
    port = DevicePort(LoopbackDevice("lb"), clock=clock)
    port.host_write(b"abc")
    assert port.host_read() == b"abc"
    port.unplug(0.5)
    with pytest.raises(Unplugged):
        port.host_write(b"x")
    clock.advance(0.6)
    port.host_write(b"back")
    assert port.host_read() == b"back"
    assert port.unplugs == 1 and port.generation == 1


def test_slow_fault_delays_output():
    clock = VirtualClock()
    port = DevicePort(LoopbackDevice("lb"), FaultSpec(slow=0.2), clock=clock)
    port.host_write(b"late")
    assert port.host_read() == b""
    assert port.read_wait(10, 1.0) == b"late"            # the virtual clock advanced instead of sleeping
    assert clock.now() >= 1000.2


# ---------------------------------------------------------------------------------------------- transports
def read_exactly(ser: serial.Serial, n: int, deadline: float = 2.0) -> bytes:
    out = b""
    end = time.monotonic() + deadline
    while len(out) < n and time.monotonic() < end:
        out += ser.read(n - len(out))
    return out


PAYLOAD = bytes(range(256)) + b"\r\n\x11\x13\x00"          # every byte value, XON/XOFF, CR/LF: raw mode


def test_sim_url_through_serial_for_url():
    ser = serial.serial_for_url("sim://loopback-t1", timeout=0.1)
    ser.write(PAYLOAD)
    assert read_exactly(ser, len(PAYLOAD)) == PAYLOAD
    ser.close()
    with pytest.raises(serial.SerialException, match="rate between 0 and 1"):
        serial.serial_for_url("sim://loopback-t2?fault=corrupt=9")
    with pytest.raises(serial.SerialException):
        serial.serial_for_url("sim://no-such-device")


def test_sim_url_faults_and_unplug():
    ser = serial.serial_for_url("sim://loopback-t3?fault=corrupt=1,dir=up&seed=4", timeout=0.05)
    ser.write(b"\x01\x02\x03")
    assert read_exactly(ser, 3) != b"\x01\x02\x03"
    port = registry.get("loopback-t3")
    port.set_faults(FaultSpec())
    port.unplug(0.1)
    with pytest.raises(serial.SerialException):
        ser.read(1)
    with pytest.raises(serial.SerialException):
        serial.serial_for_url("sim://loopback-t3")
    time.sleep(0.15)
    ser = serial.serial_for_url("sim://loopback-t3", timeout=0.05)
    ser.write(b"ok")
    assert read_exactly(ser, 2) == b"ok"


def test_pty_is_a_real_termios_path(tmp_path):
    port = DevicePort(LoopbackDevice("pty-lb"))
    ep = serve_pty(port, tmp_path)
    try:
        assert ep.tty_name and ep.tty_name.startswith("/dev/pts/")
        ser = serial.serial_for_url(ep.url, baudrate=115200, timeout=0.2)
        assert type(ser).__module__ == "serial.serialposix"
        ser.write(PAYLOAD)
        assert read_exactly(ser, len(PAYLOAD)) == PAYLOAD
        port.unplug(0.2)
        with pytest.raises(serial.SerialException):
            for _ in range(20):
                ser.read(1)
        ser.close()
        time.sleep(0.3)
        ser = serial.serial_for_url(ep.url, timeout=0.2)
        ser.write(b"again")
        assert read_exactly(ser, 5) == b"again"
        ser.close()
    finally:
        ep.close()


def test_a_skipping_clock_jumps_ahead_and_a_ptys_device_timers_keep_their_time(tmp_path):
    """The time between two boards skipped (SkippingClock.advance): no sleep, and a timer the device arms after
    the jump (a slow line's 0.3 s) is due 0.3 s later on the reactor's time.monotonic(), not a minute later."""
    clock = SkippingClock()
    port = DevicePort(LoopbackDevice("pty-skip"), FaultSpec(slow=0.3), clock=clock)
    ep = serve_pty(port, tmp_path)
    try:
        ser = serial.serial_for_url(ep.url, timeout=0.1)
        wall, before = time.monotonic(), clock.now()
        clock.advance(60.0)
        assert clock.now() - before >= 60.0 and time.monotonic() - wall < 1.0
        sent = time.monotonic()
        ser.write(b"late")
        assert read_exactly(ser, 4, deadline=10.0) == b"late"
        assert 0.25 <= time.monotonic() - sent < 10.0
        ser.close()
    finally:
        ep.close()


def test_tcp_socket_url():
    port = DevicePort(LoopbackDevice("tcp-lb"))
    ep = serve_tcp(port)
    try:
        assert ep.url.startswith("socket://127.0.0.1:")
        ser = serial.serial_for_url(ep.url, timeout=0.2)
        ser.write(PAYLOAD)
        assert read_exactly(ser, len(PAYLOAD)) == PAYLOAD
        port.unplug(0.2)
        with pytest.raises(serial.SerialException):
            for _ in range(20):
                ser.read(1)
        ser.close()
        time.sleep(0.3)
        ser = serial.serial_for_url(ep.url, timeout=0.2)
        ser.write(b"again")
        assert read_exactly(ser, 5) == b"again"
        ser.close()
    finally:
        ep.close()


def test_simulated_pyusb_backend_runs_the_real_usb_core():
    backend = SimUsbBackend()
    port = DevicePort(LoopbackDevice("usb-lb"))
    backend.add(port, serial_number="SR-0042", product="seat reader")
    found = list(usb.core.find(find_all=True, backend=backend))
    assert [(d.idVendor, d.idProduct) for d in found] == [(0x1209, 0xB710)]
    dev = usb.core.find(idVendor=0x1209, idProduct=0xB710, backend=backend)
    assert dev.serial_number == "SR-0042" and dev.product == "seat reader"
    dev.set_configuration()
    intf = dev.get_active_configuration()[(0, 0)]
    ep_out = usb.util.find_descriptor(intf, custom_match=lambda e: usb.util.endpoint_direction(e.bEndpointAddress)
                                      == usb.util.ENDPOINT_OUT)
    ep_in = usb.util.find_descriptor(intf, custom_match=lambda e: usb.util.endpoint_direction(e.bEndpointAddress)
                                     == usb.util.ENDPOINT_IN)
    assert ep_out.write(b"bulk\x00") == 5
    assert bytes(ep_in.read(64, timeout=100)) == b"bulk\x00"
    with pytest.raises(usb.core.USBTimeoutError):
        ep_in.read(64, timeout=10)
    port.unplug()
    assert usb.core.find(idVendor=0x1209, backend=backend) is None
    with pytest.raises(usb.core.USBError) as err:
        ep_out.write(b"x")
    assert err.value.errno == 19
    port.replug()
    assert usb.core.find(idVendor=0x1209, backend=backend) is not None


@pytest.mark.parametrize("transport", ["tcp", "pty"])
def test_sim_devices_command_serves_a_separate_process(transport, tmp_path):
    """``bridgetable sim devices`` in its own process; a driver here connects to a URL it printed."""
    import json
    import queue
    import subprocess
    import sys

    from drivers.bidding_box import BiddingBoxDriver
    from drivers.config import SeatMap
    from table.events import CallMade

    script = tmp_path / "steps.jsonl"
    script.write_text('{"device": "BB-1-E", "after": 0.3, "action": "press", "call": "2D", "alert": true}\n')
    cmd = [sys.executable, "-m", "bridgetable.cli", "sim", "devices", "--transport", transport, "--kinds", "box",
           "--link-dir", str(tmp_path), "--script", str(script), "--duration", "20", "--json",
           "--decks-out", str(tmp_path / "decks.json")]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        listing = json.loads(proc.stdout.readline())
        assert len(listing["devices"]) == 4 and (tmp_path / "decks.json").exists()
        url = next(d["url"] for d in listing["devices"] if d["serial"] == "BB-1-E")
        events: queue.Queue = queue.Queue()
        drv = BiddingBoxDriver(url, events.put, SeatMap({"BB-1-E": "E"}))
        drv.start(0.02)
        try:
            end = time.monotonic() + 15
            while True:
                ev = events.get(timeout=max(0.01, end - time.monotonic()))
                if isinstance(ev, CallMade):
                    break
            assert (ev.seat, ev.call, ev.alert) == ("E", "2D", True)
        finally:
            drv.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
