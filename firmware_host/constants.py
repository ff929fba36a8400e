"""The numbers of the wire protocol (docs/protocol.md): versions, sizes, type codes and enums.

Nothing here does anything; every other module takes its numbers from this one so that the code and
the specification can be compared line by line.
"""
from __future__ import annotations

from enum import IntEnum, IntFlag

# -- versions ---------------------------------------------------------------------------------------
PROTOCOL_VERSION = 1
SUPPORTED_VERSIONS: tuple[int, ...] = (1,)
HANDSHAKE_VERSION = 1            # HELLO, WELCOME and a refusal ERROR are always framed as version 1

# -- frame sizes (docs/protocol.md §3) -------------------------------------------------------------
HEADER_SIZE = 7                  # version, type, flags, seq, ack, length (u16 LE)
CRC_SIZE = 4                     # CRC-32/ISO-HDLC, little-endian
OVERHEAD = HEADER_SIZE + CRC_SIZE
MAX_PAYLOAD = 512
MAX_FRAME = OVERHEAD + MAX_PAYLOAD                   # 523 bytes before COBS
MAX_ENCODED = MAX_FRAME + 1 + MAX_FRAME // 254       # 526 bytes after COBS, delimiter not counted
DELIMITER = b"\x00"

# -- sequencing (docs/protocol.md §6) ----------------------------------------------------------------
SEQ_MODULO = 256
MAX_WINDOW = 8                   # at most 8 reliable frames unacknowledged per direction

# -- text and list limits ----------------------------------------------------------------------------
MAX_TEXT = 200                   # bytes of UTF-8 in ERROR / SHOW_ERROR / REFUSE_CALL
MAX_IDENT = 32                   # characters of ASCII in a serial number or firmware version
MAX_VERSIONS = 16
UID_MIN, UID_MAX = 4, 10         # RFID tag UID length (ISO 14443: 4, 7, 10; ISO 15693: 8)
MAX_HAND_TAGS = 32
MAX_AUCTION = 400                # the longest legal auction has 319 calls
NO_SEAT = 0xFF
NO_CARD = 0xFF
RSSI_UNKNOWN = -128


class FrameFlags(IntFlag):
    RELIABLE = 0x01      # carries a sequence number; acknowledged, retransmitted, delivered once in order
    RETRANSMIT = 0x02    # this is a retransmission (diagnostic only)
    FROM_HOST = 0x04     # sent by the host; a frame with the wrong direction bit is an echo and dropped


class MessageType(IntEnum):
    # common 0x01-0x0F
    HELLO = 0x01
    WELCOME = 0x02
    ACK = 0x03
    NACK = 0x04
    HEARTBEAT = 0x05
    ERROR = 0x06
    RESET = 0x07
    BIND = 0x08
    # seat reader -> host 0x10-0x1F
    CARD_READ = 0x10
    HAND_READ = 0x11
    READER_STATUS = 0x12
    UNIT_STATUS = 0x13
    # bidding box / screen -> host 0x20-0x2F
    CALL_PRESSED = 0x20
    UNDO = 0x21
    STOP_CARD = 0x22
    TRAY_PASSED = 0x23
    DIRECTOR_CALL = 0x24     # the player's Director key: call the director to the table
    # dealer -> host 0x30-0x3F
    CARD_DEALT = 0x30
    BOARD_NUMBER_READ = 0x31
    JAM = 0x32
    UNREADABLE_CARD = 0x33
    DEAL_DONE = 0x34
    # host -> display devices 0x40-0x4F
    SHOW_AUCTION = 0x40
    SHOW_CONTRACT = 0x41
    SHOW_TURN = 0x42
    SHOW_ERROR = 0x43
    SET_MODE = 0x44
    REFUSE_CALL = 0x45
    # host -> dealer 0x50-0x5F
    DEAL_BOARD = 0x50
    # the update path 0x60-0x6F: the application's part (the boot loader's frames: firmware_host.boot)
    ENTER_BOOTLOADER = 0x60


class Direction(IntFlag):
    TO_HOST = 1
    TO_DEVICE = 2
    BOTH = 3


class DeviceKind(IntEnum):
    SEAT_READER = 1
    BIDDING_BOX = 2
    BIDDING_SCREEN = 3
    DEALER = 4


class Capability(IntFlag):
    NONE = 0
    DISPLAY = 1 << 0         # can show SHOW_AUCTION / SHOW_CONTRACT / SHOW_TURN / SHOW_ERROR
    PREVENT_MODE = 1 << 1    # honours SET_MODE(prevent) and REFUSE_CALL
    ALERT = 1 << 2           # has an alert button / alert card
    UNDO = 1 << 3            # offers the inadvertent-call undo window (Law 25A)
    STOP_CARD = 1 << 4
    TRAY = 1 << 5            # screen tray sensor (TRAY_PASSED)
    DUMMY_ZONE = 1 << 6      # seat reader has a dummy antenna zone
    HAND_READ = 1 << 7       # seat reader can read a whole hand at pickup
    RSSI = 1 << 8            # CARD_READ carries a real RSSI
    BOARD_READER = 1 << 9    # dealer reads the board number (BOARD_NUMBER_READ)
    UTF8_TEXT = 1 << 10      # display renders UTF-8 beyond ASCII
    DIRECTOR_KEY = 1 << 11   # has a Director key (DIRECTOR_CALL)


class Zone(IntEnum):
    PLAY = 0     # the seat's own play zone
    DUMMY = 1    # dummy's zone
    HAND = 2     # hand pickup (a hand taken out of the board)


class ReaderStatusCode(IntEnum):
    OK = 0
    ANTENNA_FAULT = 1
    COLLISION = 2
    TOO_MANY_TAGS = 3
    FIELD_NOISE = 4


class ResetCause(IntFlag):
    """UNIT_STATUS reset_cause bits: the ATmega2560's MCUSR (datasheet §12.6.1)."""
    POWER_ON = 0x01
    EXTERNAL = 0x02
    BROWN_OUT = 0x04
    WATCHDOG = 0x08
    JTAG = 0x10


class Mode(IntEnum):
    FLAG = 0      # accept every call; the host flags irregularities
    PREVENT = 1   # the host may REFUSE_CALL (Law 80E regulation)


class Phase(IntEnum):
    AUCTION = 0
    PLAY = 1
    IDLE = 2


class TrayDirection(IntEnum):
    AWAY = 0      # passed from this device's side to the other side
    TOWARDS = 1   # arrived at this device's side


class ErrorCode(IntEnum):
    NONE = 0x0000
    # protocol 0x01xx
    BAD_FRAME = 0x0101
    UNKNOWN_MESSAGE = 0x0102
    MALFORMED_PAYLOAD = 0x0103
    UNEXPECTED_MESSAGE = 0x0104
    VERSION_UNSUPPORTED = 0x0105
    NOT_CONNECTED = 0x0106
    DEVICE_REFUSED = 0x0107
    LINK_TIMEOUT = 0x0108
    BUSY = 0x0109
    UNSUPPORTED = 0x010A
    # device 0x02xx
    HARDWARE_FAULT = 0x0201
    ANTENNA_FAULT = 0x0202
    DEALER_JAMMED = 0x0203
    DECK_INCOMPLETE = 0x0204
    BOARD_MISMATCH = 0x0205
    UNKNOWN_CARD = 0x0206
    LOW_POWER = 0x0207
    # table 0x03xx (reasons shown by SHOW_ERROR / REFUSE_CALL)
    INSUFFICIENT_BID = 0x0301
    OUT_OF_ROTATION = 0x0302
    INADMISSIBLE_CALL = 0x0303
    AUCTION_CLOSED = 0x0304
    CALL_DIRECTOR = 0x0305
    # 0x8000-0xFFFF: application-defined; show the text


APPLICATION_CODES = range(0x8000, 0x10000)
