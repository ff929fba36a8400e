"""Credentials: the director's token, and seat credentials bound to the event's session, a table, a seat and
the table's round (and so to the pair the movement seats there).

* A **sign-in link** (``/seat#signin=<code>``, or its QR code) carries ``link.<table>.<seat>.<round>.<gen>.<mac>``.
  It can be redeemed once (``POST /api/signin``, ``service/credentials_api.py``) for the seat's token; the code
  travels in the URL's fragment, which a browser never sends to the server nor in a Referer.
* A **seat token** ``seat.<table>.<seat>.<round>.<gen>.<mac>`` is sent as ``Authorization: Bearer`` (or, for a
  WebSocket, as the subprotocol ``bearer.<token>``; ``service/credential_transport.py``).

* A **table card** (``/seat#card=<code>``, printed as a QR code on the table's card, ``/cards``) carries
  ``card.<table>.<seat>.0.<gen>.<mac>``: not bound to a round, it can be redeemed again and again during the
  session (``POST /api/signin/card``) for the seat token of the round the table is in *then*; every redemption is
  journalled (club row ``card``). Holding it means being at the table, like a table terminal. The director's
  revocation ends it with the seat's other credentials; the cards page then shows the new code to reprint.

Links and tokens are valid only while the table is in that round (``round_of``: the event's round, 0 for a table outside
any event) and the seat's generation is ``gen``: the director's revocation (``POST /api/tables/{id}/revoke``)
raises the generation, so every credential of that seat ends at once. ``mac`` is an HMAC-SHA256 under the
club's secret of all of that and the session id, which a new database draws afresh: a new session never
accepts an old session's credentials. Revocations and redeemed links are journalled (club rows ``revoke`` and
``signin``, replayed by ``apply_row``), so a restart neither revives a credential nor a used link.

No token makes a spectator; a token that is neither the director's nor a valid seat's is refused (401).
"""
from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .canonical import canonical_int
from .errors import Unauthenticated
from .visibility import DIRECTOR, SPECTATOR, Viewer

SEAT_LETTERS = ("N", "E", "S", "W")


@dataclass(frozen=True, slots=True)
class SeatGrant:
    """What a valid seat credential stands for."""
    table: str
    seat: str
    round: int
    generation: int


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

    @staticmethod
    def generate() -> str:
        return secrets.token_urlsafe(24)

    # ------------------------------------------------------------------ issuing
    def _mac(self, kind: str, table: str, seat: str, rnd: int, gen: int) -> str:
        msg = f"{kind}|{self.session}|{table}|{seat}|{rnd}|{gen}".encode()
        return hmac.new(self._secret, msg, hashlib.sha256).hexdigest()[:32]

    def _issue(self, kind: str, table: str, seat: str) -> str:
        if seat not in SEAT_LETTERS:
            raise ValueError(f"not a seat: {seat!r}")
        rnd, gen = self.round_of(table), self.generations.get((table, seat), 0)
        return f"{kind}.{table}.{seat}.{rnd}.{gen}.{self._mac(kind, table, seat, rnd, gen)}"

    def seat_token(self, table: str, seat: str) -> str:
        """The seat's token for its table's current round (for devices and API clients; players sign in)."""
        return self._issue("seat", table, seat)

    def card_code(self, table: str, seat: str) -> str:
        """The seat's reusable table-card code for the session (round 0: any round; ends with a revocation)."""
        if seat not in SEAT_LETTERS:
            raise ValueError(f"not a seat: {seat!r}")
        gen = self.generations.get((table, seat), 0)
        return f"card.{table}.{seat}.0.{gen}.{self._mac('card', table, seat, 0, gen)}"

    def seat_link(self, table: str, seat: str) -> str:
        """The one-time sign-in code of the seat's current round."""
        return self._issue("link", table, seat)

    @staticmethod
    def link_id(code: str) -> str:
        return hashlib.sha256(code.encode()).hexdigest()[:24]

    # ------------------------------------------------------------------ checking
    def grant(self, kind: str, token: str) -> SeatGrant:
        """What a ``kind`` credential stands for, or ``Unauthenticated`` saying why it is not (any more) valid.
        A table card's grant carries the table's current round (the round its redemption signs in to)."""
        parts = token.split(".")
        if len(parts) != 6 or parts[0] != kind or parts[2] not in SEAT_LETTERS \
                or canonical_int(parts[3], 6) is None or canonical_int(parts[4], 9) is None:
            raise Unauthenticated("invalid token")
        _, table, seat, rnd_s, gen_s, mac = parts
        rnd, gen = int(rnd_s), int(gen_s)
        if not hmac.compare_digest(mac.encode(), self._mac(kind, table, seat, rnd, gen).encode()):
            raise Unauthenticated("invalid token")
        what = {"link": "sign-in link", "card": "table card"}.get(kind, "seat sign-in")
        if gen != self.generations.get((table, seat), 0):
            raise Unauthenticated(f"this {what} for table {table} seat {seat} was revoked by the director")
        now = self.round_of(table)
        if kind == "card":
            if rnd != 0:
                raise Unauthenticated("invalid token")
            return SeatGrant(table, seat, now, gen)
        if rnd != now:
            raise Unauthenticated(f"this {what} was for round {rnd}; table {table} is in round {now}: "
                                  "sign in with this round's link")
        return SeatGrant(table, seat, rnd, gen)

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
            raise Unauthenticated(f"this sign-in link for table {g.table} seat {g.seat} was used already: "
                                  "ask the director for a new one")
        return g

    # ------------------------------------------------------------------ the journalled changes
    def apply_row(self, kind: str, body: dict[str, Any]) -> None:
        """A journalled ``revoke`` (raise the seats' generations) or ``signin`` (a link redeemed)."""
        if kind == "revoke":
            for table in body.get("tables", ()):
                for seat in body.get("seats", SEAT_LETTERS):
                    self.generations[(table, seat)] = self.generations.get((table, seat), 0) + 1
        elif kind == "signin" and body.get("link"):
            self.redeemed.add(str(body["link"]))
