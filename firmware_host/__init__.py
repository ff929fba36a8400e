"""Host side of the bridgetable device wire protocol, sans-I/O (docs/protocol.md).

Bytes in, typed messages out. No serial, usb, asyncio, socket or time: the caller owns the link and
the clock. Modules, one job each:

- ``constants`` — versions, sizes, type codes, enums (DeviceKind, Capability, ErrorCode, ...)
- ``errors``    — the exception tree rooted in :class:`ProtocolError`
- ``cobs``, ``crc`` — byte stuffing and CRC-32
- ``frame``     — :class:`Frame`, :func:`encode_frame`, :func:`decode_frame`, :class:`FrameDecoder`
- ``codes``     — one-byte encodings of calls, seats, cards
- ``fields``    — the wire field kinds a message is declared with
- ``messages``  — one frozen dataclass per message, :func:`decode_message`
- ``session``   — :class:`HostSession`, :class:`DeviceSession` (handshake, seq/ack/retransmit, heartbeats)
"""
from .codes import CALL_CODES, CALL_TO_CODE, CARDS, SEATS
from .constants import (
                        MAX_ENCODED,
                        MAX_FRAME,
                        MAX_PAYLOAD,
                        PROTOCOL_VERSION,
                        SUPPORTED_VERSIONS,
                        Capability,
                        DeviceKind,
                        Direction,
                        ErrorCode,
                        FrameFlags,
                        MessageType,
                        Mode,
                        Phase,
                        ReaderStatusCode,
                        ResetCause,
                        TrayDirection,
                        Zone,
)
from .errors import (
                        CobsError,
                        CrcMismatch,
                        FrameError,
                        FrameTooLarge,
                        FrameTooShort,
                        HandshakeError,
                        HandshakeRefused,
                        InvalidConfig,
                        InvalidField,
                        LengthMismatch,
                        LinkLost,
                        MalformedPayload,
                        MessageError,
                        NoCommonVersion,
                        NotSendable,
                        ProtocolError,
                        QueueFull,
                        SessionError,
                        UnknownMessageType,
                        UnsupportedVersion,
)
from .frame import DecodeError, DecodeFailure, DecoderStats, Frame, FrameDecoder, decode_frame, encode_frame
from .messages import (
                        MESSAGE_TYPES,
                        Ack,
                        Bind,
                        BoardNumberRead,
                        CallPressed,
                        CardDealt,
                        CardRead,
                        DealBoard,
                        DealDone,
                        DirectorCall,
                        ErrorMessage,
                        HandScan,
                        Heartbeat,
                        Hello,
                        Jam,
                        Message,
                        Nack,
                        ReaderStatus,
                        RefuseCall,
                        Reset,
                        SetMode,
                        ShowAuction,
                        ShowContract,
                        ShowError,
                        ShowTurn,
                        StopCard,
                        TrayPassed,
                        Undo,
                        UnitStatus,
                        UnreadableCard,
                        Welcome,
                        decode_message,
)
from .session import Binding, DeviceSession, HostSession, LinkHealth, LinkState, Refusal, SessionConfig

__all__ = [
    "CALL_CODES", "CALL_TO_CODE", "CARDS", "SEATS", "MAX_ENCODED", "MAX_FRAME", "MAX_PAYLOAD", "PROTOCOL_VERSION",
    "SUPPORTED_VERSIONS", "Capability", "DeviceKind", "Direction", "ErrorCode", "FrameFlags", "MessageType", "Mode",
    "Phase", "ReaderStatusCode", "ResetCause", "TrayDirection", "Zone", "CobsError", "CrcMismatch", "FrameError",
    "FrameTooLarge",
    "FrameTooShort", "HandshakeError", "HandshakeRefused", "InvalidConfig", "InvalidField", "LengthMismatch",
    "LinkLost", "MalformedPayload", "MessageError", "NoCommonVersion", "NotSendable", "ProtocolError", "QueueFull",
    "SessionError", "UnknownMessageType", "UnsupportedVersion", "DecodeError", "DecodeFailure", "DecoderStats",
    "Frame", "FrameDecoder", "decode_frame", "encode_frame", "MESSAGE_TYPES", "Ack", "Bind", "BoardNumberRead",
    "CallPressed", "CardDealt", "CardRead", "DealBoard", "DealDone", "DirectorCall", "ErrorMessage", "HandScan",
    "Heartbeat", "Hello",
    "Jam", "Message", "Nack", "ReaderStatus", "RefuseCall", "Reset", "SetMode", "ShowAuction", "ShowContract",
    "ShowError", "ShowTurn", "StopCard", "TrayPassed", "Undo", "UnitStatus", "UnreadableCard", "Welcome",
    "decode_message",
    "Binding", "DeviceSession", "HostSession", "LinkHealth", "LinkState", "Refusal", "SessionConfig",
]
