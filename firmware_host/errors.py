"""The exception tree of the wire protocol, rooted in :class:`ProtocolError`.

::

    ProtocolError
    ├── FrameError                a byte string that is not a valid frame (decode_frame, encode_frame)
    │   ├── CobsError
    │   ├── FrameTooShort
    │   ├── FrameTooLarge
    │   ├── CrcMismatch
    │   ├── LengthMismatch
    │   └── UnsupportedVersion
    ├── MessageError              a frame whose payload is not a valid message
    │   ├── UnknownMessageType
    │   ├── MalformedPayload
    │   └── InvalidField          (also a ValueError) a message built with an out-of-range value
    ├── InvalidConfig             (also a ValueError) a session or decoder set up with values the protocol
    │                             does not allow (a window of 0, a version 300)
    └── SessionError              misuse of a session, or the handshake / link failing
        ├── NotSendable           a control message, or a message for the other direction
        ├── QueueFull
        ├── HandshakeError
        │   ├── NoCommonVersion
        │   └── HandshakeRefused
        └── LinkLost              (kept in ``session.last_error``; sessions never raise it)

Every class carries ``code``: the :class:`~firmware_host.constants.ErrorCode` that reports it on the
wire (in a NACK or an ERROR). The frame decoder and the sessions never raise on bad input from the
wire: they count it, and report it as data.
"""
from __future__ import annotations

from .constants import ErrorCode


class ProtocolError(Exception):
    """Root of every error of the wire protocol."""
    code: ErrorCode = ErrorCode.BAD_FRAME

    def __init__(self, message: str = "", *, code: int | None = None) -> None:
        super().__init__(message)
        if code is not None:
            try:
                self.code = ErrorCode(code)
            except ValueError:
                self.code = code  # type: ignore[assignment]  # an application code (0x8000-0xFFFF)


# -- frames ------------------------------------------------------------------------------------------
class FrameError(ProtocolError):
    code = ErrorCode.BAD_FRAME


class CobsError(FrameError):
    """The COBS encoding is broken (a block runs past the end, or a 0x00 inside)."""


class FrameTooShort(FrameError):
    """Fewer bytes than a header and a CRC."""


class FrameTooLarge(FrameError):
    """More bytes than the protocol allows (payload over MAX_PAYLOAD)."""


class CrcMismatch(FrameError):
    """The CRC-32 does not match: the frame was corrupted."""


class LengthMismatch(FrameError):
    """The header's payload length does not match the bytes received."""


class UnsupportedVersion(FrameError):
    """The frame's version byte is not one this side speaks."""
    code = ErrorCode.VERSION_UNSUPPORTED


# -- messages ----------------------------------------------------------------------------------------
class MessageError(ProtocolError):
    code = ErrorCode.MALFORMED_PAYLOAD


class UnknownMessageType(MessageError):
    code = ErrorCode.UNKNOWN_MESSAGE


class MalformedPayload(MessageError):
    code = ErrorCode.MALFORMED_PAYLOAD


class InvalidField(MessageError, ValueError):
    """A message constructed with a value the wire cannot carry (a call "8NT", a 3-byte UID...)."""
    code = ErrorCode.MALFORMED_PAYLOAD


class InvalidConfig(ProtocolError, ValueError):
    """A session or frame decoder configured with values the protocol does not allow."""
    code = ErrorCode.UNSUPPORTED


# -- sessions ----------------------------------------------------------------------------------------
class SessionError(ProtocolError):
    code = ErrorCode.UNEXPECTED_MESSAGE


class NotSendable(SessionError):
    """The application tried to send a message the session sends itself, or one for the wrong direction."""
    code = ErrorCode.UNEXPECTED_MESSAGE


class QueueFull(SessionError):
    """Too many reliable messages waiting for the peer."""
    code = ErrorCode.BUSY


class HandshakeError(SessionError):
    code = ErrorCode.DEVICE_REFUSED


class NoCommonVersion(HandshakeError):
    code = ErrorCode.VERSION_UNSUPPORTED


class HandshakeRefused(HandshakeError):
    """The host answered HELLO with an ERROR (the code says why)."""
    code = ErrorCode.DEVICE_REFUSED


class LinkLost(SessionError):
    """The peer stopped answering (heartbeats missed, or a frame unacknowledged after every retry)."""
    code = ErrorCode.LINK_TIMEOUT
