"""The narrow link a driver talks through: ``read(max, timeout)``, ``write(bytes)``, ``close()``, ``url``.

A driver never opens its own port (docs/devices.md); it is handed a ``Link`` opened from a URL:

- anything ``serial.serial_for_url`` understands — a device path (``/dev/ttyUSB0``, a pty path),
  ``socket://host:port``, ``loop://``, ``sim://NAME`` once ``hw_sim`` is imported — becomes a
  :class:`SerialLink`;
- ``usb://VID:PID[/SERIAL][?backend=NAME]`` (hex VID/PID) becomes a :class:`UsbLink` over the first bulk
  IN/OUT endpoint pair found by pyusb (``usb.core.find(idVendor=..., idProduct=..., backend=...)``). The
  pyusb backend is injectable: pass ``usb_backend=`` or name one registered with
  :func:`register_usb_backend` (a test registers the simulated backend of ``hw_sim.usb_backend``).

``identity`` is what the transport knows (the URL, VID/PID and the serial-number string descriptor for
USB); the device's real identity comes from the protocol handshake, not from the port name.
Serial, socket and USB errors are wrapped as :class:`~drivers.errors.LinkError` / ``LinkClosed`` with
``from err``.
"""
from __future__ import annotations

import errno
import logging
import os
import re
import select
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit

from .errors import LinkClosed, LinkError

log = logging.getLogger(__name__)

DEFAULT_BAUDRATE = 500000     # docs/protocol.md §2: exact from a 16 MHz AVR (U2X, UBRR 3)

USB_BACKENDS: dict[str, Callable[[], Any]] = {}
"""Named pyusb backend factories for ``usb://...?backend=NAME`` URLs."""


def register_usb_backend(name: str, factory: Callable[[], Any]) -> None:
    """Make ``usb://...?backend=NAME`` use ``factory()`` as its pyusb backend."""
    USB_BACKENDS[name] = factory


class Link(ABC):
    """A byte stream to one device. ``read`` returns ``b""`` on timeout and raises ``LinkClosed`` when the
    device has gone; ``write`` sends everything or raises."""

    url: str

    @abstractmethod
    def read(self, max_bytes: int = 4096, timeout: float | None = 0.05) -> bytes:
        """Up to ``max_bytes`` bytes; waits at most ``timeout`` seconds for the first one."""

    @abstractmethod
    def write(self, data: bytes) -> None:
        """Send all of ``data``."""

    @abstractmethod
    def close(self) -> None:
        """Release the port; idempotent."""

    @property
    @abstractmethod
    def closed(self) -> bool: ...

    def fileno(self) -> int | None:
        """A file descriptor that turns readable when bytes arrive, or None (USB, in-process links)."""
        return None

    @property
    def identity(self) -> dict[str, Any]:
        """What the transport knows about the device (at least ``transport`` and ``url``)."""
        return {"transport": self.url.split("://", 1)[0] if "://" in self.url else "serial", "url": self.url}

    def __enter__(self) -> Link:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.url}{' closed' if self.closed else ''}>"


class SerialLink(Link):
    """A link over a pyserial object (anything ``serial.serial_for_url`` returns).

    For a local port (``serial.serialposix``: a tty, a pty) pyserial opens and configures the port
    (termios, raw mode, baud rate) and the link then reads and writes its non-blocking descriptor itself,
    waiting with ``poll()``: pyserial's read/write wait with ``select()``, which cannot take descriptors
    above 1023 — and a host with hundreds of ports has those. Every other kind goes through pyserial.
    """

    def __init__(self, ser: Any, url: str | None = None) -> None:
        self._ser = ser
        self.url = url or str(ser.port)
        self._timeout: float | None = ser.timeout
        # pyserial's socket:// in_waiting is 1 when readable, not a byte count
        self._exact_in_waiting = type(ser).__module__ != "serial.urlhandler.protocol_socket"
        self._posix = type(ser).__module__ == "serial.serialposix" and isinstance(getattr(ser, "fd", None), int)
        # socket:// (pyserial opened and connected it, non-blocking): read and write the socket directly,
        # for the same select() limit and because pyserial's read costs a select() call per read
        self._tcp = not self._exact_in_waiting and getattr(ser, "_socket", None) is not None

    @classmethod
    def open(cls, url: str, baudrate: int = DEFAULT_BAUDRATE, write_timeout: float = 2.0) -> SerialLink:
        import serial
        try:
            ser = serial.serial_for_url(url, baudrate=baudrate, timeout=0.05, write_timeout=write_timeout)
        except (serial.SerialException, OSError, ValueError) as err:
            raise LinkError(f"cannot open {url}: {err}") from err
        return cls(ser, url)

    @property
    def serial(self) -> Any:
        """The pyserial object (for tests and diagnostics)."""
        return self._ser

    @property
    def identity(self) -> dict[str, Any]:
        """The URL, and for a local USB-serial port what the OS says of its adapter (VID/PID, serial)."""
        out = super().identity
        if "://" not in self.url:
            out["transport"] = "serial"
            try:
                from serial.tools import list_ports
                real = os.path.realpath(self.url)
                for p in list_ports.comports():
                    if os.path.realpath(p.device) == real:
                        out.update(vid=p.vid, pid=p.pid, serial_number=p.serial_number, description=p.description)
                        break
            except Exception:                      # identity is a courtesy; the handshake is the truth
                pass
        return out

    def fileno(self) -> int | None:
        try:
            return int(self._ser.fileno())
        except Exception:                      # sim://, loop://: no descriptor
            return None

    @property
    def closed(self) -> bool:
        return not self._ser.is_open

    def _set_timeout(self, timeout: float | None) -> None:
        if timeout != self._timeout:             # setting a pyserial timeout reconfigures the port: only on change
            self._ser.timeout = timeout
            self._timeout = timeout

    def read(self, max_bytes: int = 4096, timeout: float | None = 0.05) -> bytes:
        import serial
        ser = self._ser
        if not ser.is_open:
            raise LinkClosed(f"{self.url} is closed")
        try:
            if self._posix:
                return self._read_fd(ser.fd, max_bytes, timeout)
            if self._tcp:
                return self._read_sock(ser._socket, max_bytes, timeout)
            if timeout == 0:                     # whatever is there, at once (a pool's readable descriptor)
                self._set_timeout(0)
                return bytes(ser.read(max_bytes))
            self._set_timeout(timeout)
            data = ser.read(1)                   # wait for the first byte
            if not data or max_bytes <= 1:
                return bytes(data)
            if self._exact_in_waiting:
                waiting = ser.in_waiting
                if waiting:
                    data += ser.read(min(waiting, max_bytes - 1))
                return bytes(data)
            self._set_timeout(0)                 # socket://: in_waiting only says "something": read it all
            return bytes(data + ser.read(max_bytes - 1))
        except serial.SerialTimeoutException as err:
            raise LinkError(f"{self.url}: {err}") from err
        except (serial.SerialException, OSError) as err:
            raise LinkClosed(f"{self.url}: {err}") from err

    def _read_fd(self, fd: int, max_bytes: int, timeout: float | None) -> bytes:
        """A posix port read straight from its non-blocking descriptor, waiting with poll(): pyserial's
        own read and write call select(), which fails for descriptors above 1023, and a host serving
        hundreds of ports has those. pyserial still opens and configures the port (termios)."""
        try:
            data = os.read(fd, max_bytes)
        except BlockingIOError:
            data = b""
        if data:
            return data
        if timeout == 0:
            if _hung_up(fd):                     # a raw tty reads 0 bytes for "nothing yet"; poll tells
                raise LinkClosed(f"{self.url}: device disconnected")
            return b""
        p = select.poll()
        p.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
        if not p.poll(None if timeout is None else max(1, int(timeout * 1000))):
            return b""
        try:
            data = os.read(fd, max_bytes)
        except BlockingIOError:
            return b""
        if not data:
            raise LinkClosed(f"{self.url}: device disconnected")
        return data

    def _read_sock(self, sock: Any, max_bytes: int, timeout: float | None) -> bytes:
        if sock is None:
            raise LinkClosed(f"{self.url} is closed")
        data: bytes | None
        for attempt in (0, 1):
            try:
                data = sock.recv(max_bytes)
            except BlockingIOError:
                data = None
            if data is not None:
                if not data:                       # an orderly shutdown by the peer
                    raise LinkClosed(f"{self.url}: connection closed by the device")
                return data
            if attempt or timeout == 0:
                return b""
            p = select.poll()
            p.register(sock.fileno(), select.POLLIN | select.POLLHUP | select.POLLERR)
            if not p.poll(None if timeout is None else max(1, int(timeout * 1000))):
                return b""
        return b""

    def _write_sock(self, sock: Any, data: bytes) -> None:
        if sock is None:
            raise LinkClosed(f"{self.url} is closed")
        view = memoryview(data)
        wait_ms = int((self._ser.write_timeout or 2.0) * 1000)
        while view:
            try:
                view = view[sock.send(view):]
            except BlockingIOError:
                p = select.poll()
                p.register(sock.fileno(), select.POLLOUT | select.POLLHUP | select.POLLERR)
                if not p.poll(wait_ms):
                    raise LinkError(f"{self.url}: write timed out") from None

    def _write_fd(self, fd: int, data: bytes) -> None:
        view = memoryview(data)
        wait_ms = int((self._ser.write_timeout or 2.0) * 1000)
        while view:
            try:
                view = view[os.write(fd, view):]
            except BlockingIOError:
                p = select.poll()
                p.register(fd, select.POLLOUT | select.POLLHUP | select.POLLERR)
                if not p.poll(wait_ms):
                    raise LinkError(f"{self.url}: write timed out") from None

    def write(self, data: bytes) -> None:
        import serial
        ser = self._ser
        if not ser.is_open:
            raise LinkClosed(f"{self.url} is closed")
        try:
            if self._posix:
                self._write_fd(ser.fd, data)
                return
            if self._tcp:
                self._write_sock(ser._socket, data)
                return
            ser.write(data)
        except serial.SerialTimeoutException as err:
            raise LinkError(f"{self.url}: write timed out") from err
        except (serial.SerialException, OSError) as err:
            raise LinkClosed(f"{self.url}: {err}") from err

    def close(self) -> None:
        ser = self._ser
        try:
            sock = getattr(ser, "_socket", None)
            if sock is not None and self.url.lower().startswith("socket://"):
                # pyserial's socket close sleeps 0.3 s "for quick reconnects": close the socket ourselves
                ser._socket = None
                ser.is_open = False
                try:
                    sock.shutdown(2)
                finally:
                    sock.close()
                return
            ser.close()
        except Exception:                       # closing a dead port must not raise
            log.debug("closing %s failed", self.url, exc_info=True)


def _hung_up(fd: int) -> bool:
    """Is a descriptor that just read 0 bytes at its end (readable or hung up), rather than merely idle?"""
    p = select.poll()
    p.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
    return bool(p.poll(0))


_USB_URL = re.compile(r"^usb://([0-9a-fA-F]{1,4}):([0-9a-fA-F]{1,4})(?:/([^?]*))?(?:\?.*)?$")
_GONE = {errno.ENODEV, errno.EIO, errno.EPIPE, errno.ESHUTDOWN, errno.ENOENT}


def parse_usb_url(url: str) -> tuple[int, int, str | None, dict[str, str]]:
    """``usb://1209:b710/SR-0001?backend=sim`` -> ``(0x1209, 0xb710, "SR-0001", {"backend": "sim"})``."""
    m = _USB_URL.match(url)
    if not m:
        raise LinkError(f"not a USB URL (usb://VID:PID[/SERIAL][?backend=NAME], hex ids): {url!r}")
    query = {k: v[-1] for k, v in parse_qs(urlsplit(url).query).items()}
    return int(m.group(1), 16), int(m.group(2), 16), m.group(3) or None, query


class UsbLink(Link):
    """A link over the bulk IN/OUT endpoints of a pyusb device."""

    def __init__(self, dev: Any, ep_in: Any, ep_out: Any, interface: int, url: str) -> None:
        self._dev = dev
        self._ep_in = ep_in
        self._ep_out = ep_out
        self._interface = interface
        self._buf = bytearray()
        self._closed = False
        self.url = url
        self._identity: dict[str, Any] = {"transport": "usb", "url": url, "vid": dev.idVendor, "pid": dev.idProduct,
                                          "bus": dev.bus, "address": dev.address}
        for key in ("serial_number", "manufacturer", "product"):
            try:
                self._identity[key] = getattr(dev, key)
            except Exception:                   # a device with no string descriptors (or no permission)
                self._identity[key] = None

    @classmethod
    def open(cls, url: str, backend: Any = None) -> UsbLink:
        import usb.core
        import usb.util
        vid, pid, serial_number, query = parse_usb_url(url)
        if backend is None and "backend" in query:
            try:
                backend = USB_BACKENDS[query["backend"]]()
            except KeyError:
                raise LinkError(f"{url}: no USB backend registered as {query['backend']!r}") from None
        try:
            found = list(usb.core.find(find_all=True, idVendor=vid, idProduct=pid, backend=backend))
            if serial_number is not None:
                found = [d for d in found if _serial_of(d) == serial_number]
        except usb.core.NoBackendError as err:
            raise LinkError(f"{url}: no libusb backend available ({err})") from err
        except (usb.core.USBError, ValueError) as err:
            raise LinkError(f"{url}: {err}") from err
        if not found:
            raise LinkClosed(f"{url}: no such USB device")
        dev = found[0]
        try:
            try:
                cfg = dev.get_active_configuration()
            except usb.core.USBError:
                dev.set_configuration()
                cfg = dev.get_active_configuration()
            for intf in cfg:
                ep_in = usb.util.find_descriptor(intf, custom_match=_bulk(usb.util.ENDPOINT_IN))
                ep_out = usb.util.find_descriptor(intf, custom_match=_bulk(usb.util.ENDPOINT_OUT))
                if ep_in is not None and ep_out is not None:
                    break
            else:
                raise LinkError(f"{url}: no interface with bulk IN and OUT endpoints")
            try:
                if dev.is_kernel_driver_active(intf.bInterfaceNumber):
                    dev.detach_kernel_driver(intf.bInterfaceNumber)
            except (NotImplementedError, usb.core.USBError):
                pass
            usb.util.claim_interface(dev, intf.bInterfaceNumber)
        except usb.core.USBError as err:
            raise _usb_error(url, err) from err
        return cls(dev, ep_in, ep_out, intf.bInterfaceNumber, url)

    @property
    def identity(self) -> dict[str, Any]:
        return dict(self._identity)

    @property
    def closed(self) -> bool:
        return self._closed

    def read(self, max_bytes: int = 4096, timeout: float | None = 0.05) -> bytes:
        import usb.core
        if self._closed:
            raise LinkClosed(f"{self.url} is closed")
        if not self._buf:
            packet = self._ep_in.wMaxPacketSize or 64
            size = max(packet, (max_bytes + packet - 1) // packet * packet)   # whole packets: no overflow
            ms = 0 if timeout is None else max(1, int(timeout * 1000))       # pyusb: 0 means wait forever
            try:
                self._buf += bytes(self._dev.read(self._ep_in.bEndpointAddress, size, timeout=ms))
            except usb.core.USBTimeoutError:
                return b""
            except usb.core.USBError as err:
                raise _usb_error(self.url, err) from err
        data = bytes(self._buf[:max_bytes])
        del self._buf[:max_bytes]
        return data

    def write(self, data: bytes) -> None:
        import usb.core
        if self._closed:
            raise LinkClosed(f"{self.url} is closed")
        try:
            sent = 0
            while sent < len(data):
                sent += self._dev.write(self._ep_out.bEndpointAddress, data[sent:], timeout=2000)
        except usb.core.USBError as err:
            raise _usb_error(self.url, err) from err

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            import usb.util
            usb.util.release_interface(self._dev, self._interface)
            usb.util.dispose_resources(self._dev)
        except Exception:
            log.debug("closing %s failed", self.url, exc_info=True)


def _serial_of(dev: Any) -> str | None:
    try:
        serial: str | None = dev.serial_number
        return serial
    except Exception:
        return None


def _bulk(direction: int) -> Callable[[Any], bool]:
    import usb.util

    def match(ep: Any) -> bool:
        return bool(usb.util.endpoint_direction(ep.bEndpointAddress) == direction
                    and usb.util.endpoint_type(ep.bmAttributes) == usb.util.ENDPOINT_TYPE_BULK)
    return match


def _usb_error(url: str, err: Exception) -> LinkError:
    code = getattr(err, "errno", None)
    if code in _GONE or getattr(err, "backend_error_code", None) == -4:     # LIBUSB_ERROR_NO_DEVICE
        return LinkClosed(f"{url}: {err}")
    return LinkError(f"{url}: {err}")


def open_link(url: str, *, usb_backend: Any = None, baudrate: int = DEFAULT_BAUDRATE) -> Link:
    """Open the link a URL names (see the module docstring); raises ``LinkError``/``LinkClosed``."""
    if url.lower().startswith("usb://"):
        return UsbLink.open(url, backend=usb_backend)
    return SerialLink.open(url, baudrate=baudrate)
