"""Table events: the one vocabulary every source produces and the journal stores.

Each event is a slotted dataclass (treated as immutable; not frozen because a frozen ``__init__`` costs
three times as much and a replay builds ~60 events per board) with a JSON form (``to_dict``/``event_from_dict``);
a ``.jsonl`` log holds one object per line.
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, fields
from typing import IO, Any

from .board import Vulnerability, dealer_for, parse_vulnerability, vulnerability_for
from .calls import CallError, parse_call
from .cards import CardError, Seat, parse_card, seat
from .editions import NAMES
from .errors import BridgeError
from .scoring import parse_contract
from .texts import Text

MAX_EXPLANATION = 500                # characters of an alert's written explanation (the service keeps it shorter)


class EventError(BridgeError, ValueError):
    """A table event that is malformed (not merely illegal: illegal events are flagged, not refused)."""


@dataclass(slots=True)
class BoardStarted:
    board: int | None                # None when a record carries no board number
    dealer: Seat
    vulnerable: Vulnerability
    deal: str | None = None          # PBN deal string
    ts: str | None = None
    source: str | None = None
    type: str = field(default="board", init=False)
    laws: str | None = None          # the law edition for this board ("1997" | "2017"); None: the table's


@dataclass(slots=True)
class HandRead:
    seat: Seat
    cards: tuple[str, ...]
    ts: str | None = None
    source: str | None = None
    type: str = field(default="hand", init=False)


@dataclass(slots=True)
class CallMade:
    seat: Seat
    call: str
    alert: bool = False
    ts: str | None = None
    source: str | None = None
    type: str = field(default="call", init=False)
    explanation: str | None = None   # the caller's written explanation of his alert, for the opponents (Law 20F)


@dataclass(slots=True)
class ContractRecorded:
    """The contract as entered when no auction was recorded (a traveller, a hand record with results)."""
    contract: str                        # "4SX", "3NTXX", or "PASS"
    declarer: Seat | None = None
    ts: str | None = None
    source: str | None = None
    type: str = field(default="contract", init=False)


@dataclass(slots=True)
class ResultRecorded:
    """A board scored without its auction or play (a scoring-only table: real cards, no readers): the contract,
    declarer, opening lead and the declarer side's tricks as keyed at the table. Valid only before any call."""
    contract: str                        # "4SX", "3NTXX", or "PASS"
    declarer: Seat | None = None
    lead: str | None = None              # the opening lead (a card of the declarer's left-hand opponent)
    tricks: int | None = None            # the declarer side's total, 0..13
    ts: str | None = None
    source: str | None = None
    type: str = field(default="result", init=False)


@dataclass(slots=True)
class CardPlayed:
    seat: Seat
    card: str
    ts: str | None = None
    source: str | None = None
    type: str = field(default="card", init=False)


@dataclass(slots=True)
class CardExposed:
    """A card seen face up other than by playing it (Laws 24, 49): reported by a reader or the director."""
    seat: Seat
    cards: tuple[str, ...]
    deliberate: bool = False             # Law 50B: deliberate exposure makes a major penalty card
    ts: str | None = None
    source: str | None = None
    type: str = field(default="exposed", init=False)


@dataclass(slots=True)
class ClaimMade:
    seat: Seat
    tricks: int                          # declarer side's total tricks if accepted
    ts: str | None = None
    source: str | None = None
    type: str = field(default="claim", init=False)


@dataclass(slots=True)
class ClaimResponded:
    seat: Seat
    accept: bool
    ts: str | None = None
    source: str | None = None
    type: str = field(default="claim_response", init=False)


@dataclass(slots=True)
class RulingGiven:
    code: str
    option: str
    seat: Seat | None = None          # who chose, when a player had the choice
    tricks: int | None = None         # for a director's ruling on a disputed claim
    ts: str | None = None
    source: str | None = None
    note: str | None = None           # the director's note for the record; the engine does not read it
    type: str = field(default="ruling", init=False)


TableEvent = (BoardStarted | HandRead | CallMade | ContractRecorded | ResultRecorded | CardPlayed | CardExposed
              | ClaimMade | ClaimResponded | RulingGiven)


def board_started(board: int | None, *, dealer: str | None = None, vulnerable: str | None = None,
                  deal: str | None = None, **extra: Any) -> BoardStarted:
    """A board event with dealer and vulnerability defaulted from the number (Law 2)."""
    if board is not None and board < 1:
        raise EventError(Text("event.board_number", "board number must be 1 or more"))
    if board is None and not (dealer and vulnerable):
        raise EventError(Text("event.board_unnumbered", "a board without a number must name its dealer and "
                                "vulnerability"))
    d = seat(dealer) if dealer else dealer_for(board)  # type: ignore[arg-type]
    v = parse_vulnerability(vulnerable) if vulnerable else vulnerability_for(board)  # type: ignore[arg-type]
    return BoardStarted(board=board, dealer=d, vulnerable=v, deal=deal, **extra)


def to_dict(event: TableEvent) -> dict[str, Any]:
    out: dict[str, Any] = {"type": event.type}
    for f in fields(event):
        if f.name == "type":
            continue
        v = getattr(event, f.name)
        if v is None or (f.name in ("alert", "deliberate") and v is False):
            continue
        out[f.name] = list(v) if isinstance(v, tuple) else (str(v) if isinstance(v, (Seat, Vulnerability)) else v)
    return out


def _req(d: dict[str, Any], key: str) -> Any:
    if key not in d:
        raise EventError(Text("event.lacks", "{kind} event lacks '{field}'", kind=d.get("type"), field=key))
    return d[key]


def _int(v: Any, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        try:
            return int(str(v))
        except ValueError:
            raise EventError(Text("event.integer", "{field} must be an integer, not {value}", field=what,
                                    value=repr(v))) from None
    return v


def event_from_dict(d: dict[str, Any]) -> TableEvent:
    """Build an event from its JSON form; raises ``EventError`` with a clear message when malformed."""
    if not isinstance(d, dict):
        raise EventError(Text("event.object", "an event is a JSON object, not {value}", value=type(d).__name__))
    extra = {k: d[k] for k in ("ts", "source") if d.get(k) is not None}
    for k, v in extra.items():
        if not isinstance(v, str):
            raise EventError(Text("event.string", "{field} must be a string", field=k))
    kind = d.get("type")
    try:
        if kind == "board":
            board = _int(_req(d, "board"), "board")
            if board < 1:
                raise EventError(Text("event.board_number", "board number must be 1 or more"))
            laws = d.get("laws")
            if laws is not None:
                if str(laws) not in NAMES:
                    raise EventError(Text("event.laws", "laws must be one of {editions}, not {value}",
                                          editions=", ".join(NAMES), value=repr(laws)))
                extra["laws"] = str(laws)
            return board_started(board, dealer=d.get("dealer"), vulnerable=d.get("vulnerable"),
                                 deal=d.get("deal"), **extra)
        if kind == "hand":
            cards = _req(d, "cards")
            if not isinstance(cards, list):
                raise EventError(Text("event.cards_list", "cards must be a list"))
            return HandRead(seat=seat(_req(d, "seat")), cards=tuple(parse_card(str(c)) for c in cards), **extra)
        if kind == "call":
            explanation = d.get("explanation")
            if explanation is not None:
                if not isinstance(explanation, str) or len(explanation) > MAX_EXPLANATION:
                    raise EventError(Text("event.explanation_long", "explanation is text of at most {count} characters",
                                          count=MAX_EXPLANATION))
                if not d.get("alert"):
                    raise EventError(Text("event.explanation_alert", "an explanation goes with an alert: alert the "
                                          "call to explain it"))
                extra["explanation"] = explanation
            return CallMade(seat=seat(_req(d, "seat")), call=parse_call(str(_req(d, "call"))),
                            alert=bool(d.get("alert", False)), **extra)
        if kind == "contract":
            text = str(_req(d, "contract"))
            c = parse_contract(text)
            decl = d.get("declarer")
            if c is not None and not decl:
                raise EventError(Text("event.contract_declarer", "a contract needs its declarer"))
            return ContractRecorded(contract=str(c) if c else "PASS", declarer=seat(decl) if c else None, **extra)
        if kind == "result":
            return _result(d, extra)
        if kind == "card":
            return CardPlayed(seat=seat(_req(d, "seat")), card=parse_card(str(_req(d, "card"))), **extra)
        if kind == "exposed":
            cards = _req(d, "cards")
            if not isinstance(cards, list) or not cards:
                raise EventError(Text("event.cards_nonempty", "cards must be a non-empty list"))
            return CardExposed(seat=seat(_req(d, "seat")), cards=tuple(parse_card(str(c)) for c in cards),
                               deliberate=bool(d.get("deliberate", False)), **extra)
        if kind == "claim":
            tricks = _int(_req(d, "tricks"), "tricks")
            if not 0 <= tricks <= 13:
                raise EventError(Text("event.claim_tricks", "claimed tricks must be 0..13"))
            return ClaimMade(seat=seat(_req(d, "seat")), tricks=tricks, **extra)
        if kind == "claim_response":
            accept = _req(d, "accept")
            if not isinstance(accept, bool):
                raise EventError(Text("event.accept_boolean", "accept must be true or false"))
            return ClaimResponded(seat=seat(_req(d, "seat")), accept=accept, **extra)
        if kind == "ruling":
            s = d.get("seat")
            t = d.get("tricks")
            note = d.get("note")
            if note is not None and not isinstance(note, str):
                raise EventError(Text("event.ruling_note", "a ruling's note is text"))
            return RulingGiven(code=str(_req(d, "code")), option=str(_req(d, "option")),
                               seat=seat(s) if s else None, tricks=_int(t, "tricks") if t is not None else None,
                               note=note or None, **extra)
    except (CardError, CallError, ValueError) as err:
        if isinstance(err, EventError):
            raise
        # the complaint joined, not a parameter: a keyed one (a card's, table/cards.py) is worded by the page too
        why = err.args[0] if err.args and isinstance(err.args[0], str) else str(err)
        raise EventError(Text("event.malformed", "{kind} event: ", kind=kind) + why) from err
    raise EventError(Text("event.unknown_type", "unknown event type {value}", value=repr(kind)))


def _result(d: dict[str, Any], extra: dict[str, Any]) -> ResultRecorded:
    """A keyed result: a contract with its declarer, lead and tricks, or a passed-out board with none of them."""
    c = parse_contract(str(_req(d, "contract")))
    if c is None:
        if any(d.get(k) is not None for k in ("declarer", "lead", "tricks")):
            raise EventError(Text("event.passed_out", "a passed-out board has no declarer, lead or tricks"))
        return ResultRecorded(contract="PASS", **extra)
    decl = seat(str(_req(d, "declarer")))
    tricks = _int(_req(d, "tricks"), "tricks")
    if not 0 <= tricks <= 13:
        raise EventError(Text("event.result_tricks", "tricks is the declarer side's total, 0..13"))
    lead = d.get("lead")
    return ResultRecorded(contract=str(c), declarer=decl, lead=parse_card(str(lead)) if lead is not None else None,
                          tricks=tricks, **extra)


def read_jsonl(stream: IO[str]) -> Iterator[TableEvent]:
    for lineno, line in enumerate(stream, 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as err:
            raise EventError(f"line {lineno}: not JSON ({err.msg})") from err
        try:
            yield event_from_dict(obj)
        except EventError as err:
            raise EventError(f"line {lineno}: {err}") from err


def write_jsonl(events: Iterable[TableEvent], stream: IO[str]) -> None:
    for e in events:
        stream.write(json.dumps(to_dict(e), ensure_ascii=False) + "\n")
