"""PBN (Portable Bridge Notation 2.1) files <-> game records.

Reading is tolerant (PBN "import format" and the mess real files contain); writing is strict PBN 2.1
"export format". A record that cannot be read fully gets ``record.error`` (``"record 12 (board 7, line
345): ..."``) with the events that could still be read, and the next record is read; nothing raises.

Choices made here, where PBN or real files leave them open:

- Games end at a blank line (outside a ``{}`` comment) or at a repeated ``Event``/``Board`` tag. A blank
  line followed by more section data (no tag) does not end the game: files split auctions that way.
- ``#`` takes the tag's value from the nearest previous game that has the tag; ``##text`` sets ``text``
  for this and all later games (PBN 2.1 section 4.8).
- The deal in ``BoardStarted`` is normalised North first with ``-`` for an unknown hand, like the LIN
  reader, so deals compare as strings across formats; the writer puts the dealer first (export rule).
- Calls go in rotation from the ``Auction`` tag's seat; ``-`` and ``^S`` take a turn without a call;
  ``AP`` adds the passes that close the auction. Alert = a ``!`` suffix, or a note reference whose
  ``Note`` text says "alert" (annotators explain unalerted calls too, so a note alone is not an alert);
  a note ``Alert: <text>``, as the writer makes it, also gives the alert's written explanation.
- ``Play`` lines list each trick in seat order from the ``Play`` tag's seat; the play order is rebuilt
  from the trump (the auction's last bid, else the ``Contract`` tag) and each trick's winner. ``^L``
  marks an irregular leader. A trick cut short by a claim yields its cards up to the first ``-``.
- A numeric ``Result`` (declarer's total tricks) when fewer than 13 tricks were played means the claim
  was agreed: ``ClaimMade`` by declarer and both defenders' ``ClaimResponded(accept=True)``; not when
  the play ends with ``+`` (PBN: a partial result).
- ``recorded`` holds the raw Contract/Declarer/Result/Score values (whitespace stripped); ``?`` (PBN
  "unknown") is read as absent, so the writer's ``?`` for an absent value reads back as ``None``.
- Event objects are shared between records (frozen dataclasses, cached): building ~70 of them per
  record would cost more than the whole parse. Compare events with ``==``, not ``is``.
"""
from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import lru_cache
from itertools import combinations, takewhile
from typing import IO, Literal, cast

from ..board import parse_vulnerability
from ..calls import DOUBLE, PASS, REDOUBLE, CallError, bid_key, is_bid, parse_call
from ..cards import ALL_CARDS, SEATS, CardError, Deal, Seat, hand_to_pbn, parse_card
from ..events import (
    BoardStarted,
    CallMade,
    CardPlayed,
    ClaimMade,
    ClaimResponded,
    ContractRecorded,
    EventError,
    TableEvent,
    board_started,
)
from ..record import GameRecord, Recorded
from ..scoring import parse_contract
from ..texts import Text
from ..tricks import trick_winner_index, trump_of

__all__ = ["read_pbn", "write_pbn"]

_IDX = {s: i for i, s in enumerate(SEATS)}
_SEAT = {c: s for s in SEATS for c in (s.value, s.value.lower())}
_RECORDED = ("Contract", "Declarer", "Result", "Score")
_NOT_TAGS = frozenset(_RECORDED + ("Auction", "Play", "Note"))
_MTS = ("Event", "Site", "Date", "Board", "West", "North", "East", "South", "Dealer", "Vulnerable", "Deal",
        "Scoring", "Declarer", "Contract", "Result")

# ------------------------------------------------------------------------------------------ reading

# A string token: (?:[^"\\]|\\.)* unrolled, so it never backtracks; no line breaks inside (PBN 3.2).
_VALUE = r'"([^"\\\n]*(?:\\[^\n][^"\\\n]*)*)"'
_TAG_RE = re.compile(r'\[\s*([A-Za-z0-9_]+)\s*' + _VALUE + r'\s*\]')
_EXPORT_TAG_RE = re.compile(r'\[([A-Za-z0-9_]+) "([^"\\\n]*)"\]')    # the usual case, twice as fast
_BLANKS_RE = re.compile(r'(\n[ \t]*\n\s*)')         # a blank line (and any that follow) ends a game
# a tag pair (kept as it is: its value may hold { or ;), a {} comment (maybe unclosed), a ; comment
_COMMENT_RE = re.compile(r'(\[\s*[A-Za-z0-9_]+\s*' + _VALUE.replace("(", "(?:", 1) + r'\s*\])|\{([^}]*)(\}?)|;([^\n]*)')
_MARK_RE = re.compile(r'\x01(\d+)\x01')
_CTRL_RE = re.compile(r'[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]')
_PIECE_RE = re.compile(r'=\d+=|\$\d+|\^.?|[!?]+|[^=$^!?]+|.')
PathOrStream = str | os.PathLike[str] | IO[str] | IO[bytes]
_NOTE_RE = re.compile(r'\s*(\d+)\s*:')
_EXPLAINED_RE = re.compile(r'\s*alert\s*:(.*\S)', re.I)    # "Alert: 15-17", the writer's explained alert


def _load(path_or_stream: PathOrStream, source: str | None) -> tuple[str, str, str | None, bool]:
    """The file's text, its name, an error when it cannot be read at all, and whether the text holds
    stray control bytes."""
    name = source
    data: str | bytes
    try:
        if isinstance(path_or_stream, (str, os.PathLike)):
            name = name or os.fspath(path_or_stream)
            with open(path_or_stream, "rb") as f:
                data = f.read()
        else:
            name = name or str(getattr(path_or_stream, "name", "<pbn>"))
            data = path_or_stream.read()
    except (OSError, ValueError) as err:
        return "", name or "<pbn>", f"cannot read the file: {err}", False
    if isinstance(data, (bytes, bytearray)):
        raw = data
        if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
            try:
                data = raw.decode("utf-16")
            except UnicodeDecodeError:
                return "", name, "not text: a UTF-16 byte order mark over undecodable data", False
        else:
            try:
                data = raw.decode("utf-8")
            except UnicodeDecodeError:
                data = raw.decode("latin-1")        # ISO-8859-1 is PBN's own character set
    if not isinstance(data, str):
        return "", name, f"cannot read a {type(data).__name__}", False
    text = data.lstrip("\ufeff").rstrip("\x1a \t\r\n")   # BOM; DOS end-of-file marks
    bad = _CTRL_RE.findall(text) if _CTRL_RE.search(text) else ()
    if len(bad) > 16 and len(bad) * 50 > len(text):   # > 2 % control bytes: binary, not a damaged text
        return "", name, Text("pbn.not_text", "not a text file ({bad} binary control bytes in {size} characters)",
                               bad=len(bad), size=len(text)), True
    return text, name, None, bool(bad)


class _Raw:
    """One game as scanned: tags in order of appearance, Auction/Play tokens, notes, problems."""
    __slots__ = ("tags", "auction", "play", "notes", "note_tags", "line", "problems", "inherit")

    def __init__(self, line: int) -> None:
        self.tags: dict[str, str] = {}
        self.auction: list[str] | None = None
        self.play: list[str] | None = None
        self.notes: list[str] = []
        self.note_tags: dict[str, str] = {}     # note index -> text, for =n= references
        self.line = line
        self.problems: list[str] = []
        self.inherit = False                    # some value may start with "#"


def _not_a_tag_pair(line: int, bad: str | None) -> Text:
    return Text("pbn.not_a_tag_pair", "line {line}: not a tag pair: {value}", line=line, value=repr(bad))


def _unescape(value: str) -> str:
    # Only \\ and \" are escapes (PBN 3.2); other backslashes are text (column widths like "\2R").
    return re.sub(r'\\([\\"])', r'\1', value)


def _scan(text: str, dirty: bool = True) -> Iterator[_Raw]:
    """Split the text into games.

    Speed matters (the whole corpus is read in benchmarks), so the work is done by C-level ``re.split``
    calls: the text is cut at blank lines, each piece at its tag pairs. Before that, and only in files
    that have them, escape lines become a whitespace character (so they neither end a game nor shift line
    numbers) and comments become marker tokens ``\x01n\x01`` (so a blank line inside ``{}`` ends nothing
    and ``[`` inside a comment is no tag)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    late: list[tuple[int, str]] = []            # (line, problem) found before games exist
    if dirty and _CTRL_RE.search(text):
        lines = text.split("\n")
        for i, ln in enumerate(lines):
            if _CTRL_RE.search(ln):
                lines[i] = _CTRL_RE.sub("", ln)
                late.append((i + 1, Text("pbn.control_bytes", "line {line}: binary control bytes removed", line=i + 1)))
        text = "\n".join(lines)
    if "%" in text:
        text = _blank_escapes(text)
    comments: list[str] = []
    comment_nl: list[int] = []
    if "{" in text or ";" in text:
        def mark(m: re.Match[str]) -> str:
            if m.group(1):
                return m.group(1)                # a tag pair
            body = m.group(2) if m.group(3) is not None else m.group(4)
            if m.group(3) == "":
                late.append((text.count("\n", 0, m.start()) + 1, "a { comment is never closed"))
            comments.append(body.replace("\x1f", "").strip())
            comment_nl.append(body.count("\n"))
            return f" \x01{len(comments) - 1}\x01 "
        text = _COMMENT_RE.sub(mark, text)

    def nl(s: str) -> int:                      # lines spanned, counting the ones comments folded away
        n = s.count("\n")
        if "\x01" in s:
            n += sum(comment_nl[int(k)] for k in _MARK_RE.findall(s))
        return n

    game: _Raw | None = None
    section: list[str] | None = None         # where data tokens go (None: ignored, PBN 4.9)
    pending: list[str] = []                     # comments not yet owned by a game
    parts = _BLANKS_RE.split(text)
    line = 1
    for ci in range(0, len(parts), 2):
        chunk = parts[ci]
        segs = _EXPORT_TAG_RE.split(chunk)      # [data, name, value, data, name, value, data, ...]
        exported = chunk.count("[") * 3 == len(segs) - 1    # each "[" opens a tag: no data holds one
        if not exported:
            segs = _TAG_RE.split(chunk)         # some "[" is not an export-format tag: the full syntax
        d0 = segs[0]
        if d0 and not d0.isspace():             # text before the first tag: the previous game goes on
            toks, notes, bad = _data(d0, comments)
            if game is not None and (toks or bad):
                if section is not None:
                    section += toks
                if bad:
                    game.problems.append(_not_a_tag_pair(line + nl(d0[:d0.index('[')]), bad))
                game.notes += notes
            else:
                pending += notes
        if len(segs) == 1:
            line += nl(chunk) + (parts[ci + 1].count("\n") if ci + 1 < len(parts) else 0)
            continue
        inherit = '"#' in chunk
        names = segs[1::3]
        if (len(set(names)) == len(names) and "Note" not in names and "\\" not in chunk and "\t" not in chunk
                and "\x01" not in chunk):
            # The usual game: one per chunk, each tag once, nothing to unescape. Build it in bulk.
            if game is not None:
                start = line + nl(d0)
                while late and late[0][0] < start:
                    game.problems.append(late.pop(0)[1])
                yield game
            game = _Raw(line + nl(d0))
            game.inherit = inherit
            game.tags = tags = dict(zip(names, segs[2::3]))
            game.notes += pending
            pending = []
            datas = segs[3::3]
            # the data after each tag: only the Auction and Play sections hold any, unless some "[" is no tag
            with_data = ([names.index(t) for t in ("Auction", "Play") if t in tags] if exported
                         else [k for k, d in enumerate(datas) if d and not d.isspace()])
            for k in with_data:
                if "[" in datas[k]:
                    toks, _notes, bad = _data(datas[k], comments)
                    at = line + nl("".join(segs[:3 * k + 3]) + datas[k][:datas[k].index("[")])
                    game.problems.append(_not_a_tag_pair(at, bad))
                else:
                    toks = datas[k].split()
                if names[k] == "Auction":
                    game.auction = toks
                elif names[k] == "Play":
                    game.play = toks
            if "Auction" in tags and game.auction is None:
                game.auction = []
            if "Play" in tags and game.play is None:
                game.play = []
            section = game.auction if names[-1] == "Auction" else game.play if names[-1] == "Play" else None
            line += nl(chunk) + (parts[ci + 1].count("\n") if ci + 1 < len(parts) else 0)
            continue
        it = iter(segs)
        next(it)
        k = 0                                   # tag pairs read in this chunk
        for name, value, data in zip(it, it, it):
            if "\\" in value:
                value = _unescape(value)
            if "\t" in value:
                value = value.replace("\t", " ")   # not allowed in a string token; the writer's choice too
            if comments and "\x01" in value:
                value = _MARK_RE.sub(" ", value)    # a broken multi-line tag swallowed a comment
            if k == 0 or (name == "Event" or name == "Board") and name in tags:     # a new game
                start = line + nl(d0 if k == 0 else "".join(segs[:3 * k + 1]))
                if game is not None:
                    while late and late[0][0] < start:
                        game.problems.append(late.pop(0)[1])
                    yield game
                game = current = _Raw(start)    # ``current``: the game being read, never None
                current.inherit = inherit
                tags = current.tags
                current.notes += pending
                pending = []
                section = None
            k += 1
            if name == "Note":
                current.notes.append(value)         # section unchanged: notes close the auction/play lines
                m = _NOTE_RE.match(value)
                if m:
                    current.note_tags.setdefault(m.group(1), value[m.end():].strip())
            elif name in tags:
                section = None                   # PBN 3.4: a repeated tag is ignored
            else:
                tags[name] = value
                if name == "Auction":
                    section = current.auction = []
                elif name == "Play":
                    section = current.play = []
                else:
                    section = None
            if data and not data.isspace():
                if "\x01" in data or "[" in data:
                    toks, notes, bad = _data(data, comments)
                    current.notes += notes
                    if bad:
                        at = line + nl("".join(segs[:3 * k]) + data[:data.index("[")])
                        current.problems.append(_not_a_tag_pair(at, bad))
                else:
                    toks = data.split()
                if section is not None:
                    section += toks
        line += nl(chunk)
        if ci + 1 < len(parts):
            line += parts[ci + 1].count("\n")
    if game is not None:
        game.problems += [p for _, p in late]
        yield game


def _blank_escapes(text: str) -> str:
    """Turn each escape line (``%`` first on the line, PBN 2.4) into ``\\x1f``: whitespace to ``str.split``
    but not a blank line, so it neither ends a game nor shifts line numbers. ``%`` is rare, so look for
    it with ``str.find`` rather than a multi-line regex over the whole text."""
    out: list[str] = []
    done = 0
    i = text.find("%")
    while i >= 0:
        ls = text.rfind("\n", 0, i) + 1
        if ls >= done and not text[ls:i].strip(" \t"):
            le = text.find("\n", i)
            le = len(text) if le < 0 else le
            out += (text[done:ls], "\x1f")
            done = le
            i = text.find("%", le)
        else:
            i = text.find("%", i + 1)
    out.append(text[done:])
    return "".join(out)


def _data(text: str, comments: list[str]) -> tuple[list[str], list[str], str | None]:
    """Section tokens, comments, and the start of a broken tag (a ``[`` that opens no tag pair)."""
    bad = None
    if "[" in text:
        k = text.index("[")
        text, bad = text[:k], text[k:k + 40].split("\n")[0]
    toks, notes = [], []
    for t in text.split():
        if t[0] == "\x01" and t[-1] == "\x01" and len(t) > 2:
            notes.append(comments[int(t[1:-1])])
        else:
            toks.append(t)
    return toks, notes, bad


def read_pbn(path_or_stream: PathOrStream, source: str | None = None) -> Iterator[GameRecord]:
    """Yield one ``GameRecord`` per game of a PBN file (a path, or a text or binary stream)."""
    text, name, fatal, dirty = _load(path_or_stream, source)
    if fatal:
        yield GameRecord(source=name, index=0, error=fatal)
        return
    last: dict[str, str] = {}       # latest value of each tag (for "#")
    sticky: dict[str, str] = {}     # "##" values in force
    index = -1
    games = _scan(text, dirty)
    while True:
        try:
            raw = next(games)
        except StopIteration:
            break
        except Exception as err:    # a bug must not raise out of the reader: report it and stop
            yield GameRecord(source=name, index=index + 1, error=f"record {index + 2}: internal error {err!r}")
            return
        index += 1
        tags = raw.tags
        if raw.inherit or sticky:
            for k, v in tags.items():
                if v[:1] == "#":
                    if v == "#":
                        tags[k] = last.get(k, "")
                    elif v[:2] == "##":
                        tags[k] = sticky[k] = v[2:]
                elif k in sticky:
                    sticky[k] = v
            for k, v in sticky.items():
                if k not in tags:
                    tags[k] = v
        last.update(tags)
        try:
            yield _record(raw, name, index)
        except Exception as err:    # a bug must not lose the rest of the file: report it on the record
            yield GameRecord(source=name, index=index, tags=dict(raw.tags),
                             error=f"record {index + 1} (line {raw.line}): internal error {err!r}")
    if index < 0 and any(ln.strip() and not ln.lstrip().startswith("%") for ln in text.splitlines()):
        yield GameRecord(source=name, index=0, error=Text("pbn.no_game", "no PBN game found (no tag pairs)"))


# -- per-token tables, cached: real files use a few hundred distinct tokens

# kinds of token pieces; _ITEM is a call in the auction, a card in the play
_ITEM, _SKIP, _ALERT, _NOTE, _ALLPASS, _END, _BAD, _CONT, _LEAD = range(9)
Piece = tuple[int, str]            # (kind, the call, card, note or bad text; "" if the kind has none)
_auction_cache: dict[str, tuple[Piece, ...]] = {}
_play_cache: dict[str, tuple[Piece, ...]] = {}


def _auction_token(tok: str) -> tuple[Piece, ...]:
    items: list[Piece] = []
    for p in _PIECE_RE.findall(tok):
        c = p[0]
        if c == "=":
            items.append((_NOTE, p[1:-1]) if len(p) > 2 else (_BAD, p))
        elif c == "$" or p in ("^I", "^i"):
            continue                             # NAG; insufficient-bid mark (the engine sees it)
        elif c == "^":
            items.append((_SKIP, "") if p in ("^S", "^s") else (_BAD, p))
        elif c in "!?":
            if p == "!":
                items.append((_ALERT, ""))      # other suffixes judge the call: dropped
        else:
            u = p.upper()
            if u == "AP":
                items.append((_ALLPASS, ""))
            elif u == "-":
                items.append((_SKIP, ""))
            elif u == "*":
                items.append((_END, ""))
            elif u == "+":
                items.append((_CONT, ""))
            else:
                try:
                    items.append((_ITEM, parse_call(u)))
                except CallError:
                    items.append((_BAD, p))
    return tuple(items)


def _play_token(tok: str) -> tuple[Piece, ...]:
    items: list[Piece] = []
    for p in _PIECE_RE.findall(tok):
        c = p[0]
        if c in "=$!?" and (len(p) > 2 or c != "="):
            continue                             # notes, NAGs, suffixes
        if c == "^":
            if p in ("^L", "^l"):
                items.append((_LEAD, ""))       # the next card leads, out of turn
            elif p not in ("^R", "^r"):          # a revoke mark: the engine finds revokes itself
                items.append((_BAD, p))
        elif p == "-":
            items.append((_SKIP, ""))
        elif p == "+":
            items.append((_CONT, ""))
        elif p == "*":
            items.append((_END, ""))
        else:
            try:
                items.append((_ITEM, parse_card(p)))
            except CardError:
                items.append((_BAD, p))
    return tuple(items)


def _cached(cache: dict[str, tuple[Piece, ...]], fn: Callable[[str], tuple[Piece, ...]],
            tok: str) -> tuple[Piece, ...]:
    r = cache.get(tok)
    if r is None:
        if len(cache) > 20000:                   # fuzzed or garbage input must not grow it forever
            cache.clear()
        r = cache[tok] = fn(tok)
    return r


# Prebuilt events: _CARD_EV[seat index][card], _CALL_EV[(seat, call, alert)] (filled on first use).
_CARD_EV = [{c: CardPlayed(seat=s, card=c) for c in ALL_CARDS} for s in SEATS]
_CALL_EV: dict[tuple[Seat, str, bool], CallMade] = {}
# The usual spellings of cards and calls, looked up directly; anything else goes through the parsers.
_PLAIN_CARD = {v: c for c in ALL_CARDS for v in (c, c.lower(), c[0] + c[1].lower(), c[0].lower() + c[1])}
_PLAIN_CARD.update({c[0] + "10": c for c in ALL_CARDS if c[1] == "T"})
_PLAIN_CALL = {v: parse_call(v) for v in ("Pass", "PASS", "pass", "P", "X", "XX", "x", "xx")}
_PLAIN_CALL.update({f"{lv}{st}": f"{lv}{st}" for lv in range(1, 8) for st in ("C", "D", "H", "S", "NT")})
_SLOT = dict(_PLAIN_CARD, **{"-": ""})          # "" marks a card not played
_PLAIN_CALL_EV = [{c: CallMade(seat=s, call=c) for c in set(_PLAIN_CALL.values())} for s in SEATS]
_ROT = [tuple(SEATS[(i + k) & 3] for k in range(64)) for i in range(4)]    # seats in turn from seat i
_ORDER = [tuple((i + k) & 3 for k in range(4)) for i in range(4)]           # columns in turn from column i


def _call_event(seat: Seat, call: str, alert: bool) -> CallMade:
    e = _CALL_EV.get((seat, call, alert))
    if e is None:
        if len(_CALL_EV) > 4096:
            _CALL_EV.clear()
        e = _CALL_EV[(seat, call, alert)] = CallMade(seat=seat, call=call, alert=alert)
    return e


# Every holding written in rank order ("AQT2", "" ...): 2**13 strings, so a suit is checked by one lookup.
_HOLDINGS = frozenset("".join(c) for k in range(14) for c in combinations("AKQJT98765432", k))


@lru_cache(maxsize=8192)
def _normal_deal(raw: str) -> tuple[str | None, str | None]:
    """(deal North first, None) or (None, problem). A fast check for the usual deal written in rank
    order; anything else goes through ``Deal.from_pbn`` for its checks and messages."""
    t = raw.strip().upper()
    first = _SEAT.get(t[:1])
    parts = t[2:].split()
    if first and t[1:2] == ":" and len(parts) == 4 and all(len(p) == 16 for p in parts):
        hs = [p.split(".") for p in parts]
        if all(len(h) == 4 and h[0] in _HOLDINGS and h[1] in _HOLDINGS and h[2] in _HOLDINGS
               and h[3] in _HOLDINGS for h in hs):
            a, b, c, d = hs
            if all(len(set(a[i] + b[i] + c[i] + d[i])) == 13 for i in range(4)):   # 13 per hand, 13 per suit
                rot = _IDX[first]
                return "N:" + " ".join(parts[(i - rot) & 3] for i in range(4)), None
    try:
        deal = Deal.from_pbn(t)
    except (CardError, ValueError) as err:
        return None, Text("pbn.bad_deal", "bad Deal (") + (err.args[0] if err.args else str(err)) + ")"
    return "N:" + " ".join(hand_to_pbn(deal.hands[s]) if deal.hands[s] else "-" for s in SEATS), None


def _contract_tag(raw: str | None) -> tuple[bool, str | None]:
    """(is a contract, its strain) from a Contract tag: ``"4SX"`` -> (True, "S"); ``"Pass"`` -> (False, None).
    Only a whole contract counts (as the writer reads the tag): a strain taken from a damaged tag would rebuild
    a play that the written file, with ``Contract "?"``, could not give back."""
    try:
        c = parse_contract(raw.replace("^", "")) if raw else None
    except ValueError:
        return False, None
    return (True, c.strain) if c is not None else (False, None)


def _recorded_contract(raw: str | None, declarer: Seat | None) -> ContractRecorded | None:
    if not raw:
        return None
    try:
        c = parse_contract(raw.replace("^", ""))
    except ValueError:
        return None
    if c is None:
        return ContractRecorded("PASS")
    return ContractRecorded(str(c), declarer) if declarer is not None else None


def _declarer_tricks(raw: str | None, declarer: Seat | None) -> int | None:
    """Declarer's tricks from a Result tag: ``"9"``, ``"^9"``, ``"NS 9"``, ``"EW 4 NS 9"``."""
    if not raw:
        return None
    parts = raw.replace("^", " ").split()
    if len(parts) == 1 and parts[0].isdecimal() and len(parts[0]) < 4:
        return int(parts[0])
    if declarer is None or len(parts) not in (2, 4):
        return None
    sides = dict(zip(parts[::2], parts[1::2]))
    mine, theirs = sides.get(declarer.side), sides.get("EW" if declarer.side == "NS" else "NS")
    if mine and mine.isdecimal() and len(mine) < 4:
        return int(mine)
    if theirs and theirs.isdecimal() and len(theirs) < 3 and int(theirs) <= 13:
        return 13 - int(theirs)
    return None


@lru_cache(maxsize=4096)
def _board(b: str, dealer: str, vul: str, deal: str, auction: str) -> tuple[BoardStarted | None, tuple[str, ...]]:
    """The board event from the raw Board/Dealer/Vulnerable/Deal tags (cached: both rooms of a teams
    match share them), and the problems found. ``auction`` is the Auction tag, the dealer's stand-in."""
    problems: list[str] = []
    board = None
    b = b.strip()
    if b and b != "?":
        if b.isdecimal() and len(b) < 10 and int(b) > 0:
            board = int(b)
        else:
            problems.append(Text("pbn.bad_board", "Board {value} is not a board number", value=repr(b[:30])))
    d = _SEAT.get(dealer.strip())
    if d is None and dealer.strip() not in ("", "?"):
        problems.append(Text("pbn.bad_dealer", "Dealer {value} is not a seat", value=repr(dealer.strip()[:20])))
    if d is None and board is None:
        d = _SEAT.get(auction.strip())           # export format: the auction starts with the dealer
    v: str | None = None
    text = vul.strip()
    if text not in ("", "?"):
        try:
            parse_vulnerability(text)
            v = text
        except ValueError:
            problems.append(Text("pbn.bad_vulnerable", "Vulnerable {value} is not a vulnerability",
                                 value=repr(text[:20])))
    normal = None
    deal = deal.strip()
    if deal and deal != "?":
        normal, problem = _normal_deal(deal)
        if problem:
            problems.append(problem)
    try:
        return board_started(board, dealer=d, vulnerable=v, deal=normal), tuple(problems)
    except EventError:
        return None, tuple(problems)


@lru_cache(maxsize=64)
def _claim(declarer: Seat, tricks: int) -> tuple[ClaimMade, ClaimResponded, ClaimResponded]:
    """An agreed claim: by declarer, accepted by both defenders."""
    return (ClaimMade(seat=declarer, tricks=tricks), ClaimResponded(seat=declarer.lho, accept=True),
            ClaimResponded(seat=declarer.rho, accept=True))


def _record(raw: _Raw, source: str, index: int) -> GameRecord:
    tags = raw.tags
    problems = raw.problems
    get = tags.get
    rv = [get(k) for k in _RECORDED]
    for i, v in enumerate(rv):
        if v is not None:
            v = v.strip()
            rv[i] = None if v == "?" else v
    recorded = Recorded(*rv)
    other = tags.copy()
    for k in _NOT_TAGS:
        if k in other:
            del other[k]
    rec = GameRecord(source=source, index=index, recorded=recorded, tags=other, notes=raw.notes)
    auction, play = raw.auction, raw.play
    start, found = _board(get("Board", ""), get("Dealer", ""), get("Vulnerable", ""), get("Deal", ""),
                          get("Auction", ""))
    problems += found
    events = rec.events
    if start is None:
        if "Deal" in tags or auction is not None or play is not None:
            problems.append(Text("pbn.board_unknown",
                                  "no Board number, and no Dealer and Vulnerable tags: the board is unknown"))
    else:
        events.append(start)
        seats, calls = ((), ()) if auction is None else _calls(
            events, auction, get("Auction", ""), start.dealer, raw.note_tags, problems)
        # -- the contract: from the auction when it has a bid, else from the tags
        strain: str | None
        declarer: Seat | None
        last = len(calls) - 1
        while last >= 0 and not calls[last][0].isdigit():
            last -= 1
        if last >= 0:
            strain, side = calls[last][1:], seats[last].side
            declarer = next(s for s, c in zip(seats, calls) if c[1:] == strain and s.side == side and c[0].isdigit())
            contracted = True
        else:
            contracted, strain = _contract_tag(recorded.contract) if not calls else (False, None)
            declarer = _SEAT.get((recorded.declarer or "").lstrip("^").strip()[:1]) if contracted else None
            if not calls:
                # no auction recorded: the contract as the file states it (a traveller-style record)
                entered = _recorded_contract(recorded.contract, declarer)
                if entered is not None:
                    events.append(entered)
        tricks, cont = 0, False
        if play is not None:
            tricks, cont = _play(events, play, get("Play", ""), strain if contracted else False, problems)
        if contracted and declarer is not None and tricks < 13 and not cont:
            won = _declarer_tricks(recorded.result, declarer)
            if won is not None:
                if won > 13:
                    problems.append(Text("pbn.result_over_13", "Result {value}: more than 13 tricks",
                                          value=repr(recorded.result)))
                else:
                    events += _claim(declarer, won)
    if problems:
        # joined as pieces, not "; ".join: a keyed problem (the tags' faults) stays keyed for a page
        error: str = (Text("pbn.where_board", "record {record} (board {board}, line {line}): ", record=index + 1,
                           board=start.board, line=raw.line) if start and start.board else
                      Text("pbn.where", "record {record} (line {line}): ", record=index + 1, line=raw.line))
        for n, fault in enumerate(problems):
            error = error + ("; " if n else "") + fault
        rec.error = error
    return rec


def _calls(events: list[TableEvent], tokens: list[str], tag: str, dealer: Seat, notes: dict[str, str],
           problems: list[str]) -> tuple[Sequence[Seat], list[str]]:
    seat = _SEAT.get(tag.strip())
    if seat is None:
        problems.append(Text("pbn.auction_seat", "Auction {value} is not a seat; calls start with the dealer",
                             value=repr(tag)))
        seat = dealer
    i = _IDX[seat]
    plain_calls = list(map(_PLAIN_CALL.get, tokens))
    if None not in plain_calls and len(plain_calls) <= 64:      # the usual auction: plain calls only
        calls = cast("list[str]", plain_calls)
        cev = _PLAIN_CALL_EV
        events += [cev[(i + k) & 3][c] for k, c in enumerate(calls)]
        return _ROT[i][:len(calls)], calls
    seats: list[Seat] = []
    calls = []
    alerts: dict[int, str | None] = {}        # alerted calls' indexes -> explanation (annotations follow their call)
    plain = _PLAIN_CALL
    for tok in tokens:
        call = plain.get(tok)
        if call is not None:
            seats.append(SEATS[i & 3])
            calls.append(call)
            i += 1
            continue
        items = _auction_cache.get(tok) or _cached(_auction_cache, _auction_token, tok)
        done = False
        for kind, val in items:
            if kind == _ITEM:
                seats.append(SEATS[i & 3])
                calls.append(val)
                i += 1
            elif kind == _SKIP:
                i += 1
            elif kind == _ALERT or kind == _NOTE:
                note = notes.get(val, "") if kind == _NOTE else ""
                if calls and (kind == _ALERT or "alert" in note.lower()):
                    explained = _EXPLAINED_RE.match(note)
                    alerts[len(calls) - 1] = explained.group(1).strip() if explained else None
            elif kind == _ALLPASS:
                run = 0                          # passes already made towards the close
                for c in reversed(calls):
                    if c != PASS:
                        break
                    run += 1
                for _ in range((3 if run < len(calls) else 4) - run if run < 4 else 0):
                    seats.append(SEATS[i & 3])
                    calls.append(PASS)
                    i += 1
            elif kind == _BAD:
                problems.append(Text("pbn.not_a_call", "auction: {value} is not a call (call {n}); the rest is ignored",
                                      value=repr(val), n=len(calls) + 1))
                done = True
                break
            else:                                # "*" or "+": the auction section ends
                done = True
                break
        if done:
            break
    ev = _CALL_EV
    for k, (s, c) in enumerate(zip(seats, calls)):
        a = k in alerts
        explanation = alerts.get(k)
        if explanation:
            events.append(CallMade(seat=s, call=c, alert=True, explanation=explanation))
        else:
            events.append(ev.get((s, c, a)) or _call_event(s, c, a))
    return seats, calls


def _play_slots(tokens: list[str], lead_at: dict[int, int], problems: list[str]) -> list[str]:
    """The play tokens one by one: cards, "" for "-", "+" for "+"; ^L noted in ``lead_at``."""
    slots: list[str] = []
    for tok in tokens:
        for kind, val in _play_cache.get(tok) or _cached(_play_cache, _play_token, tok):
            if kind == _ITEM:
                slots.append(val)
            elif kind == _SKIP:
                slots.append("")
            elif kind == _LEAD:
                lead_at[len(slots) // 4] = len(slots) % 4
            elif kind == _CONT:
                slots.append("+")
            elif kind == _END:
                return slots
            else:
                problems.append(Text("pbn.not_a_card", "play: {value} is not a card (trick {trick}); the rest is "
                                      "ignored", value=repr(val), trick=len(slots) // 4 + 1))
                return slots
    return slots


def _play(events: list[TableEvent], tokens: list[str], tag: str, strain: str | None | Literal[False],
          problems: list[str]) -> tuple[int, bool]:
    """Append the cards in play order; return (complete tricks, ended with "+")."""
    first = _SEAT.get(tag.strip())
    if first is None:
        if any(t not in ("-", "*", "+") for t in tokens):
            problems.append(Text("pbn.play_seat", "Play {value} is not a seat: the play is not read", value=repr(tag)))
        return 0, False
    lead_at: dict[int, int] = {}                # trick -> column of an irregular leader (^L)
    cont = False
    if tokens and tokens[-1] == "*":
        tokens = tokens[:-1]
    plain_slots = list(map(_SLOT.get, tokens))  # cards in PBN column order, "" for "-"
    if None in plain_slots:                     # annotations, marks, "+", garbage: token by token
        slots = _play_slots(tokens, lead_at, problems)
        cont = "+" in slots
        slots = ["" if c == "+" else c for c in slots]
    else:
        slots = cast("list[str]", plain_slots)
    trump = None if strain == "NT" or strain is False else strain
    f = _IDX[first]
    cev = [_CARD_EV[(f + j) & 3] for j in range(4)]   # column -> that seat's card events
    lead = 0                                    # the leader's column (columns start at the Play seat)
    tricks = 0
    n = len(slots)
    append = events.append
    for t in range(0, n, 4):
        if lead_at and t // 4 in lead_at:
            lead = lead_at[t // 4]
        order = _ORDER[lead]
        row = slots[t:t + 4] if t + 4 > n else (slots[t], slots[t + 1], slots[t + 2], slots[t + 3])
        if len(row) == 4 and row[0] and row[1] and row[2] and row[3]:
            j0, j1, j2, j3 = order
            c0, c1, c2, c3 = row[j0], row[j1], row[j2], row[j3]
            events += (cev[j0][c0], cev[j1][c1], cev[j2][c2], cev[j3][c3])
        else:                                   # a trick cut short: its cards up to the first gap
            row = list(row) + [""] * (4 - len(row))
            k = 0
            while k < 4 and row[order[k]]:
                append(cev[order[k]][row[order[k]]])
                k += 1
            if sum(1 for c in slots[t:] if c) > k:
                problems.append(Text("pbn.trick_incomplete", "play: trick {trick} is incomplete but more cards follow; "
                                      "they are ignored", trick=t // 4 + 1))
            break
        tricks += 1
        if tricks == 13:
            if any(slots[t + 4:]):
                problems.append(Text("pbn.after_13_tricks", "play: cards after the 13th trick are ignored"))
            break
        if strain is False:                      # no contract known: no trump, so no next leader
            if any(slots[t + 4:]):
                problems.append(Text("pbn.no_contract_leader", "play: no contract, so the leader after trick 1 is "
                                      "unknown; the rest is ignored"))
            break
        lead = order[trick_winner_index((c0, c1, c2, c3), trump)]
    return tricks, cont


# ------------------------------------------------------------------------------------------ writing

_ALERT_NOTE_RE = re.compile(r"\d+:Alert(: |\Z)")    # the notes the writer makes for alerts
_WRITTEN = frozenset(_MTS) | _NOT_TAGS          # written from events and ``recorded``, not from ``tags``
_NAME_RE = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
_UNPRINTABLE_RE = re.compile(r"[\x00-\x1f\x7f]")


def _quote(value: str) -> str:
    return _UNPRINTABLE_RE.sub(" ", value.replace("\\", "\\\\").replace('"', '\\"'))


def _closed(calls: list[str]) -> bool:
    """Whether the auction was over: three passes after a call, or four passes (Law 17E, 22)."""
    run, called = 0, False
    for c in calls:
        if c == PASS:
            run += 1
            if run == 4 or (called and run == 3):
                return True
        else:
            run, called = 0, True
    return False


def _contract_of(calls: list[CallMade], recorded: Recorded) -> tuple[str | None, Seat | None]:
    """(strain, declarer) as the reader derives them: the auction's last bid, else the Contract tag."""
    for k in range(len(calls) - 1, -1, -1):
        if is_bid(calls[k].call):
            strain, side = calls[k].call[1:], calls[k].seat.side
            return strain, next(e.seat for e in calls if e.call[1:] == strain and e.seat.side == side
                                and is_bid(e.call))
    if calls:
        return None, None
    contracted, tag_strain = _contract_tag(recorded.contract)
    if not contracted:
        return None, None
    return tag_strain, _SEAT.get((recorded.declarer or "").lstrip("^").strip()[:1])


def _auction_lines(calls: list[CallMade], dealer: Seat) -> tuple[list[str], list[str]]:
    """Auction lines, 4 calls a line from the dealer; ``^S`` stands for a turn skipped by a call out of
    rotation and ``^I`` marks an insufficient bid (PBN 3.9). An alert is a note reference (PBN 3.9.5): alerts
    without a written explanation share the note ``Alert``, each explained one has its own, ``Alert: <text>``.
    Returns the lines and the notes' values (``"1:Alert"``), in their numbers' order."""
    slots: list[str] = []
    i = _IDX[dealer]
    highest = None
    notes: list[str] = []
    for e in calls:
        while SEATS[i & 3] != e.seat:
            slots.append("^S")
            i += 1
        tok = e.call
        if is_bid(tok):
            if highest is not None and bid_key(tok) <= highest:
                tok = "^I " + tok
            else:
                highest = bid_key(tok)
        if e.alert:
            text = f"Alert: {e.explanation}" if e.explanation else "Alert"
            if e.explanation or text not in notes:
                notes.append(text)
            tok += f" ={len(notes) if e.explanation else notes.index(text) + 1}="
        slots.append(tok)
        i += 1
    lines = [" ".join(slots[k:k + 4]) for k in range(0, len(slots), 4)]
    if not _closed([e.call for e in calls]):
        lines.append("*")
    return lines, [f"{n}:{text}" for n, text in enumerate(notes, 1)]


def _play_lines(cards: list[CardPlayed], leader: Seat, trump: str | None, going_on: bool) -> list[str]:
    """One line per trick in seat order from the opening leader; ``^L`` marks a lead out of turn, ``-``
    a card not played. A play short of 13 tricks ends with ``*``, or, when it is ``going_on`` (no claim
    ended it), with ``+`` in place of the next card (PBN 3.6), so that a Result is not read as a claim.
    Cards that break rotation inside a trick cannot be written in PBN: they go into a comment."""
    f = _IDX[leader]
    rows: list[list[str]] = []
    row: list[str] = ["-"] * 4
    trick: list[CardPlayed] = []
    due = leader                                 # who should lead the next trick
    rest: list[CardPlayed] = []
    for k, e in enumerate(cards):
        if trick and e.seat != trick[-1].seat.lho:
            rest = cards[k:]
            break
        col = (_IDX[e.seat] - f) & 3
        row[col] = ("^L " if not trick and e.seat != due else "") + e.card
        trick.append(e)
        if len(trick) == 4:
            rows.append(row)
            due = trick[trick_winner_index([t.card for t in trick], trump)].seat
            row, trick = ["-"] * 4, []
    if len(rows) == 13 and not rest:
        return [" ".join(r) for r in rows]
    if going_on and not rest:
        row[(_IDX[trick[-1].seat.lho if trick else due] - f) & 3] = "+"
        return [" ".join(r) for r in rows + [row]]
    lines = [" ".join(r) for r in rows + ([row] if trick else [])] + ["*"]
    if rest:
        lines.append("{cards played out of rotation, not representable in PBN: "
                     + " ".join(f"{e.seat}:{e.card}" for e in rest) + "}")
    return lines


def _export_deal(deal: str | None, dealer: Seat) -> str:
    if not deal:
        return "?"
    normal, _problem = _normal_deal(deal)
    if normal is None:
        return deal
    hands = normal[2:].split()
    return f"{dealer}:" + " ".join(hands[(_IDX[dealer] + k) & 3] for k in range(4))


def _export_contract(events: list[TableEvent], calls: list[CallMade], cards: list[CardPlayed],
                     rc: Recorded) -> tuple[str | None, str | None, str | None]:
    """Contract, Declarer and Result in export format (PBN 2.1 §3.4.13-15), whatever form the file had:
    the contract the auction reached (else the one entered without an auction, else the tag's, read as
    the reader reads it), ``Pass`` with empty Declarer and Result for a passed-out board, and Result the
    number of tricks declarer won: an agreed claim's figure, the 13 tricks played, else the recorded
    Result (``NS 9`` style included). ``None`` (written ``?``) where unknown."""
    bid = next((k for k in range(len(calls) - 1, -1, -1) if is_bid(calls[k].call)), None)
    contract: str | None = None
    declarer: Seat | None = None
    if bid is not None:
        strain, side = calls[bid].call[1:], calls[bid].seat.side
        declarer = next(e.seat for e in calls if is_bid(e.call) and e.call[1:] == strain and e.seat.side == side)
        risk = ""
        for e in calls[bid + 1:]:
            risk = "X" if e.call == DOUBLE else "XX" if e.call == REDOUBLE else risk
        contract = calls[bid].call + risk
    elif calls:
        return ("Pass", "", "") if _closed([e.call for e in calls]) else (None, None, None)
    else:
        entered = next((e for e in events if isinstance(e, ContractRecorded)), None)
        if entered is not None:
            contract, declarer = entered.contract, entered.declarer
        else:
            try:
                c = parse_contract(rc.contract.replace("^", "")) if rc.contract else None
            except ValueError:                   # "PAS", "Passed out": passed; anything else: unknown
                passed = (rc.contract or "").strip().upper().startswith("PAS")
                return ("Pass", "", "") if passed else (None, None, None)
            if c is None and rc.contract:
                return "Pass", "", ""
            contract = str(c) if c is not None else None
            declarer = _SEAT.get((rc.declarer or "").lstrip("^").strip()[:1])
        if contract == "PASS":
            return "Pass", "", ""
    if contract is None or declarer is None:
        return contract, None, None
    tricks = _claimed(events)
    if tricks is None and len(cards) >= 52:
        trump = trump_of(contract.rstrip("X")[1:])
        won = 0
        for t in range(0, 52, 4):
            trick = cards[t:t + 4]
            won += trick[trick_winner_index([e.card for e in trick], trump)].seat.side == declarer.side
        tricks = won
    if tricks is None:
        tricks = _declarer_tricks(rc.result, declarer)
    return contract, declarer.value, None if tricks is None or tricks > 13 else str(tricks)


def _claimed(events: list[TableEvent]) -> int | None:
    """The tricks of the last claim all others accepted (``ClaimMade.tricks``: declarer side's total)."""
    found = None
    for i, e in enumerate(events):
        if isinstance(e, ClaimMade):
            answers = list(takewhile(lambda a: isinstance(a, ClaimResponded), events[i + 1:]))
            if len(answers) >= 2 and all(isinstance(a, ClaimResponded) and a.accept for a in answers):
                found = e.tricks
    return found


def _game_text(rec: GameRecord) -> str:
    events = rec.events
    start = events[0] if events and isinstance(events[0], BoardStarted) else None
    calls = [e for e in events if isinstance(e, CallMade)]
    cards = [e for e in events if isinstance(e, CardPlayed)]
    tags, rc = rec.tags, rec.recorded
    alerted = any(e.alert for e in calls)
    out = []
    for note in rec.notes:                       # notes go first, as comments (PBN 3.8)
        if alerted and _ALERT_NOTE_RE.match(note):
            continue                             # the reader's copy of our own alert notes, written again below
        if "}" in note:
            out += ["; " + ln for ln in note.split("\n")]
        else:
            out.append("{" + note + "}")

    def tag(name: str, value: str | None) -> None:
        out.append(f'[{name} "{_quote("?" if value is None else value)}"]')

    for name in ("Event", "Site", "Date"):
        tag(name, tags.get(name))
    dealer = start.dealer if start else None
    tag("Board", (str(start.board) if start.board is not None else None) if start else tags.get("Board"))
    for name in ("West", "North", "East", "South"):
        tag(name, tags.get(name))
    tag("Dealer", dealer.value if dealer else tags.get("Dealer"))
    tag("Vulnerable", start.vulnerable.value if start else tags.get("Vulnerable"))
    tag("Deal", _export_deal(start.deal, start.dealer) if start else tags.get("Deal"))
    tag("Scoring", tags.get("Scoring"))
    contract, by, result = _export_contract(events, calls, cards, rc)
    tag("Declarer", by)
    tag("Contract", contract)
    tag("Result", result)
    extra = {k: v for k, v in tags.items() if k not in _WRITTEN and not k.endswith("Table") and _NAME_RE.match(k)}
    if rc.score is not None:
        extra["Score"] = rc.score
    for name in sorted(extra):                   # supplemental tags, alphabetical (PBN 3.4)
        tag(name, extra[name])
    if calls:
        tag("Auction", (dealer or calls[0].seat).value)
        lines, notes = _auction_lines(calls, dealer or calls[0].seat)
        out += lines
        for note in notes:
            tag("Note", note)
    strain, declarer = _contract_of(calls, rc)
    # the reader takes a Result without 13 tricks as an agreed claim: say so when there was none
    going_on = (declarer is not None and not any(isinstance(e, ClaimMade) for e in events)
                and _declarer_tricks(rc.result, declarer) is not None)
    if cards or going_on:
        leader = declarer.lho if declarer else cards[0].seat
        tag("Play", leader.value)
        out += _play_lines(cards, leader, None if strain in (None, "NT") else strain, going_on)
    return "\n".join(out) + "\n"


def write_pbn(records: Iterable[GameRecord], stream: IO[str]) -> None:
    """Write records as PBN 2.1 export format, LF line ends. Events PBN has no place for (claims,
    rulings, hands read) are not written: a claim shows in ``recorded.result``."""
    stream.write("% PBN 2.1\n% EXPORT\n")
    for k, rec in enumerate(records):
        if k:
            stream.write("\n")                  # a blank line starts every game but the first
        stream.write(_game_text(rec))
