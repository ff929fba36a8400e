"""The seat card reader driver: RFID reads at one seat -> ``CardPlayed`` / ``HandRead`` table events.

Per read (CARD_READ): debounce (the same tag again in the same zone within ``debounce_window`` seconds of
device time is the same card lying on the antenna), then resolve the tag through the club's
:class:`~drivers.decks.DeckRegistry`, then check it against the board:

* an unbound reader (no seat in the configuration) -> ``UNBOUND_DEVICE``;
* a tag no deck knows -> ``UNKNOWN_TAG``;
* a card of another deck than the board's (when the board's deck is known) -> ``WRONG_DECK``;
* a card that was not dealt to this seat (when the board's deal is known) -> ``WRONG_SEAT``;
* otherwise ``CardPlayed(seat, card)``. The own play zone and dummy's zone both mean "this seat's card
  was played" (dummy's cards are the dummy seat's cards; declarer plays them into dummy's zone).

Error events never reach the table: its state is untouched. A HAND_READ (sent whole, or in parts put back
together by :class:`~firmware_host.hands.HandAssembler`) becomes ``HandRead(seat, cards)`` when every tag
resolves (the table checks the hand against the hand record, Law 13/7); otherwise ``UNKNOWN_TAG`` per bad tag
and a ``BAD_INPUT`` asking for the hand to be read again. A hand read again is a read again (the check when
the cards go back into the board, Law 7C, reads the same hand a second time), except the one read of the hand
still on the antenna when its unit restarted: that is the hand read before the restart.

A unit that restarted (a new session, not a resumed one: a watchdog or power reset) reads again the card still
lying on its antenna, with its clock started again: the first read of each zone after the restart that is the
zone's last card is a repeat, whatever its time.

Tell the driver about each board with :meth:`SeatReaderDriver.set_board` (the deal and the deck, either
may be ``None``). While ``learn(deck_name)`` is active, reads teach a deck instead (``DeckLearner``).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from firmware_host import CardRead, DeviceKind, HandScan, Message, ReaderStatus, UnitStatus, Zone
from firmware_host.constants import ReaderStatusCode, ResetCause
from firmware_host.hands import HandAssembler
from table.cards import Deal, Seat
from table.events import CardPlayed, HandRead

from .base import DeviceDriver
from .debounce import Debouncer
from .decks import STANDARD_ORDER, Deck, DeckLearner, DeckRegistry
from .errors import NotLearning
from .notices import DeviceNotice, bad_input, unknown_tag, wrong_deck, wrong_seat

ZONE_NAMES = {Zone.PLAY: "play", Zone.DUMMY: "dummy", Zone.HAND: "hand"}


class SeatReaderDriver(DeviceDriver):
    KINDS = (DeviceKind.SEAT_READER,)

    def __init__(self, url: str, emit: Any, seats: Any = None, decks: DeckRegistry | None = None, *,
                 debounce_window: float = 0.5, **kwargs: Any) -> None:
        super().__init__(url, emit, seats, **kwargs)
        self.decks = decks if decks is not None else DeckRegistry()
        self.debouncer = Debouncer(debounce_window)
        self.deal: Deal | None = None
        self.deck: str | None = None
        self.learner: DeckLearner | None = None
        self.unit_status: UnitStatus | None = None   # the unit's last UNIT_STATUS (reset cause, stack, reader)
        self.hands = HandAssembler()
        self._last_hand: tuple[str, ...] | None = None   # the hand last read in this board
        self._hand_at_restart: tuple[str, ...] | None = None   # that hand, if the unit restarted since: a repeat
        self._boot: int | None = None                   # the session id of the unit's boot the reads come from

    def set_board(self, deal: Deal | None = None, deck: str | None = None) -> None:
        """The board now on the table: its deal (for the wrong-seat check) and its deck, either unknown.

        The debouncing is not reset: a read of the last board's last card that arrives after the new board
        started (a frame retransmitted after a noisy wire or a pulled cable, the card lifted and laid back)
        is still a repeat by device time, not the new board's first card."""
        self.deal = deal
        self.deck = deck
        self._last_hand = self._hand_at_restart = None

    def learn(self, name: str, order: Sequence[str] = STANDARD_ORDER) -> DeckLearner:
        """From now on, reads teach deck ``name`` (one tag per card, in ``order``) until :meth:`finish_learning`."""
        self.learner = DeckLearner(self.decks, name, order)
        self.debouncer.reset()
        return self.learner

    def finish_learning(self) -> Deck:
        learner, self.learner = self.learner, None
        if learner is None:
            raise NotLearning("no deck is being learned")
        return learner.finish()

    # ------------------------------------------------------------------ messages
    def on_message(self, msg: Message) -> bool:
        self._check_restart()
        if isinstance(msg, CardRead):
            self._card(msg)
        elif isinstance(msg, HandScan):
            self._hand(msg)
        elif isinstance(msg, ReaderStatus):
            if msg.status != ReaderStatusCode.OK:
                self._emit(DeviceNotice("READER_FAULT", self.name, f"reader status {msg.status.name}",
                                       seat=self.seat))
        elif isinstance(msg, UnitStatus):
            self.unit_status = msg
            cause = ResetCause(msg.reset_cause)
            if cause & (ResetCause.WATCHDOG | ResetCause.BROWN_OUT):
                self._emit(DeviceNotice("UNIT_RESET", self.name, f"the seat unit restarted after a {cause!r} reset "
                                       f"(stack peak {msg.stack_peak} bytes)", seat=self.seat))
        else:
            return False
        return True

    def _check_restart(self) -> None:
        peer = self.session.peer
        boot = peer.session_id if peer is not None else None
        if boot != self._boot:
            if self._boot is not None:                  # the unit restarted: its clock and hand parts with it
                self.debouncer.carry_over()
                self.hands.reset()
                self._hand_at_restart = self._last_hand
            self._boot = boot

    def _card(self, msg: CardRead) -> None:
        uid = msg.uid.hex().upper()
        zone = ZONE_NAMES.get(msg.zone, str(msg.zone))
        if not self.debouncer.accept(msg.zone, uid, msg.ts / 1000.0):
            return
        if self.learner is not None:
            card = self.learner.feed(uid)
            if card is not None:
                self._emit(DeviceNotice("DECK_LEARNED", self.name, f"tag {uid} is {card} of deck "
                                       f"{self.learner.name!r}", uid=uid, card=card, zone=zone))
            return
        seat = self.seat
        if seat is None:
            self.unbound(f"card read (tag {uid})")
            return
        found = self.decks.lookup(uid)
        if found is None:
            self._emit(unknown_tag(self.name, uid, seat, zone))
            return
        if msg.zone == Zone.HAND:          # a card seen while a hand is lifted: the hand comes as HAND_READ
            return
        if self.deck is not None and found.deck != self.deck:
            self._emit(wrong_deck(self.name, seat, found.card, found.deck, self.deck))
            return
        if self.deal is not None:
            owner = self.deal.owner.get(found.card)
            if owner is not None and owner != seat:
                self._emit(wrong_seat(self.name, seat, found.card, str(owner), uid))
                return
        self._emit(CardPlayed(Seat(seat), found.card, source=self.source))

    def _hand(self, part: HandScan) -> None:
        msg = self.hands.feed(part)
        if msg is None:
            return
        seat = self.seat
        if seat is None:
            self.unbound(f"hand read ({len(msg.uids)} tags)")
            return
        cards: list[str] = []
        bad = 0
        for raw in msg.uids:
            uid = raw.hex().upper()
            found = self.decks.lookup(uid)
            if found is None:
                bad += 1
                self._emit(unknown_tag(self.name, uid, seat, "hand"))
            elif self.deck is not None and found.deck != self.deck:
                bad += 1
                self._emit(wrong_deck(self.name, seat, found.card, found.deck, self.deck))
            else:
                cards.append(found.card)
        if bad:
            self._emit(bad_input(self.name, f"hand read at {seat} incomplete ({bad} of {len(msg.uids)} tags "
                                 "unusable); read the hand again", seat))
            return
        repeat = self._hand_at_restart is not None and sorted(cards) == sorted(self._hand_at_restart)
        self._hand_at_restart = None
        if repeat:
            return                                      # the hand that lay there before the restart: one read
        self._last_hand = tuple(cards)
        self._emit(HandRead(Seat(seat), tuple(cards), source=self.source))
