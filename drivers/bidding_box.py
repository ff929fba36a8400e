"""The bidding box / bidding screen driver: CALL_PRESSED -> ``CallMade(seat, call, alert)``.

The seat comes from the handshake (serial number -> seat in the configuration); a box bound to no seat
produces ``UNBOUND_DEVICE`` for each call, never a table event. UNDO (a withdrawn inadvertent call inside
the device's window, Law 25A), STOP_CARD and TRAY_PASSED have no table event of their own: they become
info events for the director. DIRECTOR_CALL (the box's Director key) becomes the notice ``DIRECTOR_CALL``, which
the service journals as a call for the director from that seat. Host -> device: :meth:`show_auction`, :meth:`show_turn`,
:meth:`refuse_call`, :meth:`set_mode` (Law 80E prevent mode), :meth:`show_error`.
"""
from __future__ import annotations

from collections.abc import Sequence

from firmware_host import (
    CallPressed,
    DeviceKind,
    DirectorCall,
    Message,
    Mode,
    Phase,
    RefuseCall,
    SetMode,
    ShowAuction,
    ShowError,
    ShowTurn,
    StopCard,
    TrayPassed,
    Undo,
)
from table.cards import Seat
from table.events import CallMade

from .base import DeviceDriver
from .notices import DeviceNotice


class BiddingBoxDriver(DeviceDriver):
    KINDS = (DeviceKind.BIDDING_BOX, DeviceKind.BIDDING_SCREEN)

    def on_message(self, msg: Message) -> bool:
        seat = self.seat
        if isinstance(msg, CallPressed):
            if seat is None:
                self.unbound(f"call {msg.call}{' (alerted)' if msg.alert else ''}")
            else:
                self._emit(CallMade(Seat(seat), msg.call, msg.alert, source=self.source))
        elif isinstance(msg, Undo):
            self._emit(DeviceNotice("UNDO", self.name, f"{seat or 'unbound box'} withdrew {msg.call} (Law 25A)",
                                   seat=seat))
        elif isinstance(msg, StopCard):
            self._emit(DeviceNotice("STOP_CARD", self.name, f"{seat or 'unbound box'} showed the stop card",
                                   seat=seat))
        elif isinstance(msg, DirectorCall):
            if seat is None:
                self.unbound("a call for the director")
            else:
                self._emit(DeviceNotice("DIRECTOR_CALL", self.name, f"{seat} called the director from the seat unit",
                                       seat=seat))
        elif isinstance(msg, TrayPassed):
            self._emit(DeviceNotice("TRAY_PASSED", self.name, f"tray passed {msg.direction.name.lower()}",
                                   seat=seat))
        else:
            return False
        return True

    # ------------------------------------------------------------------ host -> device
    def show_auction(self, dealer: str, calls: Sequence[str], alerts: Sequence[bool] = ()) -> None:
        self.send(ShowAuction(dealer, tuple(calls), tuple(alerts)))

    def show_turn(self, seat: str | None, phase: Phase = Phase.AUCTION) -> None:
        self.send(ShowTurn(seat, phase))

    def show_error(self, code: int, text: str) -> None:
        """A message on the box's display (line 7 of the seat unit's): an irregularity, "director called"."""
        self.send(ShowError(code, text))

    def refuse_call(self, call: str, code: int, text: str = "") -> None:
        self.send(RefuseCall(call, code, text))

    def set_mode(self, mode: Mode, undo_window_ms: int = 0) -> None:
        self.send(SetMode(mode, undo_window_ms))
