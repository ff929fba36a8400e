"""Wire fields of the protocol messages (docs/protocol.md §8).

A message class lists its fields in wire order (``messages.py``); each :class:`Field` names the dataclass
attribute(s) it carries and does three things with them: ``check`` a value at construction (raising
:class:`InvalidField`, returning the normalised value), ``write`` it and ``read`` it back. One encoder and
one decoder (``Message.encode`` / ``Message.decode``) walk that list, so a field is described once.

Multi-byte integers are little-endian; length-prefixed values carry one length byte.
"""
from __future__ import annotations

from enum import Enum, IntFlag
from typing import Any

from .codes import (
    CALL_CODES,
    CALL_TO_CODE,
    call_code,
    call_from_code,
    card_code,
    card_from_code,
    seat_code,
    seat_from_code,
)
from .constants import (
    MAX_AUCTION,
    MAX_HAND_TAGS,
    MAX_IDENT,
    MAX_TEXT,
    MAX_VERSIONS,
    RSSI_UNKNOWN,
    UID_MAX,
    UID_MIN,
    ErrorCode,
)
from .errors import InvalidField, MalformedPayload

__all__ = ["Reader", "Field", "UInt", "EnumField", "ErrorCodeField", "Bits", "Seat", "Card", "Call", "Text",
           "Ident", "Uid", "Rssi", "Versions", "UidList", "Auction", "Contract", "Pockets"]


class Reader:
    """A payload being read: every read past the end raises :class:`MalformedPayload`."""
    __slots__ = ("b", "i", "name")

    def __init__(self, b: bytes, name: str) -> None:
        self.b, self.i, self.name = b, 0, name

    def malformed(self, why: str) -> MalformedPayload:
        return MalformedPayload(f"{self.name}: {why}")

    def take(self, n: int) -> bytes:
        i = self.i
        if i + n > len(self.b):
            raise self.malformed(f"payload ends at byte {len(self.b)}, needed {i + n}")
        self.i = i + n
        return self.b[i:i + n]

    def uint(self, size: int) -> int:
        return int.from_bytes(self.take(size), "little")

    def u8(self) -> int:
        return self.uint(1)

    def blob(self) -> bytes:
        return self.take(self.u8())

    def end(self) -> None:
        if self.i != len(self.b):
            raise self.malformed(f"{len(self.b) - self.i} unexpected trailing byte(s)")


def _uint(v: int, size: int) -> bytes:
    return v.to_bytes(size, "little")


def _len_prefixed(b: bytes) -> bytes:
    return bytes((len(b),)) + b


def check_int(name: str, v: object, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise InvalidField(f"{name} must be an integer {lo}..{hi}, not {v!r}")
    return int(v)


# -- the field kinds ------------------------------------------------------------------------------------------
class Field:
    """One or more message attributes (``names``) and their bytes on the wire."""
    names: tuple[str, ...]

    def check(self, values: tuple[Any, ...]) -> tuple[Any, ...]:
        raise NotImplementedError

    def write(self, values: tuple[Any, ...]) -> bytes:
        raise NotImplementedError

    def read(self, r: Reader) -> tuple[Any, ...]:
        raise NotImplementedError


class _Single(Field):
    """A field carrying one attribute."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.names = (name,)

    def check(self, values: tuple[Any, ...]) -> tuple[Any, ...]:
        return (self.check_one(values[0]),)

    def write(self, values: tuple[Any, ...]) -> bytes:
        return self.write_one(values[0])

    def read(self, r: Reader) -> tuple[Any, ...]:
        return (self.read_one(r),)

    def check_one(self, v: Any) -> Any:
        raise NotImplementedError

    def write_one(self, v: Any) -> bytes:
        raise NotImplementedError

    def read_one(self, r: Reader) -> Any:
        raise NotImplementedError


class UInt(_Single):
    """An unsigned integer of ``size`` bytes, ``lo..hi`` (default: all the size can carry)."""

    def __init__(self, name: str, size: int, lo: int = 0, hi: int | None = None) -> None:
        super().__init__(name)
        self.size, self.lo = size, lo
        self.hi = (1 << (8 * size)) - 1 if hi is None else hi

    def check_one(self, v: Any) -> Any:
        return check_int(self.name, v, self.lo, self.hi)

    def write_one(self, v: Any) -> bytes:
        return _uint(v, self.size)

    def read_one(self, r: Reader) -> Any:
        return r.uint(self.size)


class EnumField(UInt):
    """An integer enum (or flag set) on ``size`` bytes."""

    def __init__(self, name: str, enum: type[Enum], size: int = 1) -> None:
        super().__init__(name, size)
        self.enum = enum

    def check_one(self, v: Any) -> Any:
        if issubclass(self.enum, IntFlag):        # a flag set takes any int: only the size limits it
            return self.enum(check_int(self.name, v, self.lo, self.hi))
        try:
            return self.enum(v)
        except (ValueError, TypeError):
            raise InvalidField(f"{self.name}: {v!r} is not a {self.enum.__name__}") from None


class ErrorCodeField(UInt):
    """A u16 error code: an :class:`ErrorCode` when it is one, else the plain (application) number."""

    def __init__(self, name: str) -> None:
        super().__init__(name, 2)

    def check_one(self, v: Any) -> Any:
        c = check_int(self.name, v, 0, 0xFFFF)
        try:
            return ErrorCode(c)
        except ValueError:
            return c


class Bits(Field):
    """Booleans packed in one flag byte, bit i = ``names[i]``; the other bits are reserved (zero)."""

    def __init__(self, *names: str) -> None:
        self.names = names

    def check(self, values: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple(bool(v) for v in values)

    def write(self, values: tuple[Any, ...]) -> bytes:
        return bytes((sum(1 << i for i, v in enumerate(values) if v),))

    def read(self, r: Reader) -> tuple[Any, ...]:
        flags = r.u8()
        if flags >> len(self.names):
            raise r.malformed(f"reserved flag bits set (0x{flags:02X})")
        return tuple(bool(flags >> i & 1) for i in range(len(self.names)))


class PartOf(Field):
    """A message's place among the parts of one whole: ``part`` (0-based) and ``parts``, a byte each,
    ``part < parts <= limit``."""

    def __init__(self, part: str, parts: str, limit: int) -> None:
        self.names = (part, parts)
        self.limit = limit

    def check(self, values: tuple[Any, ...]) -> tuple[Any, ...]:
        part, parts = (int(v) for v in values)
        if not 1 <= parts <= self.limit or not 0 <= part < parts:
            raise InvalidField(f"part {part} of {parts}: parts must be 1..{self.limit}, part 0..parts-1")
        return part, parts

    def write(self, values: tuple[Any, ...]) -> bytes:
        return bytes(values)

    def read(self, r: Reader) -> tuple[Any, ...]:
        part, parts = r.u8(), r.u8()
        if not 1 <= parts <= self.limit or part >= parts:
            raise r.malformed(f"part {part} of {parts}")
        return part, parts


class Seat(_Single):
    """A seat ``"N" "E" "S" "W"`` (or None when ``optional``) on one byte."""

    def __init__(self, name: str, optional: bool = False) -> None:
        super().__init__(name)
        self.optional = optional

    def check_one(self, v: Any) -> Any:
        seat_code(v, optional=self.optional)
        return v

    def write_one(self, v: Any) -> bytes:
        return bytes((seat_code(v, optional=self.optional),))

    def read_one(self, r: Reader) -> Any:
        return seat_from_code(r.u8(), optional=self.optional)


class Card(_Single):
    """A card ``"SA"``..``"C2"``, or None (not identified), on one byte."""

    def check_one(self, v: Any) -> Any:
        card_code(v)
        return v

    def write_one(self, v: Any) -> bytes:
        return bytes((card_code(v),))

    def read_one(self, r: Reader) -> Any:
        return card_from_code(r.u8())


class Call(_Single):
    """A call ``"Pass"``, ``"X"``, ``"XX"``, ``"1C"``..``"7NT"`` on one byte."""

    def check_one(self, v: Any) -> Any:
        call_code(v)
        return v

    def write_one(self, v: Any) -> bytes:
        return bytes((call_code(v),))

    def read_one(self, r: Reader) -> Any:
        return call_from_code(r.u8())


class Text(_Single):
    """Length-prefixed UTF-8, at most MAX_TEXT bytes."""

    def check_one(self, v: Any) -> Any:
        if not isinstance(v, str):
            raise InvalidField(f"{self.name} must be a string")
        n = len(v.encode("utf-8"))
        if n > MAX_TEXT:
            raise InvalidField(f"{self.name} is {n} bytes of UTF-8, at most {MAX_TEXT}")
        return v

    def write_one(self, v: Any) -> bytes:
        return _len_prefixed(v.encode("utf-8"))

    def read_one(self, r: Reader) -> Any:
        try:
            return r.blob().decode("utf-8")
        except UnicodeDecodeError:
            raise r.malformed("text is not UTF-8") from None


class Ident(_Single):
    """A length-prefixed identifier: 1..MAX_IDENT printable ASCII characters."""

    def check_one(self, v: Any) -> Any:
        if not isinstance(v, str) or not 1 <= len(v) <= MAX_IDENT or not all(" " <= ch <= "~" for ch in v):
            raise InvalidField(f"{self.name} must be 1..{MAX_IDENT} printable ASCII characters, not {v!r}")
        return v

    def write_one(self, v: Any) -> bytes:
        return _len_prefixed(v.encode("ascii"))

    def read_one(self, r: Reader) -> Any:
        try:
            return r.blob().decode("ascii")
        except UnicodeDecodeError:
            raise r.malformed("identifier is not ASCII") from None


def _check_uid(v: object) -> bytes:
    if not isinstance(v, (bytes, bytearray)) or not UID_MIN <= len(v) <= UID_MAX:
        raise InvalidField(f"a tag UID is {UID_MIN}..{UID_MAX} bytes, not {v!r}")
    return bytes(v)


class Uid(_Single):
    """A length-prefixed RFID tag UID of UID_MIN..UID_MAX bytes."""

    def check_one(self, v: Any) -> Any:
        return _check_uid(v)

    def write_one(self, v: Any) -> bytes:
        return _len_prefixed(v)

    def read_one(self, r: Reader) -> Any:
        return r.blob()


class Rssi(_Single):
    """Signal strength in dBm, -127..127, as a signed byte; None (not measured) is RSSI_UNKNOWN."""

    def check_one(self, v: Any) -> Any:
        return None if v is None else check_int(self.name, v, -127, 127)

    def write_one(self, v: Any) -> bytes:
        return bytes(((RSSI_UNKNOWN if v is None else v) & 0xFF,))

    def read_one(self, r: Reader) -> Any:
        b = r.u8()
        v = b - 256 if b > 127 else b
        return None if v == RSSI_UNKNOWN else v


class Versions(_Single):
    """Protocol versions 1..255: a count byte (1..MAX_VERSIONS), then one byte each."""

    def check_one(self, v: Any) -> Any:
        versions = tuple(v)
        if not 1 <= len(versions) <= MAX_VERSIONS:
            raise InvalidField(f"{self.name}: 1..{MAX_VERSIONS} entries, not {len(versions)}")
        for x in versions:
            check_int("version", x, 1, 255)
        return versions

    def write_one(self, v: Any) -> bytes:
        return bytes((len(v), *v))

    def read_one(self, r: Reader) -> Any:
        return tuple(r.take(r.u8()))


class UidList(_Single):
    """Tag UIDs seen at once: a count byte (at most MAX_HAND_TAGS), then each UID length-prefixed."""

    def check_one(self, v: Any) -> Any:
        uids = tuple(_check_uid(u) for u in v)
        if len(uids) > MAX_HAND_TAGS:
            raise InvalidField(f"at most {MAX_HAND_TAGS} tags in one read, not {len(uids)}")
        return uids

    def write_one(self, v: Any) -> bytes:
        return bytes((len(v),)) + b"".join(_len_prefixed(u) for u in v)

    def read_one(self, r: Reader) -> Any:
        return tuple(r.blob() for _ in range(r.u8()))


class Auction(Field):
    """Calls and their alert flags: a u16 count, then one byte per call (call code, bit 7 = alerted).
    No alert flags at construction means nothing alerted."""

    def __init__(self, calls: str, alerts: str) -> None:
        self.names = (calls, alerts)

    def check(self, values: tuple[Any, ...]) -> tuple[Any, ...]:
        calls = tuple(values[0])
        if len(calls) > MAX_AUCTION:
            raise InvalidField(f"at most {MAX_AUCTION} calls, not {len(calls)}")
        for c in calls:
            call_code(c)
        alerts = tuple(bool(a) for a in values[1]) or (False,) * len(calls)
        if len(alerts) != len(calls):
            raise InvalidField(f"{len(alerts)} alert flags for {len(calls)} calls")
        return calls, alerts

    def write(self, values: tuple[Any, ...]) -> bytes:
        calls, alerts = values
        return _uint(len(calls), 2) + bytes(CALL_TO_CODE[c] | (0x80 if a else 0) for c, a in zip(calls, alerts))

    def read(self, r: Reader) -> tuple[Any, ...]:
        entries = r.take(r.uint(2))
        return tuple(call_from_code(e & 0x7F) for e in entries), tuple(bool(e & 0x80) for e in entries)


_RISK = {"": 0, "X": 1, "XX": 2}


def _parse_contract(contract: object) -> tuple[int, int]:
    """``"PASS"`` → (0, 0); ``"4SX"`` → (call code of 4S, 1)."""
    if contract == "PASS":
        return 0, 0
    if isinstance(contract, str):
        for risk in ("XX", "X", ""):
            if contract.endswith(risk) and contract[:len(contract) - len(risk)] in CALL_TO_CODE:
                bid = contract[:len(contract) - len(risk)]
                if bid[0].isdigit():
                    return CALL_TO_CODE[bid], _RISK[risk]
    raise InvalidField(f"not a contract: {contract!r} (\"PASS\", \"4S\", \"4SX\", \"3NTXX\")")


class Contract(Field):
    """A final contract and its declarer: bid code (0 = passed out), risk (0, 1 = X, 2 = XX), declarer seat
    (0xFF for a passed-out board)."""

    def __init__(self, contract: str, declarer: str) -> None:
        self.names = (contract, declarer)

    def check(self, values: tuple[Any, ...]) -> tuple[Any, ...]:
        contract, declarer = values
        _parse_contract(contract)
        if contract == "PASS":
            if declarer is not None:
                raise InvalidField("a passed-out board has no declarer")
        else:
            seat_code(declarer)
        return values

    def write(self, values: tuple[Any, ...]) -> bytes:
        contract, declarer = values
        bid, risk = _parse_contract(contract)
        return bytes((bid, risk, seat_code(declarer, optional=True)))

    def read(self, r: Reader) -> tuple[Any, ...]:
        bid, risk, declarer = r.u8(), r.u8(), r.u8()
        if bid == 0:
            if risk or declarer != 0xFF:
                raise r.malformed("a passed-out board has no risk and no declarer")
            return "PASS", None
        if not 3 <= bid <= 37 or risk > 2:
            raise r.malformed(f"bid code {bid} / risk {risk} out of range")
        return CALL_CODES[bid] + ("", "X", "XX")[risk], seat_from_code(declarer)


class Pockets(_Single):
    """The pocket (seat) of each of the 52 cards, one byte each, in card-code order."""

    def check_one(self, v: Any) -> Any:
        pockets = tuple(v)
        if len(pockets) != 52:
            raise InvalidField(f"{self.name}: one per card, 52, not {len(pockets)}")
        for p in pockets:
            seat_code(p)
        return pockets

    def write_one(self, v: Any) -> bytes:
        return bytes(seat_code(p) for p in v)

    def read_one(self, r: Reader) -> Any:
        return tuple(seat_from_code(b) for b in r.take(52))
