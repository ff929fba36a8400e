"""BBO LIN files (vugraph matches and single-board hand records) <-> game records.

LIN is a flat ``tag|value|tag|value|...`` stream; line breaks carry no meaning. A vugraph file has a
header (``vg|`` title, ``rs|`` results, ``pn|`` names) and one record per ``qx|o12`` / ``qx|c12`` (open
or closed room). A hand-record or single-board LIN has no ``qx`` and is one record.

Reading is tolerant: real files differ in card and call case, line ends, encodings, alert markup, player
lists and claims. A record that cannot be read gets
``record.error``; its ``events`` are then the part read before the problem, and the next record is read.

Choices made here, because LIN leaves them open:

- Seats: LIN never names who called or played. Calls go in rotation from the dealer; a card is played
  by the seat whose turn it is (opening leader = declarer's LHO, then trick winners), as vugraph
  records cards in the order played; without a contract, by the card's owner in the deal.
- ``!`` after a call is the alert. An ``an|`` text right after an alerted call is that alert's explanation
  (BBO's form, and the writer's); any other ``an|`` is a comment (kept in ``notes``), not an alert:
  commentators annotate unalerted calls too.
- Every call is kept, including a call after the auction has closed (vugraph operators sometimes key a
  fourth pass): the engine flags it (Law 39) rather than the reader hiding it.
- ``mc|N`` is the number of tricks the declaring side ends with; vugraph writes it only for an agreed
  claim, so it becomes a claim by declarer accepted by both defenders.
- ``rs|`` lists results in board order, open room then closed room: the entry for board ``b`` in room
  ``r`` (0 open, 1 closed) is ``rs[2 * (b - first) + r]`` with ``first`` the 4th ``vg`` field. Files
  exist where the list does not line up, so ``record.recorded`` is filled only when that entry names the
  contract and declarer the record's own auction reached.
- ``recorded.contract`` is ``"4SX"``-style (``"PASS"`` for a passed-out board), ``recorded.result`` the
  declarer's total tricks as a string (PBN ``Result`` style); the verbatim entry is ``tags["LinResult"]``.
- The deal is a PBN string with North first, ``-`` for a hand the file does not give.
- Writing: LIN carries a contract only as an auction, so a contract entered without one (a traveller)
  is written as the shortest auction reaching it (passes to declarer, the bid, X by declarer's LHO, XX
  by declarer's partner, three passes), marked by an ``an`` note after its first call; reading that note
  turns the calls back into the entered contract. A comma inside a player's name is written ``;`` (pn is
  split at every comma by other readers) and read back as a comma.
- When a card's owner in the deal is not the seat due to play it, the seat due still plays it and a
  note says where play and deal first part: some real files carry an ``md`` that does not belong to the
  play recorded, and the engine flags each such card against the hand record (Law 13A1).
"""
from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from itertools import takewhile
from typing import IO

from ..board import Vulnerability, parse_vulnerability
from ..calls import DOUBLE, PASS, REDOUBLE, is_bid, parse_call
from ..cards import ALL_CARDS, RANK_VALUE, SEATS, CardError, Deal, Seat, hand_to_pbn, parse_card
from ..errors import BridgeError
from ..events import (
    BoardStarted,
    CallMade,
    CardPlayed,
    ClaimMade,
    ClaimResponded,
    ContractRecorded,
    TableEvent,
    board_started,
)
from ..record import GameRecord, Recorded
from ..scoring import parse_contract
from ..texts import Text
from ..tricks import trick_winner_index, trump_of

__all__ = ["read_lin", "write_lin", "LinError"]

log = logging.getLogger(__name__)

LIN_ORDER = (Seat.S, Seat.W, Seat.N, Seat.E)          # md hand order; dealer digit i+1
_DIGIT_SEAT = {str(i + 1): s for i, s in enumerate(LIN_ORDER)}
_SEAT_DIGIT = {s: d for d, s in _DIGIT_SEAT.items()}
_VUL_LIN = {Vulnerability.NONE: "o", Vulnerability.NS: "n", Vulnerability.EW: "e", Vulnerability.ALL: "b"}
_LIN_VUL = {"o": "None", "0": "None", "-": "None", "n": "NS", "e": "EW", "b": "All"}
_SCORING = {"I": "IMP", "P": "MP", "B": "BAM"}
_SEAT_WORD = {Seat.N: "North", Seat.E: "East", Seat.S: "South", Seat.W: "West"}
_BODY = {"md", "mb", "pc", "mc"}                      # tags that mean the record's board has begun
#: The ``an`` note after the first call of an auction the writer synthesized for a contract entered without
#: one (LIN can carry a contract only as an auction); read_lin turns such an auction back into the contract.
_SYNTHESIZED = "bridgetable: auction synthesized from a contract entered without an auction"
_RS_ENTRY = re.compile(r"([1-7])([CDHSN])([NESW])(X{0,2})(=|[+-]\d{1,2})", re.I)


class LinError(BridgeError, ValueError):
    """A LIN record that cannot be read (caught per record and stored as ``record.error``)."""


# ----------------------------------------------------------------------------------------- reading

def _decode(data: bytes | bytearray) -> str:
    # Line by line: real files mix UTF-8 and Latin-1 lines (names pasted in from other tools).
    out = []
    for line in data.split(b"\n"):
        try:
            out.append(line.decode("utf-8"))
        except UnicodeDecodeError:
            out.append(line.decode("latin-1"))
    return "\n".join(out)


def _read_text(path_or_stream: str | os.PathLike[str] | IO[str] | IO[bytes]) -> tuple[str, str]:
    if isinstance(path_or_stream, (str, os.PathLike)):
        with open(path_or_stream, "rb") as f:
            return _decode(f.read()), os.fspath(path_or_stream)
    data = path_or_stream.read()
    name = str(getattr(path_or_stream, "name", "<lin>"))
    return (_decode(data) if isinstance(data, (bytes, bytearray)) else data), name


def _tokens(text: str) -> list[tuple[str, str]]:
    parts = text.split("|")
    # tags carry the line breaks that follow ``pg||``; a dangling last part has no value and is dropped
    return [(parts[i].strip().lower(), parts[i + 1]) for i in range(0, len(parts) - 1, 2)]


@dataclass
class _FileState:
    """Header values in force: a later ``vg``/``rs``/``pn`` replaces them for the boards that follow."""
    vg: list[str] = field(default_factory=list)
    rs: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)


def _clean(text: str) -> str:
    return " ".join(text.split())                     # tabs, CR and runs of blanks -> one space


def _an_text(text: str) -> str:
    """A free text as an ``an`` value: one line, and a slash for a bar (LIN has no escape)."""
    return _clean(text).replace("|", "/")


def _mb(call: str, alert: bool, explanation: str | None) -> str:
    """A call as BBO writes it: ``mb|1N!|``, an alert's written explanation in an ``an`` right after it."""
    out = f"mb|{_lin_call(call)}{'!' if alert else ''}|"
    if alert and explanation:
        out += f"an|{_an_text(explanation)}|"
    return out


def _names(value: str) -> list[str]:
    """``pn`` list (S,W,N,E per room). A comma inside a name (``Levin, mrs``) splits it: an entry that
    starts with a blank is glued back to the one before until the count is 4 or 8."""
    names = value.split(",")
    i = 1
    while len(names) not in (4, 8) and i < len(names):
        if names[i][:1] == " ":
            names[i - 1:i + 1] = [names[i - 1] + "," + names[i]]
        else:
            i += 1
    # our writer writes a comma inside a name as ";" (see write_lin): read it back as the comma
    return [_clean(n).replace(";", ",") for n in names] if len(names) in (4, 8) else []


def _apply_header(tag: str, value: str, state: _FileState) -> None:
    if tag == "vg":
        state.vg = [_clean(v) for v in value.split(",")]
    elif tag == "rs":
        state.rs = [v.strip() for v in value.split(",")]
    elif tag == "pn":
        state.names = _names(value)


def read_lin(path_or_stream: str | os.PathLike[str] | IO[str] | IO[bytes],
             source: str | None = None) -> Iterator[GameRecord]:
    """Yield one ``GameRecord`` per board of a LIN file (a path, or a text or binary stream)."""
    text, name = _read_text(path_or_stream)
    source = source or name
    tokens = _tokens(text)
    state = _FileState()
    if any(t == "qx" for t, _ in tokens):
        chunks: list[list[tuple[str, str]]] = []
        for tok in tokens:
            if tok[0] == "qx":
                chunks.append([tok])
            elif chunks:
                chunks[-1].append(tok)
            else:                                      # before the first qx only the header counts
                _apply_header(*tok, state)
    elif any(t in _BODY for t, _ in tokens):
        chunks = [tokens]                              # a single board without qx
    else:
        return                                         # header only, or not LIN: no boards
    for index, chunk in enumerate(chunks):
        yield _record(chunk, state, source, index)


def _record(chunk: list[tuple[str, str]], state: _FileState, source: str, index: int) -> GameRecord:
    rec = GameRecord(source=source, index=index)
    head: dict[str, str] = {}
    body: list[tuple[str, str]] = []
    vg, rs, names = state.vg, state.rs, state.names
    started = False
    for tag, value in chunk:
        if tag in ("vg", "rs", "pn"):
            _apply_header(tag, value, state)
            if not started:                             # before the board begins: it is this board's
                vg, rs, names = state.vg, state.rs, state.names
        elif tag in ("qx", "ah", "md", "sv"):
            head.setdefault(tag, value)
        elif tag in ("mb", "an", "pc", "mc", "nt"):
            body.append((tag, value))
        started = started or tag in _BODY

    board, room = _board_number(head)
    _tags(rec, vg, names, room)
    try:
        dealer, deal = _parse_md(head["md"]) if "md" in head else (None, None)
        start = _board_event(board, dealer, head.get("sv"), deal)
        rec.events.append(start)
        calls = _body(rec, body, start, deal)
        if _SYNTHESIZED in rec.notes:
            calls = _unsynthesize(rec, calls)
        if rs and vg:
            _match_result(rec, calls, rs, vg, board, room)
    except ValueError as err:                           # CardError, CallError, EventError, LinError
        # keyed where the complaint is (table/texts.py): a page words the record and, when keyed, the complaint
        where = (Text("lin.where_board", "record {record} (board {board}): ", record=index, board=board)
                 if board is not None else Text("lin.where", "record {record}: ", record=index))
        rec.error = where + (err.args[0] if err.args and isinstance(err.args[0], str) else str(err))
    return rec


def _board_number(head: dict[str, str]) -> tuple[int | None, str | None]:
    qx = head.get("qx", "").strip()
    room = {"o": "Open", "c": "Closed"}.get(qx[:1].lower())
    m = re.search(r"\d+", head.get("ah", "")) or re.match(r"[oc]?(\d+)", qx, re.I)
    digits = m.group(m.lastindex or 0) if m else ""
    n = int(digits) if 0 < len(digits) <= 5 else 0     # int() of a huge digit run would raise
    return (n or None), room


def _tags(rec: GameRecord, vg: list[str], names: list[str], room: str | None) -> None:
    for key, i in (("Event", 0), ("Stage", 1), ("Scoring", 2), ("HomeTeam", 5), ("VisitTeam", 7)):
        if i < len(vg) and vg[i]:
            rec.tags[key] = _SCORING.get(vg[i], vg[i]) if key == "Scoring" else vg[i]
    if room:
        rec.tags["Room"] = room
    if len(names) == 8 and room == "Closed":
        names = names[4:]
    for s, n in zip(LIN_ORDER, names[:4]):
        if n and n.lower() != _SEAT_WORD[s].lower():    # "South,West,..." placeholders name nobody
            rec.tags[_SEAT_WORD[s]] = n


def _parse_hand(text: str) -> list[str]:
    """``SAKQHT9DCxx`` -> cards; ``10`` is accepted for T, blanks are ignored."""
    cards, suit = [], None
    t = text.upper().replace("10", "T")
    for ch in t:
        if ch in "SHDC":
            suit = ch
        elif ch in RANK_VALUE and suit:
            cards.append(suit + ch)
        elif not ch.isspace():
            raise LinError(Text("lin.bad_hand", "md: bad hand {hand}", hand=repr(text.strip())))
    return cards


def _parse_md(value: str) -> tuple[Seat | None, str | None]:
    """``md|3S..H..D..C..,...`` -> (dealer, PBN deal or None). Hands come S, W, N, E; when three are given
    the fourth is the rest of the pack."""
    v = value.strip()
    dealer = _DIGIT_SEAT.get(v[:1])
    if v[:1].isdigit():
        if dealer is None:
            raise LinError(Text("lin.dealer_digit", "md: dealer digit {digit} is not 1-4", digit=repr(v[0])))
        v = v[1:]
    parts = v.split(",")
    if len(parts) > 4 and any(p.strip() for p in parts[4:]):
        raise LinError(Text("lin.hands", "md: {count} hands", count=len(parts)))
    hands = {s: _parse_hand(p) for s, p in zip(LIN_ORDER, parts)}
    hands = {s: cs for s, cs in hands.items() if cs}
    if not hands:
        return dealer, None
    for s, cs in hands.items():
        if len(set(cs)) != len(cs):
            raise LinError(Text("lin.card_twice", "md: {seat_name} holds a card twice", seat_name=s))
        if len(cs) != 13:
            raise LinError(Text("lin.not_13", "md: {seat_name} holds {count} cards, not 13", seat_name=s,
                                     count=len(cs)))
    d = Deal(hands, complete=False)                     # raises CardError on a card in two hands
    if len(hands) == 3:
        missing = next(s for s in SEATS if s not in hands)
        hands[missing] = [c for c in ALL_CARDS if c not in d.owner]
    return dealer, _pbn(hands)


def _pbn(hands: dict[Seat, list[str]]) -> str:
    return "N:" + " ".join(hand_to_pbn(hands[s]) if hands.get(s) else "-" for s in SEATS)


def _board_event(board: int | None, dealer: Seat | None, sv: str | None, deal: str | None) -> BoardStarted:
    vul = None
    if sv is not None and sv.strip():
        key = sv.strip()
        try:                                            # LIN letters first, then spelled-out forms
            vul = _LIN_VUL.get(key.lower()) or parse_vulnerability(key).value
        except ValueError:
            raise LinError(Text("lin.vulnerability", "sv: unknown vulnerability {value}", value=repr(key))) from None
    if board is None and dealer is None:
        raise LinError(Text("lin.no_dealer", "no board number and no dealer digit in md: the dealer is unknown"))
    if board is None and vul is None:
        raise LinError(Text("lin.no_vulnerability", "no board number and no sv: the vulnerability is unknown"))
    return board_started(board, dealer=dealer, vulnerable=vul, deal=deal)


def _closed(calls: list[tuple[Seat, str]]) -> bool:
    return len(calls) >= 4 and all(c == PASS for _, c in calls[-3:])


def _contract(calls: list[tuple[Seat, str]]) -> tuple[str | None, Seat | None]:
    """The last bid with its double (``"4SX"``) and declarer: the first of that side to name the strain."""
    last, dbl = None, ""
    for i, (_, c) in enumerate(calls):
        if is_bid(c):
            last, dbl = i, ""
        elif c == DOUBLE:
            dbl = "X"
        elif c == REDOUBLE:
            dbl = "XX"
    if last is None:
        return None, None
    side, strain = calls[last][0].side, calls[last][1][1:]
    declarer = next(s for s, c in calls if is_bid(c) and c[1:] == strain and s.side == side)
    return calls[last][1] + dbl, declarer


def _body(rec: GameRecord, body: list[tuple[str, str]], start: BoardStarted,
          deal: str | None) -> list[tuple[Seat, str]]:
    owner = Deal.from_pbn(deal).owner if deal else {}
    calls: list[tuple[Seat, str]] = []
    closed = False
    trick: list[tuple[Seat, str]] = []
    leader: Seat | None = None
    trump: str | None = None
    in_play = misfit = False
    last_call: tuple[Seat, str] | None = None
    after_call = False                                  # the tag before is an ``mb``: an ``an`` explains it
    for tag, value in body:
        after_call, was_call = tag == "mb", after_call
        if tag == "mb":
            text = value.strip()
            call = parse_call(text.replace("!", ""))
            seat = SEATS[(SEATS.index(start.dealer) + len(calls)) % 4]
            rec.events.append(CallMade(seat=seat, call=call, alert="!" in text))
            calls.append((seat, call))
            last_call = (seat, call)
            closed = closed or _closed(calls)
        elif tag == "an":
            last = rec.events[-1] if was_call else None
            if value.strip() == _SYNTHESIZED:
                rec.notes.append(_SYNTHESIZED)           # taken out again by _unsynthesize
            elif value.strip() and isinstance(last, CallMade) and last.alert and not last.explanation:
                rec.events[-1] = replace(last, explanation=_clean(value))     # the alert's explanation
            elif value.strip():
                who = f"{last_call[0]} {last_call[1]}: " if last_call else ""
                rec.notes.append(who + value.strip())
        elif tag == "nt":
            if value.strip():
                rec.notes.append(value.strip())
        elif tag == "pc":
            card = parse_card(value)
            if not in_play:                             # the contract is whatever the auction reached
                in_play = True
                contract, declarer = _contract(calls)
                leader = declarer.lho if declarer else None
                trump = trump_of(contract.rstrip("X")[1:]) if contract else None
            if len(trick) == 4:
                leader = trick[trick_winner_index([c for _, c in trick], trump)][0]
                trick = []
            due = SEATS[(SEATS.index(leader) + len(trick)) % 4] if leader else None
            # LIN records cards in the order played: the turn decides the seat; a deal that disagrees is
            # the engine's to flag (13A1), not a reason to move the card to another seat
            player = due or owner.get(card)
            if player is None:
                raise LinError(Text("lin.pc_unknown", "pc|{value}: no deal and no contract, so who played it "
                                    "is unknown",
                                    value=value.strip()))
            holder = owner.get(card)
            if due and holder and holder != due and not misfit:     # once is enough
                misfit = True
                rec.notes.append(f"play does not fit the deal: {card} belongs to {holder} but {due} is due "
                                 f"to play (card {sum(isinstance(e, CardPlayed) for e in rec.events) + 1})")
            rec.events.append(CardPlayed(seat=player, card=card))
            trick.append((player, card))
        elif tag == "mc":
            try:
                tricks = int(value.strip())
            except ValueError:
                raise LinError(Text("lin.mc_number", "mc|{value}: not a number of tricks",
                                    value=value.strip())) from None
            if not 0 <= tricks <= 13:
                raise LinError(Text("lin.mc_range", "mc|{value}: a side takes 0 to 13 tricks", value=tricks))
            declarer = _contract(calls)[1]
            if declarer is None:
                raise LinError(Text("lin.mc_no_contract", "mc|{value}: a claim, but the auction reached no contract",
                                    value=tricks))
            rec.events += [ClaimMade(seat=declarer, tricks=tricks),
                           ClaimResponded(seat=declarer.lho, accept=True),
                           ClaimResponded(seat=declarer.rho, accept=True)]
    return calls


def _unsynthesize(rec: GameRecord, calls: list[tuple[Seat, str]]) -> list[tuple[Seat, str]]:
    """A record whose auction our writer synthesized from a contract entered without one (see
    :func:`_synthetic_calls`): the calls become that contract again, as a ``ContractRecorded``."""
    rec.notes.remove(_SYNTHESIZED)
    if not _closed(calls):
        raise LinError(Text("lin.synthesized", "an auction marked as synthesized does not close"))
    contract, declarer = _contract(calls)
    entered = ContractRecorded("PASS") if contract is None else ContractRecorded(contract, declarer)
    at = next(i for i, e in enumerate(rec.events) if isinstance(e, CallMade))
    rec.events[:] = (rec.events[:at] + [entered]
                     + [e for e in rec.events[at:] if not isinstance(e, CallMade)])
    return []


def _match_result(rec: GameRecord, calls: list[tuple[Seat, str]], rs: list[str], vg: list[str],
                  board: int | None, room: str | None) -> None:
    """Fill ``rec.recorded`` from the ``rs`` entry of this board, if that entry is about this table."""
    try:
        first, last = int(vg[3]), int(vg[4])
    except (IndexError, ValueError):
        return
    if board is None or room is None or not first <= board <= last or not _closed(calls):
        return
    i = 2 * (board - first) + (room == "Closed")
    entry = rs[i].strip() if i < len(rs) else ""
    contract, declarer = _contract(calls)
    if entry.upper() == "PASS" and contract is None:
        rec.recorded = Recorded(contract="PASS")
    else:
        m = _RS_ENTRY.fullmatch(entry)
        if not m or contract is None or declarer is None:
            return
        level, strain, dseat, dbl, res = m.groups()
        said = level + ("NT" if strain.upper() == "N" else strain.upper()) + dbl.upper()
        if said != contract or dseat.upper() != declarer:
            return
        tricks = int(level) + 6 + (0 if res == "=" else int(res))
        if not 0 <= tricks <= 13:
            return
        rec.recorded = Recorded(contract=said, declarer=declarer.value, result=str(tricks))
    rec.tags["LinResult"] = entry


# ----------------------------------------------------------------------------------------- writing

def _md(start: BoardStarted) -> str:
    hands: dict[Seat, frozenset[str]] = {}
    if start.deal:
        try:
            hands = Deal.from_pbn(start.deal).hands
        except CardError as err:
            log.warning("board %s: deal %r not written: %s", start.board, start.deal, err)
    parts = []
    for s in LIN_ORDER:
        h = hand_to_pbn(hands.get(s, ())).split(".")
        parts.append("".join(suit + ranks for suit, ranks in zip("SHDC", h)) if hands.get(s) else "")
    return _SEAT_DIGIT[start.dealer] + ",".join(parts)


def _played_out_of_turn(start: BoardStarted, events: list[TableEvent]) -> bool:
    """Whether a card was played by another seat than the one read_lin will give it: it takes the player from
    the turn (declarer's LHO leads, then each trick's winner), the auction's seats from the rotation."""
    calls = [(SEATS[(SEATS.index(start.dealer) + k) % 4], e.call)
             for k, e in enumerate(e for e in events if isinstance(e, CallMade))]
    contract, declarer = _contract(calls)
    if declarer is None or contract is None:
        return False                             # no contract: read_lin gives each card to its owner
    trump = trump_of(contract.rstrip("X")[1:])
    leader, trick = declarer.lho, list[tuple[Seat, str]]()
    for e in events:
        if not isinstance(e, CardPlayed):
            continue
        if len(trick) == 4:
            leader, trick = trick[trick_winner_index([c for _, c in trick], trump)][0], []
        if e.seat != SEATS[(SEATS.index(leader) + len(trick)) % 4]:
            return True
        trick.append((e.seat, e.card))
    return False


def _line(rec: GameRecord, names: str) -> str | None:
    """One board; ``names`` is its ``pn`` value (written on every board: endplay, for one, starts a new
    board at each ``pn``). A contract entered without an auction is written as a synthesized auction
    marked by an ``an`` note (:data:`_SYNTHESIZED`), which read_lin turns back into the contract."""
    start = next((e for e in rec.events if isinstance(e, BoardStarted)), None)
    if start is None:
        log.warning("%s record %s: no board event, not written", rec.source, rec.index)
        return None
    room = "c" if rec.tags.get("Room") == "Closed" else "o"
    out = [f"qx|{room}{start.board or ''}|", f"pn|{names}|"]
    if start.board is not None:
        out.append(f"ah|Board {start.board}|")
    out.append(f"md|{_md(start)}|sv|{_VUL_LIN[start.vulnerable]}|")
    in_play, cards = False, 0
    events = list(rec.events)
    calls = [e for e in events if isinstance(e, CallMade)]
    if any(e.seat != SEATS[(SEATS.index(start.dealer) + k) % 4] for k, e in enumerate(calls)):
        log.warning("%s record %s: calls out of rotation: LIN implies seats by rotation, so they read back "
                    "at other seats", rec.source, rec.index)
    marked = -1                                  # the call the synthesized-auction note follows
    entered = next((e for e in events if isinstance(e, ContractRecorded)), None)
    if entered is not None and not any(isinstance(e, CallMade) for e in events):
        synthetic = _synthetic_calls(entered, start.dealer)
        if synthetic:
            marked = events.index(entered)
            events[marked:marked + 1] = synthetic
    if _played_out_of_turn(start, events):
        log.warning("%s record %s: a card played out of turn: LIN implies the player by the turn, so it reads "
                    "back at another seat", rec.source, rec.index)
    for i, e in enumerate(events):
        if isinstance(e, (CardPlayed, ClaimMade)) and not in_play:
            out.append("pg||")                          # vugraph style: the auction is a page of its own
            in_play = True
        if isinstance(e, CallMade):
            out.append(_mb(e.call, e.alert, e.explanation))
            if i == marked:
                out.append(f"an|{_SYNTHESIZED}|")
        elif isinstance(e, CardPlayed):
            out.append(f"pc|{e.card}|")
            cards += 1
            if cards % 4 == 0:
                out.append("pg||")
        elif isinstance(e, ClaimMade):
            answers = takewhile(lambda a: isinstance(a, ClaimResponded), events[i + 1:])
            if not all(a.accept for a in answers if isinstance(a, ClaimResponded)):   # LIN says only "agreed claim"
                log.warning("%s record %s: rejected claim not written", rec.source, rec.index)
                continue
            out.append(f"mc|{e.tricks}|pg||")
        elif not isinstance(e, (BoardStarted, ClaimResponded)):
            log.warning("%s record %s: LIN has no place for %s, not written", rec.source, rec.index, e.type)
    if not in_play:
        out.append("pg||")
    return "".join(out)


def _synthetic_calls(entered: ContractRecorded, dealer: Seat) -> list[CallMade]:
    """An auction reaching a contract entered without one: passes from the dealer up to declarer, the
    bid, the double (by declarer's LHO) and redouble (by declarer's partner), three passes; four passes
    for a passed-out board. ``[]`` when it cannot be built (no declarer)."""
    if entered.contract == "PASS":
        return [CallMade(seat=s, call=PASS) for s in (dealer, dealer.lho, dealer.partner, dealer.rho)]
    try:
        c = parse_contract(entered.contract)
    except ValueError:
        return []
    declarer = entered.declarer
    if c is None or declarer is None:
        return []
    calls: list[CallMade] = []
    seat = dealer
    while seat != declarer:
        calls.append(CallMade(seat=seat, call=PASS))
        seat = seat.lho
    calls.append(CallMade(seat=declarer, call=f"{c.level}{c.strain}"))
    if c.risk:
        calls.append(CallMade(seat=declarer.lho, call=DOUBLE))
    if c.risk == "XX":
        calls.append(CallMade(seat=declarer.partner, call=REDOUBLE))
    seat = calls[-1].seat.lho
    for _ in range(3):
        calls.append(CallMade(seat=seat, call=PASS))
        seat = seat.lho
    return calls


def _lin_call(call: str) -> str:
    return {PASS: "p", DOUBLE: "d", REDOUBLE: "r"}.get(call) or call.replace("NT", "N")


def write_lin(records: Iterable[GameRecord], stream: IO[str]) -> None:
    """Write vugraph-style LIN, one line per board. LIN implies seats, so calls and cards are written in
    order and read back in rotation; hand reads, rulings and rejected claims have no LIN form."""
    for rec in records:
        # LIN has no escape and readers split pn at every comma: a comma inside a name is written ";"
        # (read back as a comma by read_lin); pn starts every board, as readers split boards at pn
        names = ",".join(_clean(rec.tags.get(_SEAT_WORD[s], "").replace("|", " ")).replace(",", ";")
                         for s in LIN_ORDER)
        line = _line(rec, names)
        if line is not None:
            stream.write(line + "\n")
