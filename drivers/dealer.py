"""The dealing machine driver: deal a set of boards and verify every card against the hand record.

For each board the host sends DEAL_BOARD (the pocket of each of the 52 cards); the machine answers with
BOARD_NUMBER_READ (if it reads board numbers), one CARD_DEALT per card (the card as it identified it, the
tag UID, the pocket it dropped into), then DEAL_DONE — or stops on a JAM or an UNREADABLE_CARD until an
operator clears it, or sends an ERROR (BOARD_MISMATCH, DECK_INCOMPLETE, UNKNOWN_CARD, BUSY ...).

:class:`BoardVerifier` checks each message as it arrives (a dictionary look-up per card) and turns what
is wrong into :class:`Problem` records, each with a message a club volunteer can act on:

==================  =========================================================================================
kind                when
==================  =========================================================================================
``WRONG_POCKET``    a card dropped into another pocket than the hand record's
``DUPLICATE_CARD``  a card reported a second time in the same board (a second copy in the deck, or two cards
                    stuck together and read as one)
``MISSING_CARD``    a card of the pack that never reached a pocket (deck short, rejected as unreadable ...)
``WRONG_CARD``      a card from another deck than the board's (needs the club's deck registry)
``UNKNOWN_CARD``    a tag no deck has: dropped into a pocket (blocking) or set aside by the machine
``WRONG_BOARD``     the machine holds another board than the one to deal
``JAM``             the machine stopped on a jam (it resumes once cleared; not a verification failure)
``UNREADABLE_CARD`` the machine set a card aside and stopped (the card then shows up as missing)
``MACHINE_ERROR``   any other error the machine reports
==================  =========================================================================================

Stopping: protocol v1 has no "stop" command to the dealer, so the host cannot halt the machine in the
middle of a board. A problem is reported the moment its card is read; the board is finished (so that one
stop lists everything wrong with it) and then the run stops at that board: no further DEAL_BOARD is sent
until the operator answers (``operator(stop)`` returns ``continue`` — done as told — ``redeal``, ``skip``
or ``abort``). A machine-side stop (jam, unreadable card) is cleared at the machine, which then resumes.

The driver is a :class:`~drivers.base.DeviceDriver` (link from a URL, HostSession, reconnection); time
is injectable, so a simulated machine on a virtual clock deals a set in milliseconds.
"""
from __future__ import annotations

import logging
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import reduce
from typing import Any

from firmware_host import (
    BoardNumberRead,
    CardDealt,
    DealBoard,
    DealDone,
    DeviceKind,
    ErrorMessage,
    Jam,
    Message,
    UnreadableCard,
)
from firmware_host.constants import ErrorCode
from table.cards import ALL_CARDS
from table.handrecords.base import HandRecordBoard
from table.texts import Text

from .base import DeviceDriver
from .decks import DeckRegistry
from .errors import DriverError, NotAChoice
from .notices import DeviceNotice

log = logging.getLogger(__name__)

WRONG_POCKET = "WRONG_POCKET"
DUPLICATE_CARD = "DUPLICATE_CARD"
MISSING_CARD = "MISSING_CARD"
WRONG_CARD = "WRONG_CARD"
UNKNOWN_CARD = "UNKNOWN_CARD"
WRONG_BOARD = "WRONG_BOARD"
JAM = "JAM"
UNREADABLE_CARD = "UNREADABLE_CARD"
MACHINE_ERROR = "MACHINE_ERROR"


class Decision(StrEnum):
    CONTINUE = "continue"        # the operator did what the message says
    REDEAL = "redeal"            # the board's cards are back in the machine: deal it again
    SKIP = "skip"                # leave this board for later, go on with the next
    ABORT = "abort"              # stop the run


class DealerError(DriverError):
    """The machine could not be used: it did not connect, or fell silent in the middle of a board."""


def _on_board(board: int, step: Text) -> Text:
    """A problem's line: the board, then what to do (``BoardVerifier.instructions`` lists the steps alone). Keyed
    (table/texts.py): the console words it; a ``pocket`` parameter is a seat letter, or empty for the reject tray."""
    return Text("dealing.on_board", "Board {board}: ", board=board) + step


def _step(message: str) -> str:
    """A problem's line without its board: its keyed step, or the English after "Board n: "."""
    if isinstance(message, Text) and len(message.parts) > 1 and getattr(message.parts[0], "key", "") == \
            "dealing.on_board":
        return reduce(operator.add, message.parts[1:])
    return message.split(": ", 1)[-1] if message.startswith("Board") else message


@dataclass(frozen=True, slots=True)
class Problem:
    kind: str
    board: int
    message: str                         # for the volunteer at the machine
    card: str | None = None
    pocket: str | None = None         # where the card went (the card's own pocket for MISSING_CARD)
    belongs: str | None = None        # where it belongs, when that differs
    uid: str | None = None
    read_board: int | None = None     # WRONG_BOARD: the board the machine holds
    blocking: bool = True                # the board fails verification until someone acts

    def key(self) -> tuple[str, int, str | None, str | None]:
        return (self.kind, self.board, self.card, self.pocket)

    def to_event(self, device: str) -> DeviceNotice:
        return DeviceNotice(self.kind, device, self.message, seat=self.pocket, uid=self.uid, card=self.card)


# ------------------------------------------------------------------------------------------ verification

class BoardVerifier:
    """Checks one board's dealing messages against its hand record. Pure logic, no I/O.

    ``decks``/``deck``: with the club's registry and the name of the deck this board is dealt from, a card
    whose tag belongs to another deck is a ``WRONG_CARD``, and a card the machine could not name is looked
    up by its tag.
    """

    __slots__ = ("record", "board", "owner", "dealt", "problems", "decks", "deck", "rejected", "double_reads",
                 "finished", "refused", "wrong_board")

    def __init__(self, record: HandRecordBoard, decks: DeckRegistry | None = None,
                 deck: str | None = None) -> None:
        self.record = record
        self.board = record.board
        self.owner = record.deal.owner                    # card -> Seat (a str): shared, not copied
        self.dealt: dict[str, tuple[str, bytes]] = {}      # card -> (pocket, tag UID)
        self.problems: list[Problem] = []
        self.decks = decks
        self.deck = deck
        self.rejected = 0                                  # cards the machine set aside
        self.double_reads: list[str] = []                  # pockets where a card was read twice (same tag)
        self.finished = False
        self.refused = False                               # the machine dealt nothing: the attempt is over
        self.wrong_board: int | None = None             # number read; ERROR(BOARD_MISMATCH) ends the attempt

    @property
    def failed(self) -> bool:
        return any(p.blocking for p in self.problems)

    def add(self, p: Problem) -> Problem:
        self.problems.append(p)
        return p

    def board_read(self, number: int) -> Problem | None:
        if number == self.board:
            return None
        self.wrong_board = number
        return self.add(Problem(WRONG_BOARD, self.board,
                                Text("dealing.wrong_board", "The machine has board {read} in it, but board {board} is "
                                     "to be dealt now. Take board {read} out, put board {board} in, then press "
                                     "Continue.", read=number, board=self.board),
                                read_board=number))

    def card(self, card: str | None, pocket: str, uid: bytes) -> Problem | None:
        """One CARD_DEALT: the hot path, a few dictionary look-ups."""
        b = self.board
        if self.decks is not None:
            found = self.decks.lookup(uid)
            if found is not None:
                if card is None:
                    card = found.card               # the machine could not name it; its tag can
                elif self.deck is not None and found.deck != self.deck:
                    self.dealt.setdefault(card, (pocket, uid))
                    own = self.owner[card]
                    return self.add(Problem(
                        WRONG_CARD, b, _on_board(b, Text(
                            "dealing.wrong_card", "the {card_name} that went into the {pocket} is from deck {deck}, "
                            "not from this board's deck {deck2}. Take it out, put the {card_name} of deck {deck2} in "
                            "{seat_name}'s pocket, then press Continue.", card_name=card, pocket=pocket,
                            deck=repr(found.deck), deck2=repr(self.deck), seat_name=own)),
                        card, pocket, belongs=str(own), uid=uid.hex().upper()))
        if card is None:
            tag = uid.hex().upper()
            return self.add(Problem(
                UNKNOWN_CARD, b, _on_board(b, Text(
                    "dealing.unknown_card", "a card the machine could not identify (tag {tag}) went into the "
                    "{pocket}. Take out of that pocket the card that is not from this board's deck (look at the "
                    "backs), then press Continue.", tag=tag, pocket=pocket)), None, pocket, uid=tag))
        first = self.dealt.get(card)
        if first is not None:
            return self._duplicate(card, pocket, uid.hex().upper(), first)
        self.dealt[card] = (pocket, uid)
        own = self.owner[card]
        if own != pocket:
            return self.add(Problem(
                WRONG_POCKET, b, _on_board(b, Text(
                    "dealing.wrong_pocket", "the {card_name} went into the {pocket}; it belongs to {seat_name}. Take "
                    "it out and put it in {seat_name}'s pocket, then press Continue.", card_name=card,
                    pocket=pocket, seat_name=own)),
                card, pocket, belongs=str(own), uid=uid.hex().upper()))
        return None

    def _duplicate(self, card: str, pocket: str, tag: str, first: tuple[str, bytes]) -> Problem:
        b = self.board
        # whole sentences (where the first went, why): a page words each in its own order
        where = (Text("dealing.second_card_there", "a second {card_name} went into the {pocket} (the first went "
                      "there too): ", card_name=card, pocket=pocket) if first[0] == pocket else
                 Text("dealing.second_card", "a second {card_name} went into the {pocket} (the first went into the "
                      "{pocket2}): ", card_name=card, pocket=pocket, pocket2=first[0]))
        if first[1].hex().upper() == tag:
            self.double_reads.append(pocket)
            what = Text("dealing.read_twice", "the machine read it twice, so two cards probably stuck together and "
                        "the second went in unread. Check the {pocket}: it must hold only {seat_name}'s cards (see "
                        "the hand record); move any other card to its own pocket, then press Continue.",
                        pocket=pocket, seat_name=self.owner[card])
        else:
            what = Text("dealing.two_of_card", "the deck has two of this card. Take the extra {card_name} out of the "
                        "{pocket} and set it aside, then press Continue.", card_name=card, pocket=pocket)
        return self.add(Problem(DUPLICATE_CARD, b, _on_board(b, where + what), card, pocket, uid=tag))

    def jam(self, pocket: str | None, cards_dealt: int) -> Problem:
        jammed = (Text("dealing.jam_pocket", "the machine jammed at the {pocket} after {count} cards. Clear the stuck "
                       "card and restart the machine; checking goes on by itself.", pocket=pocket, count=cards_dealt)
                  if pocket else
                  Text("dealing.jam_feeder", "the machine jammed in the feeder after {count} cards. Clear the stuck "
                       "card and restart the machine; checking goes on by itself.", count=cards_dealt))
        return self.add(Problem(JAM, self.board, _on_board(self.board, jammed), pocket=pocket, blocking=False))

    def unreadable(self, cards_dealt: int) -> Problem:
        self.rejected += 1
        return self.add(Problem(
            UNREADABLE_CARD, self.board, _on_board(self.board, Text(
                "dealing.unreadable", "the machine could not read a card and put it in the reject tray (after "
                "{count} cards). Leave it there and restart the machine; you will be told where it goes when the "
                "board is finished.", count=cards_dealt)), blocking=False))

    def unknown_rejected(self, text: str) -> Problem:
        self.rejected += 1
        # the machine's own words (``detail``) stay as it sent them
        aside = (Text("dealing.unknown_tag_said", "the machine set aside a card whose tag it does not know ({detail}). "
                      "Leave it in the reject tray for now; the machine goes on.", detail=text) if text else
                 Text("dealing.unknown_tag", "the machine set aside a card whose tag it does not know. Leave it in "
                      "the reject tray for now; the machine goes on."))
        return self.add(Problem(UNKNOWN_CARD, self.board, _on_board(self.board, aside), blocking=False))

    def machine_error(self, code: int, text: str) -> Problem:
        """Any other ERROR. BUSY, HARDWARE_FAULT and UNSUPPORTED mean the board was not dealt; anything else
        (LOW_POWER, ANTENNA_FAULT ...) is reported and the board's own checks decide."""
        try:
            name = ErrorCode(code).name
        except ValueError:
            name = f"0x{code:04X}"
        stops = code in (ErrorCode.BUSY, ErrorCode.HARDWARE_FAULT, ErrorCode.UNSUPPORTED)
        self.refused = self.refused or stops
        # the fault's code name and the machine's own words (``detail``) stay as it sent them
        fault = (Text("dealing.fault_said", "the machine reports a fault ({fault}: {detail}). ", fault=name,
                      detail=text) if text else
                 Text("dealing.fault", "the machine reports a fault ({fault}). ", fault=name))
        todo = (Text("dealing.fault_stops", "Check the machine, then press Continue to deal the board again.") if stops
                else Text("dealing.fault_goes_on", "Dealing goes on."))
        return self.add(Problem(MACHINE_ERROR, self.board, _on_board(self.board, fault + todo), blocking=stops))

    def finish(self) -> list[Problem]:
        """The board is over (DEAL_DONE or DECK_INCOMPLETE): every card not dealt is missing."""
        self.finished = True
        missing = [c for c in ALL_CARDS if c not in self.dealt]
        out = []
        for c in missing:
            own = self.owner[c]
            if self.rejected:
                hint = Text("dealing.missing_rejected", "The machine set aside {count} card(s): if the {card_name} is "
                            "among them, take it from the reject tray. ", count=self.rejected, card_name=c)
            elif self.double_reads:
                hint = Text("dealing.missing_stuck", "It probably went into the {pocket} stuck to another card: look "
                            "there. ", pocket=self.double_reads[0])
            else:
                hint = Text("dealing.missing_lacking", "The deck seems to lack it: find it (or use a spare "
                            "{card_name}). ", card_name=c)
            line = (Text("dealing.missing", "the {card_name} never reached a pocket; it belongs to {seat_name}. ",
                         card_name=c, seat_name=own) + hint
                    + Text("dealing.put_in", "Put it in {seat_name}'s pocket, then press Continue.", seat_name=own))
            out.append(self.add(Problem(MISSING_CARD, self.board, _on_board(self.board, line), c, str(own))))
        return out

    def instructions(self) -> str:
        """What the volunteer must do about this board, step by step."""
        steps = [_step(p.message) for p in self.problems if p.blocking]
        if not steps:
            return Text("dealing.correct", "Board {board} is correct.", board=self.board)
        # joined pieces, not "\n".join: each step stays keyed for the console
        out: str = Text("dealing.attention", "Board {board} needs attention:", board=self.board)
        for k, s in enumerate(steps, 1):
            out = out + f"\n  {k}. " + s
        if not self.refused:
            out = out + "\n" + Text("dealing.redeal", "Or put all the board's cards back in the machine and press "
                                     "Redeal.")
        return out


# ------------------------------------------------------------------------------------------ reports

@dataclass
class BoardStop:
    """A board that failed verification, waiting for the operator's decision."""
    board: int
    problems: list[Problem]
    message: str
    attempt: int
    choices: tuple[Decision, ...]


@dataclass
class BoardResult:
    board: int
    status: str                  # ok, fixed_by_hand, skipped, aborted, not_dealt
    attempts: int
    problems: list[Problem] = field(default_factory=list)


@dataclass
class DealReport:
    boards: list[BoardResult] = field(default_factory=list)
    cards: int = 0               # CARD_DEALT messages verified
    stray: int = 0               # dealing messages that belonged to no board being dealt

    @property
    def problems(self) -> list[Problem]:
        return [p for r in self.boards for p in r.problems]

    @property
    def ok(self) -> bool:
        return all(r.status == "ok" for r in self.boards)


Operator = Callable[[BoardStop], "Decision | str"]
Progress = Callable[[int, int, BoardResult], None]


# ------------------------------------------------------------------------------------------ the driver

class DealerDriver(DeviceDriver):
    KINDS = (DeviceKind.DEALER,)

    def __init__(self, url: str, emit: Callable[[Any], None] | None = None, *,
                 decks: DeckRegistry | None = None, deck_for: Callable[[int], str | None] | None = None,
                 **kwargs: Any) -> None:
        super().__init__(url, emit or (lambda _e: None), **kwargs)
        self.decks = decks
        self.deck_for = deck_for
        self._current: BoardVerifier | None = None
        self._on_problem: Callable[[Problem], None] | None = None
        self.jammed = False
        self.cards = 0
        self.stray = 0

    # ------------------------------------------------------------------ messages
    def _report(self, p: Problem | None) -> None:
        if p is None:
            return
        log.info("%s", p.message)
        self._emit(p.to_event(self.name))
        if self._on_problem is not None:
            self._on_problem(p)

    def _dispatch(self, msg: Message) -> None:
        v = self._current
        if isinstance(msg, ErrorMessage) and v is not None and not v.finished:
            self._error(v, msg)
        else:
            super()._dispatch(msg)

    def _error(self, v: BoardVerifier, msg: ErrorMessage) -> None:
        code = int(msg.code)
        if code == ErrorCode.BOARD_MISMATCH:
            # this ends the attempt: waiting for it keeps it from being taken for the next attempt's answer
            v.refused = True
            if v.wrong_board is None:               # BOARD_NUMBER_READ normally came first and said it all
                self._report(v.add(Problem(WRONG_BOARD, v.board, f"The machine holds another board than board "
                                            f"{v.board}. Put board {v.board} in, then press Continue.")))
        elif code == ErrorCode.DECK_INCOMPLETE:
            for p in v.finish():
                self._report(p)
        elif code == ErrorCode.UNKNOWN_CARD:
            self._report(v.unknown_rejected(msg.text))
        elif code == ErrorCode.DEALER_JAMMED:
            self.jammed = True                      # the JAM message carries the details
        else:
            self._report(v.machine_error(code, msg.text))

    def on_message(self, msg: Message) -> bool:
        v = self._current
        if not isinstance(msg, (CardDealt, BoardNumberRead, Jam, UnreadableCard, DealDone)):
            return False
        if v is None or v.finished or v.refused:
            self.stray += 1
            log.warning("%s: %s outside a board being dealt, ignored", self.name, type(msg).__name__)
            return True
        if isinstance(msg, CardDealt):
            self.cards += 1
            self.jammed = False
            self._report(v.card(msg.card, msg.pocket, msg.uid))
        elif isinstance(msg, BoardNumberRead):
            self._report(v.board_read(msg.board))
        elif isinstance(msg, Jam):
            self.jammed = True
            self._report(v.jam(msg.pocket, msg.cards_dealt))
        elif isinstance(msg, UnreadableCard):
            self.jammed = True
            self._report(v.unreadable(msg.cards_dealt))
        elif isinstance(msg, DealDone):
            if msg.board != v.board:
                self.stray += 1
                log.warning("%s: DEAL_DONE for board %s while dealing board %s", self.name, msg.board, v.board)
                return True
            for p in v.finish():
                self._report(p)
        return True

    # ------------------------------------------------------------------ dealing
    def wait_ready(self, timeout: float = 10.0) -> None:
        deadline = self.clock() + timeout
        while not self.connected:
            if self.clock() >= deadline:
                # keyed (table/texts.py): the console words it; the port's own error (``error``) stays as it is
                late = Text("dealing.no_connect", "the dealing machine at {machine} did not connect within {seconds} "
                            "s", machine=self.url, seconds=f"{timeout:g}")
                raise DealerError(late + Text("dealing.not_a_dealer", " (the device there is not a dealing machine: "
                                              "it was refused)") if self.session.health.refusals else
                                  late + Text("dealing.port_error", " ({error})", error=self.last_error)
                                  if self.last_error else late)
            self.pump(0.05)

    def deal_board(self, record: HandRecordBoard, *, timeout: float = 10.0, jam_timeout: float = 600.0,
                   on_problem: Callable[[Problem], None] | None = None) -> BoardVerifier:
        """Deal one board and verify it; returns its verifier (``problems``, ``failed``, ``refused``).
        ``timeout``: longest silence from the machine; ``jam_timeout`` while it is jammed."""
        v = BoardVerifier(record, self.decks, self.deck_for(record.board) if self.deck_for else None)
        self._current, self._on_problem, self.jammed = v, on_problem, False
        try:
            self.send(DealBoard.from_hands(record.board, record.hands()))
            last, seen = self.clock(), self.cards + len(v.problems)
            while not (v.finished or v.refused):
                self.pump(0.05)
                now = self.clock()
                if v.wrong_board is not None and now - last > 2.0:
                    v.refused = True                # a machine that never confirms the mismatch
                progress = self.cards + len(v.problems)
                if progress != seen:
                    last, seen = now, progress
                elif now - last > (jam_timeout if self.jammed else timeout):
                    raise DealerError(Text("dealing.silent", "board {board}: the machine has said nothing for "
                                           "{seconds} s ({count} cards dealt)", board=record.board,
                                           seconds=f"{now - last:.0f}", count=len(v.dealt)))
            return v
        finally:
            self._on_problem = None

    def deal_set(self, boards: Sequence[HandRecordBoard], *, operator: Operator | None = None,
                 on_problem: Callable[[Problem], None] | None = None, progress: Progress | None = None,
                 timeout: float = 10.0, jam_timeout: float = 600.0, max_attempts: int = 5,
                 connect_timeout: float = 10.0) -> DealReport:
        """Deal and verify ``boards`` in order. After a board fails, ``operator(stop)`` decides what happens
        (default: ``skip`` — the report keeps the instructions)."""
        report = DealReport()
        start_cards, start_stray = self.cards, self.stray
        self.wait_ready(connect_timeout)
        for k, record in enumerate(boards):
            result = BoardResult(record.board, "not_dealt", 0)
            report.boards.append(result)
            while True:
                v = self.deal_board(record, timeout=timeout, jam_timeout=jam_timeout, on_problem=on_problem)
                result.attempts += 1
                result.problems += v.problems
                if not v.failed:
                    result.status = "ok"
                    break
                choices = ((Decision.CONTINUE, Decision.SKIP, Decision.ABORT) if v.refused else
                           (Decision.CONTINUE, Decision.REDEAL, Decision.SKIP, Decision.ABORT))
                stop = BoardStop(record.board, [p for p in v.problems if p.blocking], v.instructions(),
                                 result.attempts, choices)
                answer = operator(stop) if operator is not None else Decision.SKIP
                if answer not in choices:
                    raise NotAChoice(f"{answer} is not a choice here ({', '.join(choices)})")
                decision = Decision(answer)
                if decision == Decision.ABORT:
                    result.status = "aborted"
                    break
                if decision == Decision.SKIP:
                    result.status = "skipped"
                    break
                if decision == Decision.CONTINUE and not v.refused:
                    result.status = "fixed_by_hand"
                    break
                if result.attempts >= max_attempts:      # redeal, or the right board now in the machine
                    result.status = "skipped"
                    break
            if progress is not None:
                progress(k + 1, len(boards), result)
            if result.status == "aborted":
                break
        self._current = None
        report.cards = self.cards - start_cards
        report.stray = self.stray - start_stray
        return report


def summary(report: DealReport) -> str:
    """A few lines for the director: how many boards verified, which need attention."""
    counts: dict[str, int] = {}
    for r in report.boards:
        counts[r.status] = counts.get(r.status, 0) + 1
    line = ", ".join(f"{n} {s.replace('_', ' ')}" for s, n in sorted(counts.items()))
    out = [f"{len(report.boards)} boards, {report.cards} cards read: {line}"]
    for r in report.boards:
        if r.status != "ok":
            kinds = sorted({p.kind for p in r.problems})
            out.append(f"  board {r.board}: {r.status.replace('_', ' ')} ({', '.join(kinds)})")
    return "\n".join(out)


__all__ = ["BoardVerifier", "BoardStop", "BoardResult", "DealReport", "DealerDriver", "DealerError", "Decision",
           "Problem", "summary", "WRONG_POCKET", "DUPLICATE_CARD", "MISSING_CARD", "WRONG_CARD", "UNKNOWN_CARD",
           "WRONG_BOARD", "JAM", "UNREADABLE_CARD", "MACHINE_ERROR"]
