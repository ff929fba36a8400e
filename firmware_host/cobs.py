"""Consistent Overhead Byte Stuffing (Cheshire & Baker, 1999).

``encode`` removes every 0x00 from a byte string at a cost of one byte per 254 (plus one), so that
0x00 can delimit frames on the wire: a receiver that lost its place resynchronises at the next 0x00.

The encoder writes the minimal form (no trailing ``0x01`` block after a final full 254-byte block);
the decoder accepts both that form and the form with the trailing ``0x01`` some encoders write.
"""
from __future__ import annotations

from .errors import CobsError

__all__ = ["encode", "decode", "max_encoded_size"]


def max_encoded_size(n: int) -> int:
    """Largest COBS encoding of ``n`` bytes (delimiter not counted)."""
    return n + 1 + n // 254


def encode(data: bytes) -> bytes:
    """COBS-encode ``data``; the result contains no 0x00 (the caller appends the delimiter)."""
    out = bytearray()
    chunks = bytes(data).split(b"\x00")
    last = len(chunks) - 1
    for i, chunk in enumerate(chunks):
        n = len(chunk)
        pos = 0
        while n - pos >= 254:
            out.append(0xFF)
            out += chunk[pos:pos + 254]
            pos += 254
        if pos and pos == n and i == last:
            break                       # minimal form: a final full block needs no closing 0x01
        out.append(n - pos + 1)
        out += chunk[pos:]
    return bytes(out)


def decode(data: bytes) -> bytes:
    """Decode one COBS block sequence (no delimiter). Raises :class:`CobsError` if it is not one."""
    n = len(data)
    if n == 0:
        raise CobsError("empty COBS block sequence")
    if 0 in data:
        raise CobsError("0x00 inside a COBS-encoded frame")
    out = bytearray()
    i = 0
    while i < n:
        code = data[i]
        j = i + code
        if j > n:
            raise CobsError(f"COBS block at offset {i} claims {code - 1} bytes, {n - i - 1} left")
        out += data[i + 1:j]
        i = j
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)
