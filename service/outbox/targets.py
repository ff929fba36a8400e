"""Live-upload targets: where the outbox (``service/outbox/delivery.py``) delivers a board result, and how.

A target has one coroutine, ``send(message) -> Outcome``: ``delivered``, ``retry`` (the outbox backs off and
tries again) or ``permanent`` (the outbox stops and shows the director why). Two kinds (``docs/upload.md``):

- ``webhook``: an HTTP(S) JSON POST of the result, with ``Idempotency-Key`` and an HMAC-SHA256 signature
  ``X-Bridgetable-Signature: t=<unix time>,v1=<hex>`` over ``"<t>." + body`` under the target's secret;
- ``lin``: a BBO-style vugraph LIN text of the board, POSTed as ``text/plain`` (signed too when the target has a
  secret) or written atomically as ``<table>-<board>.lin`` into a directory.

HTTP answers: 2xx, and 409 ("I already have this key"), mean delivered; 408, 429 and 5xx, timeouts and
connection errors are worth retrying (``Retry-After`` is honoured, capped); any other status is permanent: the
receiver has said that this request will never succeed as it is.
"""
from __future__ import annotations

import asyncio
import datetime
import email.utils
import hashlib
import hmac
import io
import json
import logging
import os
import random
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from service.canonical import canonical_int
from service.config.settings import UploadTarget
from table.events import BoardStarted, CallMade, CardPlayed, ClaimMade, ClaimResponded, TableEvent, event_from_dict
from table.formats.lin import write_lin
from table.record import GameRecord
from table.scoring import parse_contract

if TYPE_CHECKING:            # imported when a target is built: a service without uploads starts without it
    import httpx

log = logging.getLogger(__name__)

SIGNATURE_HEADER = "X-Bridgetable-Signature"
USER_AGENT = "bridgetable-outbox/1"
SIGNATURE_TOLERANCE_S = 300
_LIN_EVENTS = (BoardStarted, CallMade, CardPlayed, ClaimMade, ClaimResponded)   # what LIN can say


# ----------------------------------------------------------------------------------------- signatures
def sign(secret: str, body: bytes, t: int | None = None) -> str:
    """The signature header value for ``body`` sent at unix time ``t`` (now by default)."""
    t = int(time.time()) if t is None else t
    mac = hmac.new(secret.encode(), str(t).encode() + b"." + body, hashlib.sha256).hexdigest()
    return f"t={t},v1={mac}"


def verify_signature(secret: str, header: str | None, body: bytes, now: float | None = None,
                     tolerance_s: float = SIGNATURE_TOLERANCE_S) -> bool:
    """What a receiver does: the header parses, its time is within ``tolerance_s`` of ``now`` (a captured
    request cannot be replayed later), and one of its ``v1`` MACs matches (several allow a key rotation)."""
    if not header:
        return False
    parts = [p.split("=", 1) for p in header.split(",") if "=" in p]
    ts = [v for k, v in parts if k.strip() == "t"]
    macs = [v.strip() for k, v in parts if k.strip() == "v1"]
    t = canonical_int(ts[0].strip(), 12) if len(ts) == 1 else None
    if t is None or not macs:
        return False
    if abs((time.time() if now is None else now) - t) > tolerance_s:
        return False
    want = hmac.new(secret.encode(), str(t).encode() + b"." + body, hashlib.sha256).hexdigest()
    return any(hmac.compare_digest(want, m) for m in macs)


# ----------------------------------------------------------------------------------------- retry policy
def backoff_delay(attempts: int, base_s: float, cap_s: float, rng: random.Random | None = None) -> float:
    """Seconds to wait after the ``attempts``-th failed attempt: exponential (base, 2·base, 4·base …) capped at
    ``cap_s``, then jittered down to between half and all of it, so that many messages failing together do not
    come back together."""
    full = min(cap_s, base_s * 2 ** max(0, attempts - 1))
    return float(full * (0.5 + 0.5 * (rng or random).random()))


@dataclass(frozen=True)
class Outcome:
    kind: str                              # "delivered" | "retry" | "permanent"
    detail: str = ""
    status: int | None = None
    retry_after: float | None = None    # seconds the receiver asked us to wait (Retry-After)
    cause: str = ""                        # a short label for the director's counters: timeout, network, http_500 …


def classify(status: int) -> str:
    if 200 <= status < 300 or status == 409:
        return "delivered"
    if status in (408, 429) or status >= 500:
        return "retry"
    return "permanent"


def _retry_after(r: httpx.Response, now: float | None = None) -> float | None:
    """Seconds the receiver asked us to wait: ``Retry-After`` is delay-seconds or an HTTP-date (RFC 9110
    §10.2.3); a date in the past means now; anything unreadable leaves our own backoff in charge."""
    v = r.headers.get("Retry-After", "").strip()
    if not v:
        return None
    try:
        return max(0.0, float(v))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(v)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:                 # "-0000" or no zone: HTTP-dates are GMT
        when = when.replace(tzinfo=datetime.UTC)
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def _outcome(r: httpx.Response) -> Outcome:
    kind = classify(r.status_code)
    text = r.text[:200].replace("\n", " ") if kind != "delivered" else ""
    detail = f"HTTP {r.status_code}" + (f": {text}" if text else "")
    return Outcome(kind, detail, r.status_code, _retry_after(r) if kind == "retry" else None,
                   "delivered" if kind == "delivered" else f"http_{r.status_code}")


# ----------------------------------------------------------------------------------------- the board as LIN
def lin_rs_entry(payload: dict[str, Any]) -> str:
    """The ``rs|`` entry of a result: ``4SNX-1``, ``PASS``, ``ADJ`` (an artificial score has no LIN form), or
    empty when the board has no result; an assigned adjusted score is written as the assigned contract."""
    adj = payload.get("adjustment") or {}
    if adj.get("kind") == "artificial":
        return "ADJ"
    src = adj if adj.get("kind") == "assigned" else payload
    contract, declarer, tricks = src.get("contract"), src.get("declarer"), src.get("tricks")
    if contract == "PASS":
        return "PASS"
    try:
        c = parse_contract(contract or "")
    except ValueError:
        return ""
    if c is None or declarer is None or tricks is None:
        return ""
    diff = int(tricks) - (c.level + 6)
    return f"{c.level}{'N' if c.strain == 'NT' else c.strain}{declarer}{c.risk}{'=' if diff == 0 else f'{diff:+d}'}"


def board_lin(payload: dict[str, Any], events: list[dict[str, Any]]) -> str:
    """One board as a vugraph LIN text: a ``vg`` header naming the table, the result in ``rs``, then the
    board (deal, vulnerability, auction, play, an agreed claim) as ``table.formats.lin.write_lin`` writes it."""
    evs: list[TableEvent] = []
    for body in events:
        try:
            e = event_from_dict(body)
        except ValueError:
            continue
        if isinstance(e, _LIN_EVENTS):
            evs.append(e)
    if not any(isinstance(e, CallMade) for e in evs):
        # a contract entered without its auction: LIN can carry neither it nor a claim in it (a reader would
        # find "a claim, but no contract"), so the board is its deal and the result is the rs entry
        evs = [e for e in evs if isinstance(e, BoardStarted)]
    n = payload["board"]
    name = f"bridgetable table {payload['table']}".replace(",", " ").replace("|", " ")
    out = io.StringIO()
    out.write(f"vg|{name},Board {n},P,{n},{n},NS,0,EW,0|\nrs|{lin_rs_entry(payload)}|\n")
    write_lin([GameRecord(source=f"table {payload['table']}", index=0, events=evs, tags={"Room": "Open"})], out)
    return out.getvalue()


# ----------------------------------------------------------------------------------------- targets
class Message(Protocol):
    key: str
    table_id: str
    board: int
    payload: dict[str, Any]
    lin: str


class Target(Protocol):
    cfg: UploadTarget

    async def send(self, msg: Message) -> Outcome: ...

    async def aclose(self) -> None: ...


class _HttpTarget:
    def __init__(self, cfg: UploadTarget) -> None:
        import httpx

        self.cfg = cfg
        self.client = httpx.AsyncClient(
            timeout=httpx.Timeout(cfg.timeout_s), follow_redirects=False,
            limits=httpx.Limits(max_connections=cfg.max_in_flight, max_keepalive_connections=cfg.max_in_flight))

    async def _post(self, msg: Message, body: bytes, content_type: str) -> Outcome:
        import httpx

        assert self.cfg.url is not None
        headers = {"Content-Type": content_type, "Idempotency-Key": msg.key, "User-Agent": USER_AGENT}
        if self.cfg.secret:
            headers[SIGNATURE_HEADER] = sign(self.cfg.secret, body)     # signed per attempt: a fresh time
        try:
            r = await self.client.post(self.cfg.url, content=body, headers=headers)
        except httpx.TimeoutException as err:
            return Outcome("retry", f"no answer within {self.cfg.timeout_s:g} s ({type(err).__name__})",
                           cause="timeout")
        except httpx.TransportError as err:          # refused, reset, DNS, TLS: the network, not the message
            return Outcome("retry", f"{type(err).__name__}: {err or 'connection failed'}", cause="network")
        return _outcome(r)

    async def aclose(self) -> None:
        await self.client.aclose()


class WebhookTarget(_HttpTarget):
    async def send(self, msg: Message) -> Outcome:
        body = json.dumps(msg.payload, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode()
        return await self._post(msg, body, "application/json")


class LinTarget(_HttpTarget):
    """A vugraph feed: POST to a URL, or files in a directory that a feed publisher picks up."""

    def __init__(self, cfg: UploadTarget) -> None:
        super().__init__(cfg)
        self.directory = Path(cfg.directory) if cfg.directory else None

    async def send(self, msg: Message) -> Outcome:
        if self.directory is None:
            return await self._post(msg, msg.lin.encode(), "text/plain; charset=utf-8")
        try:
            path = await asyncio.to_thread(write_atomic, self.directory, f"{msg.table_id}-{msg.board}.lin", msg.lin)
        except OSError as err:                       # a full disk or a missing mount may come back: retry
            return Outcome("retry", f"cannot write into {self.directory}: {err}", cause="disk")
        return Outcome("delivered", str(path), cause="delivered")


def write_atomic(directory: Path, name: str, text: str) -> Path:
    """Write ``text`` to ``directory/name`` so that a reader sees the old file or the new one, never half of
    one: a temporary file in the same directory, flushed to disk, then renamed over the target."""
    directory.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, directory / name)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return directory / name


def make_target(cfg: UploadTarget) -> Target:
    return WebhookTarget(cfg) if cfg.kind == "webhook" else LinTarget(cfg)
