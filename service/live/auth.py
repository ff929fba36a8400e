"""Credentials: the director's token, and seat credentials bound to the event, a table, a seat and the table's
round (and so to the pair the movement seats there). Every seat credential reads
``<kind>.<table>.<seat>.<round>.<mark>.<gen>.<mac>``, each number in one spelling (ASCII digits, no leading zero).

* A **sign-in link** (``/seat#signin=<code>``, kind ``link``) can be redeemed once (``POST /api/signin``,
  ``service/api/credentials.py``) for the seat's token; the code travels in the URL's fragment, which a browser
  never sends to the server nor in a Referer.
* A **seat token** (kind ``seat``) is sent as ``Authorization: Bearer`` (or, for a WebSocket, as the subprotocol
  ``bearer.<token>``; ``service/web/credential_transport.py``). When its round ends, ``POST /api/signin/renew`` trades
  it, once, for the seat of the same pair in its next round (the token is then spent: journalled ``renew``).
* A **table card** (``/seat#card=<code>``, kind ``card``, round 0: printed on the table's card, ``/cards``) can be
  redeemed again and again (``POST /api/signin/card``) for the token of the seat's current round: the pair that
  sits there now. Every redemption is journalled (club row ``card``).

A link or token is valid only while its table is in that round (``round_of``: the event's round, 0 for a table
outside any event) *and* that round began with the journal row ``mark`` (``mark()``: the latest event or round row
for the table). Journal rows are numbered once, so a round set back or set again, or an event replaced, never
revives an earlier credential. ``gen`` is the seat's generation: the director's revocation (``POST
/api/tables/{id}/revoke``) raises it, ending every credential of that seat at once. ``mac`` is an HMAC-SHA256 of
all of that under the event's key, derived from the club's secret, the session (drawn afresh with each database)
and the event's journal row. The journalled rows (``event``, ``round``, ``revoke``, ``signin``, ``renew``) reach
``note_row`` at start-up and as they are written, so a restart neither revives a credential nor a used link.

No token makes a spectator; a token that is neither the director's nor a valid seat's is refused (401).
"""
from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from service.canonical import canonical_int
from service.errors import Unauthenticated
from service.live.visibility import DIRECTOR, SPECTATOR, Viewer
from table.texts import Text

if TYPE_CHECKING:
    from service.store.journal import Row

SEAT_LETTERS = ("N", "E", "S", "W")
_TABLE = re.compile(r"[A-Za-z0-9_-]{1,32}")
_MAC = re.compile(r"[0-9a-f]{32}")
INVALID_TOKEN = Text("refusal.invalid_token", "invalid token")        # forged, malformed, of another event


@dataclass(frozen=True, slots=True)
class SeatGrant:
    """What a valid seat credential stands for (``mark``: the journal row its round began with)."""
    table: str
    seat: str
    round: int
    generation: int
    mark: int = 0


@dataclass(frozen=True, slots=True)
class Parsed:
    kind: str
    table: str
    seat: str
    round: int
    mark: int
    generation: int
    mac: str


def _no_round(_table: str) -> int:
    return 0


class Tokens:
    def __init__(self, director_token: str, secret: str, session: str = "",
                 round_of: Callable[[str], int] = _no_round) -> None:
        self.director_token = director_token
        self._secret = secret.encode()
        self.session = session
        self.round_of = round_of
        self.generations: dict[tuple[str, str], int] = {}
        self.redeemed: set[str] = set()            # link ids (a hash of the code), never the code itself
        self.retired: set[str] = set()             # seat tokens renewed into another seat's (a hash of each)
        self.signed_in: set[tuple[str, str, int]] = set()   # (table, seat, round) that signed in on a device
        self.event_mark = 0                        # the journal row (seq) of the event: its key
        self._all_mark = 0                         # the latest row that set every table's round
        self._marks: dict[str, int] = {}           # table -> the latest row that set its round
        self._event_key: tuple[int, bytes] = (-1, b"")

    @staticmethod
    def generate() -> str:
        return secrets.token_urlsafe(24)

    # ------------------------------------------------------------------ issuing
    def mark(self, table: str) -> int:
        """The journal row (seq) with which the table's current round began: rows are numbered once, so a
        round set back or an event replaced gives a new mark and no earlier credential comes back."""
        return max(self._all_mark, self._marks.get(table, 0))

    def _key(self) -> bytes:
        """The event's own key, derived from the club's secret, the session and the event's journal row."""
        if self._event_key[0] != self.event_mark:
            key = hmac.new(self._secret, f"event|{self.session}|{self.event_mark}".encode(), hashlib.sha256).digest()
            self._event_key = (self.event_mark, key)
        return self._event_key[1]

    def _mac(self, kind: str, table: str, seat: str, rnd: int, mark: int, gen: int) -> str:
        msg = f"{kind}|{self.session}|{table}|{seat}|{rnd}|{mark}|{gen}".encode()
        return hmac.new(self._key(), msg, hashlib.sha256).hexdigest()[:32]

    def _code(self, kind: str, table: str, seat: str, rnd: int, mark: int) -> str:
        if seat not in SEAT_LETTERS or not _TABLE.fullmatch(table):
            raise ValueError(f"not a seat: {table!r} {seat!r}")
        gen = self.generations.get((table, seat), 0)
        return f"{kind}.{table}.{seat}.{rnd}.{mark}.{gen}.{self._mac(kind, table, seat, rnd, mark, gen)}"

    def seat_token(self, table: str, seat: str) -> str:
        """The seat's token for its table's current round (for devices and API clients; players sign in)."""
        return self._code("seat", table, seat, self.round_of(table), self.mark(table))

    def card_code(self, table: str, seat: str) -> str:
        """The seat's reusable table-card code for the event (round 0: any round; ends with a revocation)."""
        return self._code("card", table, seat, 0, self.event_mark)

    def seat_link(self, table: str, seat: str) -> str:
        """The one-time sign-in code of the seat's current round."""
        return self._code("link", table, seat, self.round_of(table), self.mark(table))

    @staticmethod
    def link_id(code: str) -> str:
        return hashlib.sha256(code.encode()).hexdigest()[:24]

    # ------------------------------------------------------------------ checking
    def parse(self, kind: str, token: str) -> Parsed:
        """A genuine ``kind`` credential of this event, whether or not it is still valid; ``Unauthenticated``
        for anything else. Every field has one spelling (ASCII digits without leading zeros, a lower-case MAC),
        so a used link is used however it is written."""
        parts = token.split(".")
        if len(parts) != 7 or parts[0] != kind or not _TABLE.fullmatch(parts[1]) or parts[2] not in SEAT_LETTERS \
                or not _MAC.fullmatch(parts[6]):
            raise Unauthenticated(INVALID_TOKEN)
        rnd, mark, gen = canonical_int(parts[3], 6), canonical_int(parts[4], 12), canonical_int(parts[5], 9)
        if rnd is None or mark is None or gen is None:               # one spelling of each number
            raise Unauthenticated(INVALID_TOKEN)
        p = Parsed(kind, parts[1], parts[2], rnd, mark, gen, parts[6])
        if p.mark < self.event_mark or not hmac.compare_digest(
                p.mac.encode(), self._mac(kind, p.table, p.seat, p.round, p.mark, p.generation).encode()):
            raise Unauthenticated(INVALID_TOKEN)          # forged, or of an earlier event or session
        what = {"link": "sign-in link", "card": "table card"}.get(kind, "seat sign-in")
        if p.generation != self.generations.get((p.table, p.seat), 0):
            raise Unauthenticated(Text("refusal.revoked", "this {credential} for table {table} seat {seat} was revoked "
                                       "by the director", credential=what, table=p.table, seat=p.seat))
        return p

    def grant(self, kind: str, token: str) -> SeatGrant:
        """What a ``kind`` credential stands for, or ``Unauthenticated`` saying why it is not (any more) valid.
        A table card's grant carries the table's current round (the round its redemption signs in to)."""
        p = self.parse(kind, token)
        what = {"link": "sign-in link", "card": "table card"}.get(kind, "seat sign-in")
        now = self.round_of(p.table)
        if kind == "card":
            if p.round != 0 or p.mark != self.event_mark:
                raise Unauthenticated(INVALID_TOKEN)
            return SeatGrant(p.table, p.seat, now, p.generation, self.mark(p.table))
        if p.round != now:
            raise Unauthenticated(Text("refusal.other_round_link", "this {credential} was for round {round}; table "
                                       "{table} is in round {round2}: sign in with this round's link",
                                       credential=what, round=p.round, table=p.table, round2=now))
        if p.mark != self.mark(p.table):
            raise Unauthenticated(Text("refusal.round_reset", "this {credential} was for an earlier round {round} of "
                                       "table {table}: the director has set the round since; sign in with this "
                                       "round's link", credential=what, round=p.round, table=p.table))
        if kind == "seat" and self.link_id(token) in self.retired:
            raise Unauthenticated(Text("refusal.moved_on", "this seat sign-in moved on with its pair: table {table} "
                                       "seat {seat} is another pair's now", table=p.table, seat=p.seat))
        return SeatGrant(p.table, p.seat, p.round, p.generation, p.mark)

    def viewer(self, token: str | None) -> Viewer:
        """The viewer a token stands for; no token is a spectator; a bad or ended one raises ``Unauthenticated``."""
        if not token:
            return SPECTATOR
        if hmac.compare_digest(token.encode(), self.director_token.encode()):
            return DIRECTOR
        g = self.grant("seat", token)
        return Viewer("seat", table=g.table, seat=g.seat, round=g.round or None)   # its credential's round; 0: no event

    def check_link(self, code: str) -> SeatGrant:
        g = self.grant("link", code)
        if self.link_id(code) in self.redeemed:
            raise Unauthenticated(Text("refusal.link_used", "this sign-in link for table {table} seat {seat} was used "
                                       "already: ask the director for a new one", table=g.table, seat=g.seat))
        return g

    # ------------------------------------------------------------------ the journalled changes
    def note_row(self, row: Row) -> None:
        """A durable club row (at start-up, in journal order; then as each is written): the event's and the
        rounds' marks, revocations, redeemed links and renewed tokens."""
        body = row.body
        if row.kind == "event":
            self.event_mark = self._all_mark = row.seq
            self._marks.clear()
            self.signed_in.clear()
        elif row.kind == "round":
            rounds = body.get("rounds")
            if isinstance(rounds, dict):
                for table in rounds:
                    self._marks[str(table)] = row.seq
            elif body.get("tables"):
                for table in body["tables"]:
                    self._marks[str(table)] = row.seq
            else:
                self._all_mark = row.seq
        else:
            self.apply_row(row.kind, body)
        if row.kind in ("signin", "card", "renew") and body.get("table") and body.get("seat"):
            try:
                self.signed_in.add((str(body["table"]), str(body["seat"]), int(body.get("round") or 0)))
            except (TypeError, ValueError):
                pass

    def has_own_device(self, table: str, seats: str, rnd: int) -> bool:
        """Whether a seat of ``seats`` at ``table`` signed in on a device of its own in round ``rnd``."""
        return any((table, seat, rnd) in self.signed_in for seat in seats)

    def apply_row(self, kind: str, body: dict[str, Any]) -> None:
        """A journalled ``revoke`` (raise the seats' generations), ``signin`` (a link redeemed) or ``renew`` (a
        seat token traded for its pair's next one)."""
        if kind == "revoke":
            for table in body.get("tables", ()):
                for seat in body.get("seats", SEAT_LETTERS):
                    self.generations[(table, seat)] = self.generations.get((table, seat), 0) + 1
        elif kind == "signin" and body.get("link"):
            self.redeemed.add(str(body["link"]))
        elif kind == "renew" and body.get("from"):
            self.retired.add(str(body["from"]))
