"""Tokens: the director's, and one per seat bound to one table and one seat.

A seat token is ``seat.<table>.<seat>.<mac>`` where ``mac`` is an HMAC-SHA256 of ``<table>.<seat>`` under the
club's secret: it names its binding, cannot be forged or re-bound without the secret, and survives a restart
(the secret lives in the settings or, generated once, in the journal's ``meta`` table). The director's
token comes from the settings or is generated once and kept the same way.

Tokens travel as ``Authorization: Bearer <token>`` or, for WebSockets and pages opened from a link,
``?token=<token>``. No token makes a spectator; a token that is neither is refused (401).
"""
from __future__ import annotations

import hashlib
import hmac
import secrets

from .errors import Unauthenticated
from .visibility import DIRECTOR, SPECTATOR, Viewer

SEAT_LETTERS = ("N", "E", "S", "W")


class Tokens:
    def __init__(self, director_token: str, secret: str) -> None:
        self.director_token = director_token
        self._secret = secret.encode()

    @staticmethod
    def generate() -> str:
        return secrets.token_urlsafe(24)

    def _mac(self, table: str, seat: str) -> str:
        return hmac.new(self._secret, f"{table}.{seat}".encode(), hashlib.sha256).hexdigest()[:32]

    def seat_token(self, table: str, seat: str) -> str:
        if seat not in SEAT_LETTERS:
            raise ValueError(f"not a seat: {seat!r}")
        return f"seat.{table}.{seat}.{self._mac(table, seat)}"

    def viewer(self, token: str | None) -> Viewer:
        """The viewer a token stands for; no token is a spectator; a bad token raises ``Unauthenticated``."""
        if not token:
            return SPECTATOR
        if hmac.compare_digest(token.encode(), self.director_token.encode()):
            return DIRECTOR
        parts = token.split(".")
        if len(parts) == 4 and parts[0] == "seat" and parts[2] in SEAT_LETTERS:
            _, table, seat, mac = parts
            if hmac.compare_digest(mac.encode(), self._mac(table, seat).encode()):
                return Viewer("seat", table=table, seat=seat)
        raise Unauthenticated("invalid token")
