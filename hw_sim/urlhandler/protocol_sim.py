"""pyserial handler for ``sim://NAME[?fault=SPEC][&seed=N]``: an in-process simulated device.

``serial.serial_for_url("sim://seat-reader-1?fault=corrupt=0.05,seed=7")`` returns a pyserial object
whose reads and writes go straight to the registered :class:`hw_sim.port.DevicePort` (see
``hw_sim.registry``), with the named faults applied. Reads honour pyserial's ``timeout``; on a port
with a virtual clock a read that would wait advances the clock instead.

An unplugged device makes reads and writes raise ``SerialException`` and ``open()`` fail until it is
back, like a USB-serial adapter that disappears. Not modelled: baud rate, modem lines, break.
"""
from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from serial.serialutil import PortNotOpenError, SerialBase, SerialException, SerialTimeoutException, to_bytes

from hw_sim.errors import FaultSpecError, NoSuchDevice, Unplugged
from hw_sim.faults import FaultSpec
from hw_sim.port import DevicePort
from hw_sim.registry import get_or_create


def parse_sim_url(url: str) -> tuple[str, FaultSpec | None]:
    parts = urlsplit(url)
    if parts.scheme != "sim":
        raise SerialException(f"expected a sim://NAME URL, not {url!r}")
    name = (parts.netloc + parts.path).strip("/")
    if not name:
        raise SerialException(f"{url!r}: sim:// needs a device name (sim://seat-reader-1)")
    query = parse_qs(parts.query, keep_blank_values=True)
    unknown = set(query) - {"fault", "faults", "seed"}
    if unknown:
        raise SerialException(f"{url!r}: unknown option(s) {', '.join(sorted(unknown))} (fault, seed)")
    specs = query.get("fault") or query.get("faults")
    spec = specs[-1] if specs else None
    seeds = query.get("seed")
    seed = seeds[-1] if seeds else None
    if spec is None and seed is None:
        return name, None
    try:
        return name, FaultSpec.parse(spec, int(seed) if seed is not None else None)
    except (FaultSpecError, ValueError) as err:
        raise SerialException(f"{url!r}: {err}") from err


class Serial(SerialBase):  # type: ignore[misc]  # pyserial has no type information
    """A pyserial port onto an in-process simulated device."""
    is_open: bool                                  # set by SerialBase.__init__

    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        self._dev_port: DevicePort | None = None
        self._generation = -1
        super().__init__(*args, **kwargs)

    def open(self) -> None:
        if self.is_open:
            raise SerialException("Port is already open.")
        if self._port is None:
            raise SerialException("Port must be configured before it can be used.")
        name, faults = parse_sim_url(self.portstr)
        try:
            port = get_or_create(name, faults or FaultSpec())
        except NoSuchDevice as err:
            raise SerialException(str(err)) from err
        if faults is not None and faults != port.faults:
            port.set_faults(faults)
        port.tick()
        if not port.plugged:
            raise SerialException(f"could not open port {self.portstr}: device unplugged")
        self._dev_port = port
        self._generation = port.generation
        self.is_open = True

    def close(self) -> None:
        self.is_open = False
        self._dev_port = None

    def _reconfigure_port(self) -> None:       # nothing to configure on a simulated wire
        pass

    def _port_or_raise(self) -> DevicePort:
        if not self.is_open or self._dev_port is None:
            raise PortNotOpenError()
        if self._dev_port.generation != self._generation:
            raise SerialException(f"{self.portstr}: device disconnected")
        return self._dev_port

    @property
    def in_waiting(self) -> int:
        port = self._port_or_raise()
        try:
            return port.available()
        except Unplugged as err:
            raise SerialException(f"{self.portstr}: device disconnected") from err

    def read(self, size: int = 1) -> bytes:
        port = self._port_or_raise()
        out = bytearray()
        try:
            out += port.read_wait(size, self._timeout)
            while len(out) < size and self._timeout is None:     # blocking read: wait for all of it
                out += port.read_wait(size - len(out), None)
        except Unplugged as err:
            raise SerialException(f"{self.portstr}: device disconnected") from err
        if self._dev_port is not None and self._dev_port.generation != self._generation:
            raise SerialException(f"{self.portstr}: device disconnected")
        return bytes(out)

    def write(self, data: bytes) -> int:
        port = self._port_or_raise()
        data = to_bytes(data)
        try:
            port.host_write(data)
        except Unplugged as err:
            raise SerialException(f"{self.portstr}: device disconnected") from err
        return len(data)

    def reset_input_buffer(self) -> None:
        port = self._port_or_raise()
        try:
            port.host_read(1 << 30)
        except Unplugged:
            pass

    def reset_output_buffer(self) -> None:
        self._port_or_raise()

    @property
    def out_waiting(self) -> int:
        return 0

    def cancel_read(self) -> None:
        pass

    def cancel_write(self) -> None:
        pass

    def _update_break_state(self) -> None:
        pass

    def _update_rts_state(self) -> None:
        pass

    def _update_dtr_state(self) -> None:
        pass

    @property
    def cts(self) -> bool:
        return True

    @property
    def dsr(self) -> bool:
        return True

    @property
    def ri(self) -> bool:
        return False

    @property
    def cd(self) -> bool:
        return True


__all__ = ["Serial", "parse_sim_url", "SerialTimeoutException"]
