"""CRC-32/ISO-HDLC, the CRC of Ethernet, zlib and PNG.

Parameters (Williams/"Rocksoft" model): width 32, poly 0x04C11DB7, init 0xFFFFFFFF, refin true,
refout true, xorout 0xFFFFFFFF; check value over ``b"123456789"`` is 0xCBF43926.

``crc32`` is zlib's (C speed). ``crc32_reference`` is the bitwise algorithm a firmware author would
port (tested equal to zlib's). Appending the CRC little-endian to the data and computing the CRC of
the whole gives the constant :data:`CRC32_RESIDUE` — the receiver's check in one pass.
"""
from __future__ import annotations

import zlib

__all__ = ["crc32", "crc32_reference", "CRC32_CHECK", "CRC32_RESIDUE", "CRC32_POLY_REFLECTED"]

CRC32_CHECK = 0xCBF43926         # crc32(b"123456789")
CRC32_RESIDUE = 0x2144DF1C       # crc32(data + crc32(data).to_bytes(4, "little")) for any data
CRC32_POLY_REFLECTED = 0xEDB88320


def crc32(data: bytes, value: int = 0) -> int:
    """CRC-32 of ``data`` (continue a running CRC by passing the previous result as ``value``)."""
    return zlib.crc32(data, value)


def crc32_reference(data: bytes) -> int:
    """Bit-at-a-time CRC-32, as a device without a CRC unit would compute it."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ CRC32_POLY_REFLECTED if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF
