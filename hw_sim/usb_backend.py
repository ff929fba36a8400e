"""A pyusb backend (``usb.backend.IBackend``) whose devices are simulated: the real ``usb.core`` code path
(``find``, descriptors, string descriptors, configuration, claiming, bulk transfers) runs over it.

Each simulated device has one configuration with one vendor-specific interface and two bulk endpoints
(IN ``0x81``, OUT ``0x01``, 64-byte packets); the byte stream on them is the simulated device's
(a :class:`hw_sim.port.DevicePort`). The serial number, manufacturer and product are string descriptors
read with real GET_DESCRIPTOR control transfers.

Unplugging removes the device from enumeration; every transfer on a handle opened before the unplug
fails with ``USBError(errno=ENODEV)`` (libusb's ``LIBUSB_ERROR_NO_DEVICE``), so the driver must find the
device again after it comes back.

Not modelled: USB packet boundaries and zero-length packets, bus timing, other control requests than
string/device descriptors and standard configuration/interface requests, interrupt and isochronous
endpoints, suspend/resume, hubs, kernel drivers (``is_kernel_driver_active`` is always False).
"""
from __future__ import annotations

import array
import errno
import itertools
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import usb.backend
import usb.core

from .errors import Unplugged
from .port import DevicePort

VENDOR_ID = 0x1209                # pid.codes; the product ids below are placeholders for the simulators
SEAT_READER_PID = 0xB710
BIDDING_BOX_PID = 0xB711
LANGID_EN_US = 0x0409
EP_IN, EP_OUT, MAX_PACKET = 0x81, 0x01, 64

_DESC_DEVICE, _DESC_CONFIG, _DESC_STRING = 1, 2, 3
_GET_DESCRIPTOR = 6
_addresses = itertools.count(2)


@dataclass
class SimUsbDevice:
    port: DevicePort
    vid: int
    pid: int
    serial_number: str
    manufacturer: str = "bridgetable hw_sim"
    product: str = "simulated device"
    bus: int = 1
    address: int = field(default_factory=lambda: next(_addresses))

    @property
    def strings(self) -> list[str]:
        return [self.manufacturer, self.product, self.serial_number]      # indices 1, 2, 3


@dataclass
class _Handle:
    dev: SimUsbDevice
    generation: int


def _gone(what: str) -> usb.core.USBError:
    return usb.core.USBError(f"{what}: No such device (it may have been disconnected)", -4, errno.ENODEV)


class SimUsbBackend(usb.backend.IBackend):  # type: ignore[misc]  # pyusb has no type information
    """Pass an instance as ``backend=`` to ``usb.core.find`` (or to ``drivers.link.open_link``)."""

    def __init__(self) -> None:
        super().__init__()
        self.devices: list[SimUsbDevice] = []
        self._lock = threading.Lock()

    def add(self, port: DevicePort, vid: int = VENDOR_ID, pid: int = SEAT_READER_PID,
            serial_number: str | None = None, product: str | None = None) -> SimUsbDevice:
        dev = SimUsbDevice(port, vid, pid, serial_number or port.name, product=product or port.name)
        with self._lock:
            self.devices.append(dev)
        return dev

    def remove(self, dev: SimUsbDevice) -> None:
        with self._lock:
            if dev in self.devices:
                self.devices.remove(dev)

    def url_of(self, dev: SimUsbDevice, backend_name: str | None = None) -> str:
        q = f"?backend={backend_name}" if backend_name else ""
        return f"usb://{dev.vid:04x}:{dev.pid:04x}/{dev.serial_number}{q}"

    # ------------------------------------------------------------------ enumeration and descriptors
    def enumerate_devices(self) -> Iterator[SimUsbDevice]:
        with self._lock:
            devices = list(self.devices)
        for d in devices:
            d.port.tick()
            if d.port.plugged:
                yield d

    def get_parent(self, dev: SimUsbDevice) -> None:
        return None

    def get_device_descriptor(self, dev: SimUsbDevice) -> Any:
        return SimpleNamespace(bLength=18, bDescriptorType=_DESC_DEVICE, bcdUSB=0x0200, bDeviceClass=0,
                               bDeviceSubClass=0, bDeviceProtocol=0, bMaxPacketSize0=64, idVendor=dev.vid,
                               idProduct=dev.pid, bcdDevice=0x0100, iManufacturer=1, iProduct=2, iSerialNumber=3,
                               bNumConfigurations=1, address=dev.address, bus=dev.bus, port_number=dev.address,
                               port_numbers=(dev.address,), speed=3)       # 3: full speed

    def get_configuration_descriptor(self, dev: SimUsbDevice, config: int) -> Any:
        if config != 0:
            raise IndexError("configuration index out of range")
        return SimpleNamespace(bLength=9, bDescriptorType=_DESC_CONFIG, wTotalLength=32, bNumInterfaces=1,
                               bConfigurationValue=1, iConfiguration=0, bmAttributes=0x80, bMaxPower=50,
                               extra_descriptors=[])

    def get_interface_descriptor(self, dev: SimUsbDevice, intf: int, alt: int, config: int) -> Any:
        if config != 0 or intf != 0 or alt != 0:
            raise IndexError("interface index out of range")
        return SimpleNamespace(bLength=9, bDescriptorType=4, bInterfaceNumber=0, bAlternateSetting=0,
                               bNumEndpoints=2, bInterfaceClass=0xFF, bInterfaceSubClass=0, bInterfaceProtocol=0,
                               iInterface=0, extra_descriptors=[])

    def get_endpoint_descriptor(self, dev: SimUsbDevice, ep: int, intf: int, alt: int, config: int) -> Any:
        if config != 0 or intf != 0 or alt != 0 or ep not in (0, 1):
            raise IndexError("endpoint index out of range")
        return SimpleNamespace(bLength=7, bDescriptorType=5, bEndpointAddress=(EP_IN, EP_OUT)[ep], bmAttributes=2,
                               wMaxPacketSize=MAX_PACKET, bInterval=0, bRefresh=0, bSynchAddress=0,
                               extra_descriptors=[])

    # ------------------------------------------------------------------ handles
    def open_device(self, dev: SimUsbDevice) -> _Handle:
        dev.port.tick()
        if not dev.port.plugged:
            raise _gone("open")
        return _Handle(dev, dev.port.generation)

    def close_device(self, dev_handle: _Handle) -> None:
        pass

    def _check(self, h: _Handle, what: str) -> DevicePort:
        port = h.dev.port
        port.tick()
        if not port.plugged or port.generation != h.generation:
            raise _gone(what)
        return port

    def set_configuration(self, dev_handle: _Handle, config_value: int) -> None:
        self._check(dev_handle, "set_configuration")

    def get_configuration(self, dev_handle: _Handle) -> int:
        self._check(dev_handle, "get_configuration")
        return 1

    def set_interface_altsetting(self, dev_handle: _Handle, intf: int, altsetting: int) -> None:
        self._check(dev_handle, "set_interface_altsetting")

    def claim_interface(self, dev_handle: _Handle, intf: int) -> None:
        self._check(dev_handle, "claim_interface")

    def release_interface(self, dev_handle: _Handle, intf: int) -> None:
        pass

    def is_kernel_driver_active(self, dev_handle: _Handle, intf: int) -> bool:
        return False

    def detach_kernel_driver(self, dev_handle: _Handle, intf: int) -> None:
        pass

    def attach_kernel_driver(self, dev_handle: _Handle, intf: int) -> None:
        pass

    def clear_halt(self, dev_handle: _Handle, ep: int) -> None:
        self._check(dev_handle, "clear_halt")

    def reset_device(self, dev_handle: _Handle) -> None:
        self._check(dev_handle, "reset")

    # ------------------------------------------------------------------ transfers
    def bulk_write(self, dev_handle: _Handle, ep: int, intf: int, data: array.array[int], timeout: int) -> int:
        if ep != EP_OUT:
            raise usb.core.USBError("Pipe error", -9, errno.EPIPE)
        port = self._check(dev_handle, "bulk_write")
        raw = data.tobytes()
        try:
            port.host_write(raw)
        except Unplugged:
            raise _gone("bulk_write") from None
        return len(raw)

    def bulk_read(self, dev_handle: _Handle, ep: int, intf: int, buff: array.array[int], timeout: int) -> int:
        if ep != EP_IN:
            raise usb.core.USBError("Pipe error", -9, errno.EPIPE)
        port = self._check(dev_handle, "bulk_read")
        try:
            data = port.read_wait(len(buff) * buff.itemsize, None if timeout == 0 else timeout / 1000.0)
        except Unplugged:
            raise _gone("bulk_read") from None
        if port.generation != dev_handle.generation:
            raise _gone("bulk_read")
        if not data:
            raise usb.core.USBTimeoutError("Operation timed out", -7, errno.ETIMEDOUT)
        memoryview(buff).cast("B")[:len(data)] = data
        return len(data)

    def ctrl_transfer(self, dev_handle: _Handle, bmRequestType: int, bRequest: int, wValue: int, wIndex: int,
                      data: array.array[int], timeout: int) -> Any:
        self._check(dev_handle, "ctrl_transfer")
        if bmRequestType & 0x80 and bRequest == _GET_DESCRIPTOR:
            kind, index = wValue >> 8, wValue & 0xFF
            if kind == _DESC_STRING:
                if index == 0:
                    payload = LANGID_EN_US.to_bytes(2, "little")
                elif 1 <= index <= 3:
                    payload = dev_handle.dev.strings[index - 1].encode("utf-16-le")
                else:
                    raise usb.core.USBError("Pipe error", -9, errno.EPIPE)
                desc = bytes([2 + len(payload), _DESC_STRING]) + payload
            elif kind == _DESC_DEVICE:
                d = self.get_device_descriptor(dev_handle.dev)
                desc = bytes([18, 1, 0, 2, 0, 0, 0, 64]) + d.idVendor.to_bytes(2, "little") + \
                    d.idProduct.to_bytes(2, "little") + bytes([0, 1, 1, 2, 3, 1])
            else:
                raise usb.core.USBError("Pipe error", -9, errno.EPIPE)
            n = min(len(desc), len(data) * data.itemsize)
            memoryview(data).cast("B")[:n] = desc[:n]      # usb.core slices its buffer to the count returned
            return n
        if not bmRequestType & 0x80:
            return len(data) * data.itemsize if data is not None else 0
        raise usb.core.USBError("Pipe error", -9, errno.EPIPE)
