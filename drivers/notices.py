"""Device notices: what the drivers emit beside table events — error and status reports, never table state.

A driver's callback receives either a table event (``table.events``: ``CardPlayed``, ``CallMade``,
``HandRead`` ...) or one of these. They carry ``type = "device"`` and a ``code``, so a consumer routes
them by ``event.type`` and never applies them to a ``Table``:

=================  =========================================================================================
code               meaning
=================  =========================================================================================
UNKNOWN_TAG        a reader saw a tag no learned deck has (a misread, a stray tag, an unlearned deck)
WRONG_SEAT         a card read at a seat that was not dealt it (antenna cross-talk or a card on the wrong
                   reader); the card is not played
UNBOUND_DEVICE     a device whose serial number the configuration does not map to a seat; its calls/cards
                   are not used
BAD_INPUT          a message the driver cannot turn into an event (a call that is not a call, a zone the
                   device does not have)
WRONG_DECK         a card of another deck than the board's (a card from another board)
DEVICE_ERROR       the device reported an error (ERROR message)
CONNECTED          (info) the handshake completed (identity: serial number, kind, firmware)
DISCONNECTED       (info) the link went away; the driver reconnects with backoff
DECK_LEARNED       (info) a tag was learned as a card while a deck is being learned
UNDO, STOP_CARD,   (info) a bidding box's undo (Law 25A window), stop card, a screen's tray passing: no
TRAY_PASSED        table event of their own; shown to the director
DIRECTOR_CALL      (info) a player pressed the bidding box's Director key (Law 9B1): the service journals it
                   as a call for the director from that seat
=================  =========================================================================================
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

INFO_CODES = frozenset({"CONNECTED", "DISCONNECTED", "DECK_LEARNED", "UNDO", "STOP_CARD", "TRAY_PASSED",
                        "DIRECTOR_CALL"})


@dataclass(frozen=True, slots=True)
class DeviceNotice:
    code: str
    device: str                       # the device's serial number (or its URL before the handshake)
    detail: str
    seat: str | None = None
    uid: str | None = None
    card: str | None = None
    zone: str | None = None
    ts: str | None = None
    type: str = field(default="device", init=False)

    @property
    def is_error(self) -> bool:
        return self.code not in INFO_CODES

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}


def unknown_tag(device: str, uid: str, seat: str | None, zone: str | None) -> DeviceNotice:
    return DeviceNotice("UNKNOWN_TAG", device, f"tag {uid} is not in any learned deck", seat=seat, uid=uid,
                       zone=zone)


def wrong_deck(device: str, seat: str | None, card: str, deck: str, expected: str) -> DeviceNotice:
    return DeviceNotice("WRONG_DECK", device, f"{card} of deck {deck!r} read, but this board is played with "
                       f"deck {expected!r}; not played", seat=seat, card=card)


def wrong_seat(device: str, seat: str, card: str, owner: str, uid: str | None = None) -> DeviceNotice:
    return DeviceNotice("WRONG_SEAT", device, f"{card} read at {seat} but it was dealt to {owner}; not played",
                       seat=seat, card=card, uid=uid)


def unbound_device(device: str, what: str) -> DeviceNotice:
    return DeviceNotice("UNBOUND_DEVICE", device, f"{what} from device {device}, which is bound to no seat")


def bad_input(device: str, detail: str, seat: str | None = None) -> DeviceNotice:
    return DeviceNotice("BAD_INPUT", device, detail, seat=seat)
