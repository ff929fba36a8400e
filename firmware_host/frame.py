"""Frames: the header, the CRC-32, COBS and the 0x00 delimiter (docs/protocol.md §3-4).

Decoded (pre-COBS) layout, little-endian::

    0        1      2       3      4      5..6            7 .. 7+N-1    7+N .. 7+N+3
    version  type   flags   seq    ack    length N (u16)  payload       CRC-32 (u32) of bytes 0..7+N-1

On the wire: ``COBS(decoded) + b"\\x00"``.

:class:`FrameDecoder` is the stream side: ``feed(bytes) -> list[Frame]``. It keeps a partial frame
across calls, resynchronises at the next 0x00 after anything it cannot use, enforces the maximum
frame size, and never raises on input bytes. Rejected frames are counted in ``decoder.stats`` and,
if an ``on_error`` callback was given, reported to it as :class:`DecodeError` records (data, not
exceptions) — the callback is the chosen reporting channel; ``feed`` returns only good frames.
"""
from __future__ import annotations

import logging
import struct
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum

from .cobs import decode as cobs_decode
from .cobs import encode as cobs_encode
from .cobs import max_encoded_size
from .constants import CRC_SIZE, HEADER_SIZE, MAX_PAYLOAD, OVERHEAD, PROTOCOL_VERSION, SUPPORTED_VERSIONS, FrameFlags
from .crc import CRC32_RESIDUE
from .errors import (
    CobsError,
    CrcMismatch,
    FrameError,
    FrameTooLarge,
    FrameTooShort,
    InvalidConfig,
    LengthMismatch,
    UnsupportedVersion,
)

log = logging.getLogger(__name__)

__all__ = ["Frame", "encode_frame", "decode_frame", "FrameDecoder", "DecoderStats", "DecodeError",
           "DecodeFailure"]


@dataclass(frozen=True, slots=True)
class Frame:
    """One frame. ``payload`` is the message payload; ``type`` a :class:`MessageType` code."""
    type: int
    seq: int = 0
    ack: int = 0
    flags: int = 0
    payload: bytes = b""
    version: int = PROTOCOL_VERSION

    @property
    def reliable(self) -> bool:
        return bool(self.flags & FrameFlags.RELIABLE)

    @property
    def from_host(self) -> bool:
        return bool(self.flags & FrameFlags.FROM_HOST)


_HEADER = struct.Struct("<BBBBBH")


def encode_frame(frame: Frame) -> bytes:
    """The wire bytes of ``frame``: COBS-encoded, terminated by the 0x00 delimiter."""
    payload = frame.payload
    if len(payload) > MAX_PAYLOAD:
        raise FrameTooLarge(f"payload of {len(payload)} bytes exceeds {MAX_PAYLOAD}")
    if not 1 <= frame.version <= 255:
        raise FrameError(f"version must be 1..255, not {frame.version}")
    try:
        raw = _HEADER.pack(frame.version, frame.type, frame.flags, frame.seq, frame.ack, len(payload)) + payload
    except struct.error as err:
        raise FrameError(f"header field out of range in {frame!r}: {err}") from err
    return cobs_encode(raw + zlib.crc32(raw).to_bytes(CRC_SIZE, "little")) + b"\x00"


class DecodeFailure(StrEnum):
    COBS = "cobs"                 # broken COBS block structure
    TOO_SHORT = "too_short"       # fewer than 11 decoded bytes
    OVERSIZE = "oversize"         # longer than the maximum frame (never buffered)
    BAD_CRC = "bad_crc"
    BAD_VERSION = "bad_version"
    BAD_LENGTH = "bad_length"     # header length field disagrees with the bytes received


_EXCEPTION = {DecodeFailure.COBS: CobsError, DecodeFailure.TOO_SHORT: FrameTooShort,
              DecodeFailure.OVERSIZE: FrameTooLarge, DecodeFailure.BAD_CRC: CrcMismatch,
              DecodeFailure.BAD_VERSION: UnsupportedVersion, DecodeFailure.BAD_LENGTH: LengthMismatch}


@dataclass(frozen=True, slots=True)
class DecodeError:
    """A rejected frame, as reported to ``FrameDecoder(on_error=...)``. Data, not an exception."""
    kind: DecodeFailure
    detail: str
    size: int                      # encoded bytes discarded (not counting the delimiter)

    def exception(self) -> FrameError:
        return _EXCEPTION[self.kind](self.detail)


@dataclass(slots=True)
class DecoderStats:
    bytes: int = 0
    frames: int = 0                # frames accepted
    empty: int = 0                 # empty frames (consecutive delimiters) — legal, not errors
    cobs_errors: int = 0
    too_short: int = 0
    oversize: int = 0
    crc_errors: int = 0
    version_errors: int = 0
    length_errors: int = 0
    discarded_bytes: int = 0       # bytes thrown away in rejected frames

    @property
    def errors(self) -> int:
        return (self.cobs_errors + self.too_short + self.oversize + self.crc_errors + self.version_errors
                + self.length_errors)


_STAT = {DecodeFailure.COBS: "cobs_errors", DecodeFailure.TOO_SHORT: "too_short",
         DecodeFailure.OVERSIZE: "oversize", DecodeFailure.BAD_CRC: "crc_errors",
         DecodeFailure.BAD_VERSION: "version_errors", DecodeFailure.BAD_LENGTH: "length_errors"}


def _unstuff(enc: bytes) -> bytearray | None:
    """COBS decode of a block sequence known to hold no 0x00; None if the blocks overrun."""
    n = len(enc)
    out = bytearray()
    i = 0
    while i < n:
        code = enc[i]
        j = i + code
        if j > n:
            return None
        out += enc[i + 1:j]
        i = j
        if code != 0xFF and i < n:
            out.append(0)
    return out


def _check(raw: bytearray, versions: frozenset[int], max_payload: int) -> Frame | tuple[DecodeFailure, str]:
    m = len(raw)
    if m < OVERHEAD:
        return DecodeFailure.TOO_SHORT, f"{m} decoded bytes, a frame has at least {OVERHEAD}"
    if zlib.crc32(raw) != CRC32_RESIDUE:
        return DecodeFailure.BAD_CRC, f"CRC mismatch over {m} decoded bytes"
    version = raw[0]
    if version not in versions:
        return DecodeFailure.BAD_VERSION, f"version {version} not in {sorted(versions)}"
    length = raw[5] | (raw[6] << 8)
    if length > max_payload:
        return DecodeFailure.OVERSIZE, f"payload length {length} exceeds {max_payload}"
    if length != m - OVERHEAD:
        return DecodeFailure.BAD_LENGTH, f"length field {length}, {m - OVERHEAD} payload bytes received"
    return Frame(raw[1], raw[3], raw[4], raw[2], bytes(raw[HEADER_SIZE:m - CRC_SIZE]), version)


def decode_frame(data: bytes, *, versions: Iterable[int] = SUPPORTED_VERSIONS,
                 max_payload: int = MAX_PAYLOAD) -> Frame:
    """Decode exactly one encoded frame (one trailing delimiter allowed). Raises a :class:`FrameError`."""
    data = bytes(data)
    if data.endswith(b"\x00"):
        data = data[:-1]
    if len(data) > max_encoded_size(OVERHEAD + max_payload):
        raise FrameTooLarge(f"{len(data)} encoded bytes exceeds the maximum frame")
    raw = bytearray(cobs_decode(data))
    result = _check(raw, frozenset(versions), max_payload)
    if isinstance(result, Frame):
        return result
    kind, detail = result
    raise _EXCEPTION[kind](detail)


class FrameDecoder:
    """Stream decoder: ``feed(bytes) -> list[Frame]``; never raises on input bytes.

    ``versions``: the frame versions accepted (others are rejected as ``BAD_VERSION``).
    ``max_payload``: a device with little RAM may lower it; the encoded-size limit follows.
    ``on_error``: called with a :class:`DecodeError` for each rejected frame (must not raise).
    """

    __slots__ = ("_buf", "_discarding", "_versions", "_max_payload", "_max_encoded", "on_error", "stats")

    def __init__(self, *, versions: Iterable[int] = SUPPORTED_VERSIONS, max_payload: int = MAX_PAYLOAD,
                 on_error: Callable[[DecodeError], None] | None = None) -> None:
        if not 0 <= max_payload <= MAX_PAYLOAD:
            raise InvalidConfig(f"max_payload must be 0..{MAX_PAYLOAD}")
        self._versions = frozenset(versions)
        self._max_payload = max_payload
        self._max_encoded = max_encoded_size(OVERHEAD + max_payload)
        self._buf = b""
        self._discarding = False
        self.on_error = on_error
        self.stats = DecoderStats()

    @property
    def pending(self) -> int:
        """Bytes of a partial frame held until its delimiter arrives."""
        return len(self._buf)

    def reset(self) -> None:
        """Forget any partial frame (e.g. after reopening the port)."""
        self._buf = b""
        self._discarding = False

    def feed(self, data: bytes) -> list[Frame]:
        if not data:
            return []
        if type(data) is not bytes:
            data = bytes(data)
        self.stats.bytes += len(data)
        parts = data.split(b"\x00")
        last = len(parts) - 1
        frames: list[Frame] = []
        max_encoded = self._max_encoded
        for i, chunk in enumerate(parts):
            if i == 0:
                if self._discarding:          # inside an oversize frame: skip to its delimiter
                    self.stats.discarded_bytes += len(chunk)
                    if last == 0:
                        return frames
                    self._discarding = False
                    continue
                if self._buf:
                    chunk = self._buf + chunk
                    self._buf = b""
            if i == last:                     # no delimiter yet: keep the partial frame
                if len(chunk) > max_encoded:
                    self._fail(DecodeFailure.OVERSIZE, f"no delimiter within {max_encoded} bytes", len(chunk))
                    self._discarding = True
                else:
                    self._buf = chunk
                break
            if not chunk:
                self.stats.empty += 1
                continue
            if len(chunk) > max_encoded:
                self._fail(DecodeFailure.OVERSIZE, f"{len(chunk)} encoded bytes exceeds {max_encoded}", len(chunk))
                continue
            raw = _unstuff(chunk)
            if raw is None:
                self._fail(DecodeFailure.COBS, "COBS block runs past the delimiter", len(chunk))
                continue
            result = _check(raw, self._versions, self._max_payload)
            if type(result) is Frame:
                frames.append(result)
            else:
                self._fail(result[0], result[1], len(chunk))  # type: ignore[index]
        self.stats.frames += len(frames)
        return frames

    def _fail(self, kind: DecodeFailure, detail: str, size: int) -> None:
        stats = self.stats
        setattr(stats, _STAT[kind], getattr(stats, _STAT[kind]) + 1)
        stats.discarded_bytes += size
        log.debug("frame rejected (%s): %s", kind, detail)
        if self.on_error is not None:
            self.on_error(DecodeError(kind, detail, size))
