"""What is plugged in: serial ports (``serial.tools.list_ports``) and USB devices (``usb.core.find``).

Tolerant by design: no ports, no USB devices, no libusb at all, a device whose string descriptors cannot
be read without permission — each gives an empty list or ``None`` fields plus a note, never an exception.
The URL of each entry is what to put in the configuration for a driver.
"""
from __future__ import annotations

import logging
from dataclasses import asdict, dataclass
from typing import Any

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class FoundDevice:
    kind: str                          # "serial" or "usb"
    url: str                           # what open_link() takes
    vid: int | None = None
    pid: int | None = None
    serial_number: str | None = None
    description: str | None = None
    location: str | None = None

    @property
    def vid_pid(self) -> str | None:
        return f"{self.vid:04X}:{self.pid:04X}" if self.vid is not None and self.pid is not None else None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["vid_pid"] = self.vid_pid
        return d


def serial_ports(include_links: bool = False) -> list[FoundDevice]:
    try:
        from serial.tools import list_ports
        ports = list(list_ports.comports(include_links=include_links))
    except Exception as err:              # a broken sysfs, a platform pyserial does not know
        log.warning("listing serial ports failed: %s", err)
        return []
    return [FoundDevice("serial", p.device, p.vid, p.pid, p.serial_number,
                        p.description if p.description != "n/a" else None, p.location)
            for p in sorted(ports, key=lambda p: p.device)]


def usb_devices(backend: Any = None) -> tuple[list[FoundDevice], str | None]:
    """USB devices and a note when they could not be listed (no libusb, no permission)."""
    try:
        import usb.core
        devices = list(usb.core.find(find_all=True, backend=backend))
    except Exception as err:             # NoBackendError, or a libusb failure
        return [], f"USB devices not listed: {err}"
    out = []
    for d in devices:
        sn = product = None
        try:
            sn = d.serial_number
            product = d.product
        except Exception:                  # string descriptors need permission on most systems
            pass
        url = f"usb://{d.idVendor:04x}:{d.idProduct:04x}" + (f"/{sn}" if sn else "")
        out.append(FoundDevice("usb", url, d.idVendor, d.idProduct, sn, product,
                               f"bus {d.bus} address {d.address}" if d.bus is not None else None))
    return out, None


def discover(usb_backend: Any = None, include_links: bool = False) -> dict[str, Any]:
    """Everything found, as plain data: ``{"serial": [...], "usb": [...], "notes": [...]}``."""
    usb_found, note = usb_devices(usb_backend)
    return {"serial": [d.to_dict() for d in serial_ports(include_links)],
            "usb": [d.to_dict() for d in usb_found],
            "notes": [note] if note else []}
