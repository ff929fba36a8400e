"""Updates over the link, sans-I/O: the boot loader's message codes and answers (``firmware/boot/boot_proto.h``,
docs/protocol.md §8.8), and firmware images (Intel HEX, the version string inside). ``drivers/firmware_update.py``
drives a serial port with them (``update``, ``probe``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from enum import IntEnum
from pathlib import Path

from .crc import crc32

__all__ = ["BootType", "BootStatus", "BootInfo", "FirmwareImage", "UpdateError", "version_key", "BAUD", "PAGE",
           "APP_SPACE"]

BAUD = 500000                 # the seat unit's links (firmware/src/board.h), the boot loader's too
PAGE = 256                    # ATmega2560 SPM page
APP_SPACE = 0x3F000           # bytes below the 4 KiB boot section
VERSION_RE = re.compile(rb"seatunit-[\x21-\x7e]{1,23}")   # the firmware string HELLO gives, as in the image


class BootType(IntEnum):
    QUERY = 0x61
    INFO = 0x62
    WRITE = 0x63
    COMMIT = 0x64
    START = 0x65
    RESULT = 0x66


class BootStatus(IntEnum):
    OK = 0
    BAD_ADDRESS = 1
    VERIFY_FAILED = 2
    CRC_MISMATCH = 3
    BAD_REQUEST = 4
    NO_VALID_APP = 5


class UpdateError(RuntimeError):
    """The update did not finish: the link went away, the unit did not answer, or it refused a step."""


@dataclass(frozen=True, slots=True)
class BootInfo:
    loader_version: int
    why: int                  # 1: the application asked; 2: no valid application; 0: an answer to QUERY
    page_size: int
    app_space: int
    app_valid: bool
    app_version: str

    @classmethod
    def decode(cls, p: bytes) -> BootInfo:
        if len(p) < 10 or len(p) != 10 + p[9]:
            raise UpdateError(f"malformed BOOT_INFO ({len(p)} bytes)")
        return cls(p[0], p[1], int.from_bytes(p[2:4], "little"), int.from_bytes(p[4:8], "little"), bool(p[8]),
                   p[10:].decode("ascii", "replace"))


@dataclass(frozen=True, slots=True)
class FirmwareImage:
    data: bytes               # flash from byte 0, gaps filled with 0xFF
    version: str              # the firmware string found in the image ("seatunit-1.2.0")

    @property
    def crc(self) -> int:
        return crc32(self.data)

    @classmethod
    def from_hex(cls, path: str | Path) -> FirmwareImage:
        """An Intel HEX file (records 00 data, 01 end, 02 / 04 segment and linear base)."""
        return cls.parse_hex(Path(path).read_text(encoding="ascii", errors="replace"), str(path))

    @classmethod
    def parse_hex(cls, text: str, path: str = "image") -> FirmwareImage:
        mem: dict[int, int] = {}
        base = 0
        for n, line in enumerate(text.splitlines(), 1):
            line = line.strip()
            if not line:
                continue
            try:
                if not line.startswith(":"):
                    raise ValueError("no ':'")
                rec = bytes.fromhex(line[1:])
            except ValueError as err:
                raise UpdateError(f"{path}:{n}: not an Intel HEX record ({err})") from None
            if len(rec) < 5 or len(rec) != 5 + rec[0] or sum(rec) & 0xFF:
                raise UpdateError(f"{path}:{n}: bad record length or checksum")
            kind, addr, body = rec[3], int.from_bytes(rec[1:3], "big"), rec[4:-1]
            if kind == 0:
                for i, b in enumerate(body):
                    mem[base + addr + i] = b
            elif kind == 1:
                break
            elif kind == 2:
                base = int.from_bytes(body, "big") << 4
            elif kind == 4:
                base = int.from_bytes(body, "big") << 16
        if not mem:
            raise UpdateError(f"{path}: no data")
        end = max(mem) + 1
        if end > APP_SPACE:
            raise UpdateError(f"{path}: the image ends at byte {end:#x}, past the application space "
                              f"({APP_SPACE:#x}): is it the boot loader's?")
        data = bytes(mem.get(a, 0xFF) for a in range(end))
        found = VERSION_RE.search(data)
        if found is None:
            raise UpdateError(f"{path}: no 'seatunit-...' version string in the image: not seat-unit firmware")
        return cls(data, found.group().decode())


def version_key(version: str) -> tuple[int, ...] | None:
    """``seatunit-1.2.0`` -> (1, 2, 0); None when it does not have that form."""
    m = re.fullmatch(r"seatunit-(\d+(?:\.\d+)*)", version)
    return tuple(int(x) for x in m.group(1).split(".")) if m else None
