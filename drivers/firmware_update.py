"""Updates over the link: the host's half of the seat unit's boot loader on an open serial port (pyserial),
with the messages of :mod:`firmware_host.boot`.

:func:`update` takes a unit's seat-reader port and a :class:`FirmwareImage` (an Intel HEX file). If the
application runs, a host session asks it for the boot loader (ENTER_BOOTLOADER with the session id of its
HELLO); the boot loader then answers one request at a time: WRITE each 256-byte page (it erases, writes
and reads back), COMMIT (it computes the CRC-32 of the whole image in flash and, only if it matches,
records the image as valid), START (it jumps into the new application). Each request is idempotent and
repeated when its answer does not come. A link lost mid-way raises :class:`UpdateError`; the unit stays in
its boot loader (the old image's record was erased before the first write) and the next :func:`update`
starts over. :func:`probe` reads what a port runs (application version, or boot loader) without changing it.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from firmware_host import Frame, FrameDecoder, HostSession, LinkState, encode_frame
from firmware_host.boot import PAGE, BootInfo, BootStatus, BootType, FirmwareImage, UpdateError
from firmware_host.constants import FrameFlags
from firmware_host.messages import EnterBootloader, Nack

__all__ = ["UpdateReport", "Probe", "BootLink", "AppLink", "LinkGone", "update", "probe"]


class LinkGone(UpdateError):
    """The port went away under the update (a pulled cable: the device node is gone)."""


class SerialPort(Protocol):
    def read(self, size: int = 1) -> bytes: ...
    def write(self, data: bytes) -> int | None: ...
    def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class UpdateReport:
    version: str
    pages: int
    size: int
    crc: int
    retries: int
    seconds: float
    entered_from_app: bool
    restarts: int = 0         # the boot loader started again during the transfer (a reset, a power cut)


@dataclass(frozen=True, slots=True)
class Probe:
    firmware: str | None      # the application's version (its HELLO), or None
    boot: BootInfo | None     # the boot loader's answer when the unit waits in it
    serial: str | None = None


class BootLink:
    """Stop-and-wait requests to the boot loader on an open port."""

    def __init__(self, port: SerialPort) -> None:
        self.port = port
        self.decoder = FrameDecoder()
        self.seq = 0
        self.retries = 0
        self.announced: list[BootInfo] = []

    def _read(self) -> list[Frame]:
        try:
            data = self.port.read(4096)
        except OSError as err:                        # a pulled cable: the device node is gone
            raise LinkGone(f"the link went away: {err}") from err
        return [f for f in self.decoder.feed(data) if not f.flags & FrameFlags.FROM_HOST]

    def _send(self, type_: int, payload: bytes) -> None:
        try:
            self.port.write(encode_frame(Frame(type_, self.seq, 0, FrameFlags.FROM_HOST, payload)))
        except OSError as err:
            raise LinkGone(f"the link went away: {err}") from err

    def request(self, type_: BootType, payload: bytes = b"", *, timeout: float = 1.0, tries: int = 8) -> Frame:
        answer = BootType.INFO if type_ is BootType.QUERY else BootType.RESULT
        self.seq = self.seq % 255 + 1                 # 1..255: seq 0 is the boot loader's announcement
        for attempt in range(tries):
            if attempt:
                self.retries += 1
            self._send(type_, payload)
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                for f in self._read():
                    if f.type == BootType.INFO and f.seq == 0:
                        self.announced.append(BootInfo.decode(f.payload))
                    if f.type == answer and f.seq == self.seq and (
                            answer is BootType.INFO or f.payload[:1] == bytes((type_,))):
                        return f
        raise UpdateError(f"the boot loader did not answer {type_.name} ({tries} tries)")

    def result(self, type_: BootType, payload: bytes = b"", *, timeout: float = 1.0,
               tries: int = 8) -> tuple[BootStatus, int]:
        p = self.request(type_, payload, timeout=timeout, tries=tries).payload
        if len(p) != 6:
            raise UpdateError(f"malformed BOOT_RESULT ({len(p)} bytes)")
        return BootStatus(p[1]), int.from_bytes(p[2:6], "little")


class AppLink:
    """A host session with the running application on an open port."""

    def __init__(self, port: SerialPort) -> None:
        self.port = port
        self.session = HostSession()
        self.t0 = time.monotonic()
        self.nacks: list[Nack] = []
        self.write(self.session.start(0))

    def now(self) -> int:
        return int((time.monotonic() - self.t0) * 1000)

    def write(self, data: bytes) -> None:
        try:
            self.port.write(data)
        except OSError as err:
            raise LinkGone(f"the link went away: {err}") from err

    def send(self, msg: EnterBootloader) -> None:
        """A reliable message to the application (retransmitted by :meth:`pump` until acked)."""
        self.write(self.session.send(msg, now_ms=self.now()))

    def pump(self) -> None:
        try:
            data = self.port.read(4096)
        except OSError as err:
            raise LinkGone(f"the link went away: {err}") from err
        self.nacks += [m for m in self.session.receive(data, self.now()) if isinstance(m, Nack)]
        self.write(self.session.poll(self.now()))

    def hello(self, timeout: float) -> bool:
        """True once the application's HELLO is answered (within ``timeout`` s)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.pump()
            if self.session.state is LinkState.READY and self.session.peer is not None:
                return True
        return False


def _ask_boot(link: BootLink, timeout: float, tries: int) -> BootInfo | None:
    """The boot loader's BOOT_INFO, or None when nothing answers as one (the application ignores QUERY)."""
    try:
        return BootInfo.decode(link.request(BootType.QUERY, timeout=timeout, tries=tries).payload)
    except LinkGone:
        raise
    except UpdateError:
        return None


def probe(port: SerialPort, *, timeout: float = 3.0) -> Probe:
    """What the unit on ``port`` runs: its application (version from HELLO) or its boot loader."""
    info = _ask_boot(BootLink(port), 0.3, 2)
    if info is not None:
        return Probe(None, info)
    app = AppLink(port)
    if not app.hello(timeout) or app.session.peer is None:
        raise UpdateError(f"no answer in {timeout:g} s: neither the application nor the boot loader")
    return Probe(app.session.peer.firmware, None, app.session.peer.serial)


def _enter(port: SerialPort, link: BootLink, timeout: float) -> bool:
    """Bring the unit into its boot loader; True when the application was running."""
    if _ask_boot(link, 0.3, 2) is not None:
        return False                                  # already there (an earlier update was cut short)
    app = AppLink(port)
    if not app.hello(timeout) or app.session.peer is None:
        raise UpdateError(f"no HELLO from the application in {timeout:g} s, and no boot loader")
    app.send(EnterBootloader(app.session.peer.session_id))
    acked_by = time.monotonic() + 2.0
    while app.session.pending and time.monotonic() < acked_by:   # retransmitted until the unit acks it
        app.pump()
    if app.nacks:
        raise UpdateError(f"the unit refused ENTER_BOOTLOADER ({app.nacks[0].code!r}): its firmware has no update "
                          "path; flash it once with a programmer (docs/hardware.md §4)")
    if _ask_boot(link, 0.5, max(1, int(timeout / 0.5))) is None:   # then the unit resets into it
        raise UpdateError(f"the unit did not enter its boot loader within {timeout:g} s")
    return True


def update(port: SerialPort, image: FirmwareImage, *, progress: Callable[[int, int], None] | None = None,
           timeout: float = 10.0) -> UpdateReport:
    """Flash ``image`` into the unit on ``port`` (its seat-reader link) and start it."""
    started = time.monotonic()
    link = BootLink(port)
    from_app = _enter(port, link, timeout)
    link.retries = 0                              # from here on: requests asked again (lost frames)
    link.announced.clear()                        # and boot loader starts (a reset during the transfer)
    pages = [image.data[a:a + PAGE] for a in range(0, len(image.data), PAGE)]
    for i, chunk in enumerate(pages):
        if progress is not None:
            progress(i, len(pages))
        status, _ = link.result(BootType.WRITE, (i * PAGE).to_bytes(4, "little") + chunk)
        if status is not BootStatus.OK:
            raise UpdateError(f"page {i} (byte {i * PAGE:#x}): {status.name}")
    if progress is not None:
        progress(len(pages), len(pages))
    version = image.version.encode()
    status, crc = link.result(BootType.COMMIT, len(image.data).to_bytes(4, "little")
                              + image.crc.to_bytes(4, "little") + bytes((len(version),)) + version, timeout=3.0)
    if status is not BootStatus.OK:
        raise UpdateError(f"the unit's flash does not check: {status.name} (CRC {crc:#010x}, "
                          f"the image's {image.crc:#010x})")
    try:
        status, _ = link.result(BootType.START, timeout=1.0, tries=3)
    except UpdateError:
        # the answer may be what was lost: the unit then runs the new image and ignores the repeats
        running = AppLink(port)
        if not running.hello(timeout) or running.session.peer is None or \
                running.session.peer.firmware != image.version:
            raise
        status = BootStatus.OK
    if status is not BootStatus.OK:
        raise UpdateError(f"the boot loader would not start the image: {status.name}")
    return UpdateReport(image.version, len(pages), len(image.data), image.crc, link.retries,
                        time.monotonic() - started, from_app, len(link.announced))
