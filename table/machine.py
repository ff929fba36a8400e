"""The board lifecycle as one ``transitions`` machine shared by every table.

The machine only *sequences*: the laws live in ``auction.py`` (Law 24 included) and the ``play`` package
(claims, 68-70, in ``play/claims.py``) as pure logic that returns irregularities as data. A ``Table`` joins
the shared machine with ``add_model`` and leaves with ``close()`` (``remove_model``); one definition is built
once for the process (a Machine per table costs ~150 KB). The machine is built with ``model_override=True``:
it binds onto a table only the triggers ``Table`` declares, so type checkers see them and a table in mid-play
weighs ~18 KB.

States a director recognises::

    idle -> board_ready -> auction -> opening_lead -> play -> board_complete
                               \\-> board_complete (passed out)      \\-> claim_pending -> board_complete
    any live phase <-> awaiting_ruling  (an irregularity waits for a choice; play goes on: flag, don't block)
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any, cast

from transitions import Machine
from transitions.core import Event, EventData, MachineError, State, Transition

from .auction import Auction, AuctionRulingError, card_exposed, card_led_early, defenders_penalty_cards
from .calls import bid_level, bid_strain
from .cards import SEATS, CardError, Deal, Seat
from .codes import IrregularityCode
from .editions import DEFAULT, Edition, edition
from .errors import BridgeError
from .events import (
    BoardStarted,
    CallMade,
    CardExposed,
    CardPlayed,
    ClaimMade,
    ClaimResponded,
    ContractRecorded,
    HandRead,
    ResultRecorded,
    RulingGiven,
    TableEvent,
)
from .irregularity import Irregularity, Option
from .play import Play, PlayRulingError
from .play.claims import (
    acquiesced,
    claim_out_of_play,
    claim_voided,
    disputed,
    everyone_plays_on,
    play_after_claim,
    play_on_refused,
    response_without_claim,
    rule_claim,
)
from .scoring import Contract, parse_contract, score_ns
from .texts import Text
from .verify import check_count, check_hands

log = logging.getLogger(__name__)

STATES = ["idle", "board_ready", "auction", "awaiting_ruling", "opening_lead", "play", "claim_pending",
          "board_complete"]
LIVE = ["board_ready", "auction", "opening_lead", "play", "claim_pending"]

TRANSITIONS: list[dict[str, Any]] = [
    {"trigger": "board_dealt", "source": "*", "dest": "board_ready"},
    {"trigger": "auction_started", "source": "board_ready", "dest": "auction"},
    {"trigger": "contract_recorded", "source": "board_ready", "dest": "opening_lead"},
    {"trigger": "result_recorded", "source": "board_ready", "dest": "board_complete"},
    {"trigger": "auction_closed", "source": ["auction", "awaiting_ruling"], "dest": "opening_lead"},
    {"trigger": "board_passed_out", "source": ["board_ready", "auction", "awaiting_ruling"], "dest": "board_complete"},
    {"trigger": "lead_faced", "source": ["opening_lead", "awaiting_ruling"], "dest": "play"},
    {"trigger": "claim_made", "source": ["opening_lead", "play", "awaiting_ruling"], "dest": "claim_pending"},
    {"trigger": "play_ended", "source": ["play", "claim_pending", "awaiting_ruling"], "dest": "board_complete"},
    {"trigger": "irregularity_flagged", "source": LIVE, "dest": "awaiting_ruling"},
    # leaving awaiting_ruling returns to the phase the data says the board is in
    {"trigger": "irregularity_settled", "source": "awaiting_ruling", "dest": "board_ready",
     "conditions": "_in_board_ready"},
    {"trigger": "irregularity_settled", "source": "awaiting_ruling", "dest": "auction", "conditions": "_in_auction"},
    {"trigger": "irregularity_settled", "source": "awaiting_ruling", "dest": "opening_lead",
     "conditions": "_in_opening_lead"},
    {"trigger": "irregularity_settled", "source": "awaiting_ruling", "dest": "claim_pending",
     "conditions": "_in_claim"},
    {"trigger": "irregularity_settled", "source": "awaiting_ruling", "dest": "play"},
]


class _LeanState(State):
    """This machine declares no enter/exit callbacks, so entering or leaving a state does nothing; the
    library's versions would still log twice each."""

    def enter(self, event_data: EventData) -> None:
        pass

    def exit(self, event_data: EventData) -> None:
        pass


class _LeanTransition(Transition):
    """Conditions, then the state change: no prepare/before/after callbacks exist here to run or log."""

    def execute(self, event_data: EventData) -> bool:
        return self.take(event_data.model, event_data.machine)

    def take(self, model: object, machine: Machine) -> bool:
        """``execute`` without the ``EventData`` the library would build for it (``_LeanEvent.trigger``)."""
        for cond in self.conditions:             # conditions name Table methods taking no argument
            check = getattr(model, cond.func) if isinstance(cond.func, str) else cond.func
            if check() != cond.target:
                return False
        if self.dest is not None:                # None: an internal transition, no state change
            # what Machine.set_state does for one model and a plain string state, without its look-ups
            setattr(model, machine.model_attribute, self.dest)
        return True


class _LeanEvent(Event):
    """A synchronous trigger with no machine-level callbacks: the library's partial, queue hand-off and
    finalize chain (and their logging, ~10 µs a trigger) are skipped, and so is the ``EventData`` that
    nothing here reads (the triggers take no arguments); invalid triggers still raise ``MachineError``."""

    def trigger(self, model: object, *args: Any, **kwargs: Any) -> bool:
        machine = self.machine
        state = getattr(model, machine.model_attribute)
        candidates = self.transitions.get(state)
        if candidates is None:
            raise MachineError(f"Can't trigger event {self.name} from state {state}!")
        for transition in cast("list[_LeanTransition]", candidates):     # (the machine's transition_cls)
            if transition.take(model, machine):
                return True
        return False


class _LeanMachine(Machine):
    """States, transitions and events are the lean subclasses above (the library's documented
    ``state_cls``/``transition_cls``/``event_cls`` extension points), valid because this machine is
    synchronous and declares no callbacks: checked when it is built."""

    state_cls = _LeanState
    transition_cls = _LeanTransition
    event_cls = _LeanEvent

    def _checked_assignment(self, model: Any, name: str, func: Any) -> None:
        """The library's rule (with ``model_override``, a name is bound only where the model declares it),
        without its warning for each name it skips: ~20 log records a table, which cost more than the rest of
        building one even when a filter dropped them."""
        if (getattr(model, name, None) is None) ^ self.model_override:
            setattr(model, name, func)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        hooks = (self.prepare_event, self.before_state_change, self.after_state_change, self.finalize_event,
                 self.on_exception, self.on_final)
        callbacks = [t for ts in self.events.values() for tl in ts.transitions.values() for t in tl
                     if t.prepare or t.before or t.after]
        states_cb = [s for s in self.states.values() if s.on_enter or s.on_exit]
        if self.has_queue or any(hooks) or callbacks or states_cb:
            raise TypeError("_LeanMachine runs no callbacks and no queue: declare none")


# model_override: add_model binds onto a table only the names Table declares (its triggers), not a
# trigger, may_<trigger> and is_<state> partial each (~9 KB per table)
MACHINE = _LeanMachine(model=None, states=STATES, transitions=TRANSITIONS, initial="idle", auto_transitions=False,
                       ignore_invalid_triggers=False, model_override=True, name="table")




@lru_cache(maxsize=1024)
def _contract_of(bid: str, risk: str, declarer: Seat) -> Contract:
    """A contract is a value, and a closed auction has at most 420 (checked once each, then shared)."""
    return Contract(bid_level(bid), bid_strain(bid), risk, str(declarer))


class TableError(BridgeError):
    """An event that cannot be applied at all (not an irregularity: those are data)."""


def _bound_by_the_machine(self: Table) -> bool:
    raise RuntimeError("a machine trigger: MACHINE.add_model binds it to each table")


class Table:
    """One table's board in progress, driven only by table events."""

    state: str

    # The machine's triggers: placeholders that MACHINE.add_model replaces on each table (model_override).
    board_dealt = auction_started = auction_closed = board_passed_out = contract_recorded = _bound_by_the_machine
    lead_faced = claim_made = play_ended = irregularity_flagged = irregularity_settled = _bound_by_the_machine
    result_recorded = _bound_by_the_machine
    # class-level defaults, stored on a table only when they differ: a table's attributes (the machine's
    # triggers included) fill CPython's shared-key dict to its limit of 30; one key more and each table's
    # dict becomes a private one, ~1.3 KB more per live table
    laws: Edition = DEFAULT                      # the table's law book; a board event may name another
    play_on: frozenset[Seat] = frozenset()       # seats agreeing to play on after a claim (2017 68D2(b))
    keyed_lead: str | None = None                # the opening lead of a result keyed without the play

    def __init__(self, name: str = "", on_irregularity: Callable[[Irregularity], None] | None = None,
                 laws: Edition | str | None = None) -> None:
        self.name = name
        if laws is not None and edition(laws) is not DEFAULT:
            self.laws = edition(laws)
        self.on_irregularity = on_irregularity
        self.board: BoardStarted | None = None
        self.deal: Deal | None = None
        self.auction: Auction | None = None
        self.play: Play | None = None
        self.hands_read: dict[Seat, tuple[str, ...]] = {}
        self.table_irregularities: list[Irregularity] = []
        self.claim: ClaimMade | None = None
        self.claim_responses: dict[Seat, bool] = {}
        self.tricks: int | None = None
        self.claimed = False
        self.lead_made = False
        self.recorded_contract: Contract | None = None
        self.recorded_passed_out = False
        self.auction_exposures: list[tuple[Seat, tuple[str, ...]]] = []
        MACHINE.add_model(self)

    def close(self) -> None:
        MACHINE.remove_model(self)

    # ------------------------------------------------------------------ conditions used by the machine
    def _in_board_ready(self) -> bool:
        if self.recorded_contract is not None or self.recorded_passed_out:
            return False                           # a contract entered without its auction: past board_ready
        return self.auction is None or not self.auction.calls

    def _in_auction(self) -> bool:
        return self.auction is not None and not self.auction.closed

    def _in_opening_lead(self) -> bool:
        return self._auction_over() and not self.lead_made

    def _auction_over(self) -> bool:
        return self.recorded_contract is not None or self.auction is not None and self.auction.closed

    def _in_claim(self) -> bool:
        return self.claim is not None and self.tricks is None

    # ------------------------------------------------------------------ results
    @property
    def edition(self) -> Edition:
        """The current board's law book: the board event's, else the table's."""
        b = self.board
        return edition(b.laws) if b is not None and b.laws else self.laws

    @property
    def irregularities(self) -> list[Irregularity]:
        out = list(self.table_irregularities)
        if self.auction:
            out += self.auction.irregularities
        if self.play:
            out += self.play.irregularities
        return out

    @property
    def contract(self) -> Contract | None:
        if self.recorded_contract is not None:
            return self.recorded_contract
        c = self.auction.contract() if self.auction else None
        if c is None:
            return None
        bid, risk, declarer = c
        if self.play is not None:
            declarer = self.play.declarer          # Law 54A may have swapped declarer and dummy
        return _contract_of(bid, risk, declarer)

    @property
    def passed_out(self) -> bool:
        return self.recorded_passed_out or self.auction is not None and self.auction.passed_out

    @property
    def status(self) -> str:
        if self.passed_out:
            return "passed_out"
        if self.tricks is not None:
            return "claimed" if self.claimed else "complete"
        return "incomplete"

    @property
    def score_ns(self) -> int | None:
        if self.status == "passed_out":
            return 0
        if self.auction is not None and self.auction.no_automatic_score:
            return None                            # the director rules (an inadmissible call found after the lead)
        c = self.contract
        if c is None or self.tricks is None or self.board is None:
            return None
        return score_ns(c, self.board.vulnerable, self.tricks)

    # ------------------------------------------------------------------ events
    def apply(self, event: TableEvent) -> list[Irregularity]:
        """Apply one table event; returns the irregularities it flagged (often none)."""
        handler = _HANDLERS.get(event.__class__)
        if handler is None:
            raise TableError(Text("refusal.unknown_event", "unknown event {value}", value=repr(event)))
        if self.board is None and handler is not _START:
            raise TableError(Text("refusal.before_board", "{kind} event before any board event", kind=event.type))
        flagged = handler(self, event)
        # only a flag, a ruling or a claim response can open or settle a choice: skip the check otherwise
        if flagged or handler in _SETTLING or self.state == "awaiting_ruling":
            self._sync_ruling_state()
        if flagged and self.on_irregularity:
            for irr in flagged:
                self.on_irregularity(irr)
        return flagged

    def apply_all(self, events: Sequence[TableEvent]) -> None:
        """Apply a whole record's events in order, exactly as ``apply`` one by one would (a replay's path).
        Runs of legal cards in the play go through ``Play.run_cards`` in one loop. An exception names the
        event that raised it in a note."""
        apply = self.apply
        n = len(events)
        i = 0
        try:
            while i < n:
                e = events[i]
                play = self.play
                if e.__class__ is CardPlayed and play is not None and self.state == "play":
                    j = play.run_cards(events, i, CardPlayed)
                    if j > i:
                        if play.complete and play.awaiting is None:
                            self._finish()
                        i = j
                        continue
                apply(e)
                i += 1
        except Exception as err:
            err.add_note(f"event {i}: {events[i]!r}")
            raise

    def _open_choice(self) -> bool:
        a, p = self.auction, self.play
        if a is not None and (a.pending is not None and a.pending.irr.open or a.comparable and a.comparable_open()):
            return True
        if p is not None and p.awaiting is not None:
            return True
        return self.claim is not None and self.tricks is None and any(v is False for v in self.claim_responses.values())

    def _sync_ruling_state(self) -> None:
        if self.state in ("idle", "board_complete"):
            return
        waiting = self._open_choice()
        if waiting and self.state != "awaiting_ruling":
            self.irregularity_flagged()
        elif not waiting and self.state == "awaiting_ruling":
            self.irregularity_settled()

    def _flag(self, code: IrregularityCode, law: str, seat: str | None, phase: str, detail: str,
              options: list[Option] | None = None, disposition: str | None = None) -> Irregularity:
        irr = Irregularity(code, law, seat, phase, {}, options or [], detail)
        if disposition:
            irr.dispose(disposition)
        return self._record(irr)

    def _record(self, irr: Irregularity) -> Irregularity:
        """Keep a flag raised outside the auction and the play (the board, Law 24, claims) with the table's."""
        self.table_irregularities.append(irr)
        return irr

    def _start(self, event: BoardStarted) -> list[Irregularity]:
        self.board = event
        if self.play_on:
            del self.play_on
        if self.keyed_lead is not None:
            del self.keyed_lead
        self.deal = None
        self.auction = None
        self.play = None
        self.hands_read = {}
        self.table_irregularities = []
        self.claim = None
        self.claim_responses = {}
        self.tricks = None
        self.claimed = False
        self.lead_made = False
        self.recorded_contract = None
        self.recorded_passed_out = False
        self.auction_exposures = []
        flagged: list[Irregularity] = []
        if event.deal:
            try:
                self.deal = Deal.from_pbn(event.deal)
            except CardError as err:
                flagged.append(self._flag(IrregularityCode.DEFECTIVE_PACK, "1", None, "board", f"deal unusable: {err}",
                                          disposition="recorded"))
        self.board_dealt()
        return flagged

    def _hand(self, event: HandRead) -> list[Irregularity]:
        """Laws 7, 13: the hand taken from the pocket must be 13 cards and the hand record's (table.verify)."""
        self.hands_read[event.seat] = event.cards
        number = self.board.board if self.board else None
        calls_made = self.auction is not None and bool(self.auction.calls)
        miscount = check_count(event, number, self.deal, calls_made=calls_made)
        if miscount is not None:
            flagged = [miscount]
        elif self.deal is not None:
            flagged = check_hands({event.seat: event.cards}, self.deal, number)
            if len(self.hands_read) == 4:       # a turned board shows only once every hand is read
                whole = check_hands(self.hands_read, self.deal, number)
                flagged += [i for i in whole if i.seat is None]
        else:
            flagged = []
            if len(self.hands_read) == 4:
                try:
                    self.deal = Deal({s: self.hands_read[s] for s in SEATS})
                except CardError as err:
                    flagged.append(self._flag(IrregularityCode.DEFECTIVE_PACK, "1", None, "board", str(err)))
                    return flagged
        self.table_irregularities += [i for i in flagged if i not in self.table_irregularities]
        return flagged

    def _call(self, event: CallMade) -> list[Irregularity]:
        auction = self.auction
        if self.state != "auction":                      # in the auction (most calls) there is one already
            if auction is None:
                assert self.board is not None
                auction = self.auction = Auction(self.board.dealer, self.edition)
            if self.state == "board_ready":
                self.auction_started()
            if self.play is not None and self.play.tricks:
                irr = self._flag(IrregularityCode.CALL_AFTER_FINAL_PASS, "39", str(event.seat), "play",
                                 f"{event.call} during the play", disposition="cancelled")
                return [irr]
        assert auction is not None
        was_closed = auction.closed
        made = len(auction.calls)                    # the index of this call's entry
        flagged = auction.call(event.seat, event.call, event.alert)
        if event.explanation:
            auction.calls[made].explanation = event.explanation
        if not was_closed and auction.closed:
            if auction.passed_out:
                self.board_passed_out()
            else:
                self.auction_closed()
        return flagged

    def _contract(self, event: ContractRecorded) -> list[Irregularity]:
        """A contract entered without its auction (traveller entry): the board goes straight to the play."""
        if self.auction is not None and self.auction.calls or self.recorded_contract is not None:
            raise TableError(Text("refusal.contract_known", "the contract is already known from this board's auction"))
        c = parse_contract(event.contract, declarer=str(event.declarer) if event.declarer else None)
        if c is None:
            self.recorded_passed_out = True
            self.board_passed_out()
        else:
            if c.declarer is None:
                raise TableError(Text("refusal.contract_declarer", "a recorded contract needs its declarer"))
            self.recorded_contract = c
            self.contract_recorded()
        return []

    def _keyed_complete(self) -> bool:
        """The board was completed by a keyed result (no call or card of it recorded): a new one corrects it."""
        return self.state == "board_complete" and self.play is None \
            and (self.recorded_contract is not None and self.tricks is not None or self.recorded_passed_out) \
            and (self.auction is None or not self.auction.calls)

    def _result(self, event: ResultRecorded) -> list[Irregularity]:
        """A result keyed at a scoring-only table: the board is complete with that contract and those tricks,
        scored like any other; a result keyed again replaces it (a correction: who may correct, and until when, is
        the service's rule). Refused (``TableError``) once a call or card of the board is known, or when the
        lead cannot be the opening lead (it is the declarer's left-hand opponent's, from his hand if dealt)."""
        correcting = self._keyed_complete()
        if not correcting and (self.state != "board_ready" or self.auction is not None and self.auction.calls
                               or self.recorded_contract is not None or self.play is not None):
            raise TableError(Text("refusal.result_after_play", "a result is keyed only for a board with no call or "
                                  "card recorded"))
        c = parse_contract(event.contract, declarer=str(event.declarer) if event.declarer else None)
        if c is not None:
            if event.declarer is None or event.tricks is None:
                raise TableError(Text("refusal.result_needs_declarer", "a keyed result names its declarer and the "
                                      "declarer side's tricks"))
            if not 0 <= event.tricks <= 13:
                raise TableError(Text("refusal.tricks_range", "tricks is the declarer side's total, 0..13"))
            if event.lead is not None and self.deal is not None:
                leader = event.declarer.lho
                owner = next((s for s in SEATS if event.lead in self.deal.hands.get(s, ())), None)
                if owner is not None and owner != leader:
                    raise TableError(Text("refusal.lead_not_leaders", "{card} is not {seat}'s card in the hand record: "
                                          "the opening lead is {seat}'s (Law 54)", card=event.lead, seat=leader))
        if correcting:                           # back to the board before the result, then key the new one
            self.recorded_contract, self.recorded_passed_out, self.tricks = None, False, None
            if self.keyed_lead is not None:
                del self.keyed_lead
            self.board_dealt()
        if c is None:
            self.recorded_passed_out = True
            self.board_passed_out()
            return []
        assert event.declarer is not None and event.tricks is not None
        if event.lead is not None:
            self.keyed_lead = event.lead
        self.recorded_contract = c
        self.tricks = event.tricks
        self.result_recorded()
        return []

    def _ensure_play(self) -> Play | None:
        if self.play is None:
            c = self.contract
            if c is None or c.declarer is None:
                return None
            penalties = self.auction.lead_penalties if self.auction is not None else ()
            declarer = Seat(c.declarer)
            self.play = Play(declarer, c.strain, self.deal, penalties, self.edition)
            for seat, cards in defenders_penalty_cards(self.auction_exposures, declarer):
                self.play.expose(seat, cards, deliberate=False)
        return self.play

    def _card(self, event: CardPlayed) -> list[Irregularity]:
        play = self.play
        if play is not None and self.tricks is None and self.state != "claim_pending":
            flagged = play.card(event.seat, event.card)     # the common case: a card in the play
            if play.complete and play.awaiting is None:
                self._finish()
            return flagged
        return self._first_or_stray_card(event)

    def _first_or_stray_card(self, event: CardPlayed) -> list[Irregularity]:
        if self.recorded_contract is None:               # an auction must have closed before any card
            if self.auction is None or not self.auction.calls:
                if any(i.code == IrregularityCode.PLAY_WITHOUT_AUCTION for i in self.table_irregularities):
                    return []
                return [self._flag(IrregularityCode.PLAY_WITHOUT_AUCTION, "17", str(event.seat), "auction",
                                   Text("board.play_without_auction", "{card} played but no call has been made (the "
                                        "auction precedes the play)", card=event.card),
                                   [Option("rule", Text("board.establish_auction", "director establishes the auction"),
                                           "director")],
                                   disposition="recorded")]
            if not self.auction.closed:
                irr = self._record(card_led_early(self.auction, event.seat, event.card))
                self.auction_exposures.append((event.seat, (event.card,)))
                return [irr]
        if self.passed_out:
            return [self._flag(IrregularityCode.PLAY_AFTER_PASSED_OUT, "22A", str(event.seat), "play",
                               f"{event.card} played on a passed-out board", disposition="ignored")]
        if self.state == "claim_pending" or self.tricks is not None:
            if self.play is not None:
                return self.play.card_after_claim(event.seat, event.card)
            return [self._record(play_after_claim(event.seat, event.card, None, {}))]     # after a keyed result
        play = self.play or self._ensure_play()
        assert play is not None
        first = not self.lead_made
        self.lead_made = True
        flagged = play.card(event.seat, event.card)
        if first and self.auction is not None and self.auction.irregularities:
            flagged += self.auction.after_opening_lead()       # an unnoticed inadmissible X/XX (36C)
        if first and self.state == "opening_lead":
            self.lead_faced()
        if play.complete and play.awaiting is None:
            self._finish()
        return flagged

    def _exposed(self, event: CardExposed) -> list[Irregularity]:
        if self.play is not None and self.play.tricks:
            return self.play.expose(event.seat, event.cards, event.deliberate)
        self.auction_exposures.append((event.seat, event.cards))
        return [self._record(card_exposed(self.auction, event.seat, event.cards))]

    def _claim(self, event: ClaimMade) -> list[Irregularity]:
        if self.tricks is not None:
            log.debug("claim after the play ended ignored: %s", event)   # a record's redundant final claim
            return []
        play = self._ensure_play() if self._auction_over() else None
        if play is None:
            return [self._record(claim_out_of_play(event.seat))]
        self.claim = event
        self.claim_responses = {}
        play.claim_made(event.seat, acquiesced=False)   # the opponents' agreement establishes the rest (63A3)
        if self.state == "opening_lead":
            self.lead_made = True
            self.lead_faced()
        self.claim_made()
        return []

    def _claim_response(self, event: ClaimResponded) -> list[Irregularity]:
        if self.tricks is not None and (self.claim is None or self.claimed):
            return []
        if self.claim is None:
            return [self._record(response_without_claim(event.seat))]
        self.claim_responses[event.seat] = event.accept
        if not event.accept:
            return [self._record(disputed(event.seat, self.claim.tricks))]
        if acquiesced(self.claim.seat, self.claim_responses):
            self._finish(claimed=True)
        return []

    def _finish(self, claimed: bool = False, tricks: int | None = None) -> None:
        assert self.play is not None
        total = tricks            # a claim's tricks are always the declarer side's total
        if total is None and claimed and self.claim is not None:
            total = self.claim.tricks
        self.tricks = self.play.finish(total)
        self.claimed = claimed
        if self.state == "awaiting_ruling" and not self._open_choice():
            self.irregularity_settled()
        if self.state != "board_complete":
            self.play_ended()

    def _play_on(self, event: RulingGiven) -> list[Irregularity]:
        """A player asks or agrees to play on after a claim. 2017 68D2(b): once all four agree the claim is void
        and play continues; 1997 68D: play has ceased, so the request is recorded for the director."""
        if not self.edition.play_on_after_claim:
            if any(i.code == IrregularityCode.PLAY_ON_AFTER_CLAIM for i in self.table_irregularities):
                return []
            return [self._record(play_on_refused(event.seat))]
        if event.seat is None:
            raise TableError(Text("refusal.play_on_seat", "each player's agreement to play on names his seat"))
        self.play_on = self.play_on | {event.seat}
        if not everyone_plays_on(self.play_on):
            return []
        assert self.play is not None
        irr = self._record(claim_voided(self.claim.seat if self.claim else None, self.table_irregularities))
        self.claim = None
        self.claim_responses = {}
        del self.play_on
        self.play.resume_after_claim()
        # back to the play through the existing triggers (the data now says: play, no claim)
        if self.state == "claim_pending":
            self.irregularity_flagged()
        if self.state == "awaiting_ruling":
            self.irregularity_settled()
        return [irr]

    def _ruling(self, event: RulingGiven) -> list[Irregularity]:
        claim_open = self.claim is not None and self.tricks is None
        if event.code == IrregularityCode.CLAIM and event.option == "play_on" and claim_open:
            return self._play_on(event)
        if event.code == IrregularityCode.DEFECTIVE_TRICK and event.option in ("omitted_holding_suit", "omitted_void") \
                and self.play is not None:
            if event.seat is None or event.tricks is None:
                raise TableError(Text("refusal.omitted_play", "an omitted play names the seat and the trick "
                                      "(tricks = the trick's number)"))
            try:
                flagged = self.play.omitted_play(event.seat, event.tricks, event.option == "omitted_holding_suit")
            except PlayRulingError as err:
                raise TableError(err.args[0]) from err           # its Text, if it has one
            if self.tricks is not None and not self.claimed:
                self.tricks = self.play.finish()
            return flagged
        if event.code == IrregularityCode.CLAIM_DISPUTED and claim_open and self.play_on:
            del self.play_on                       # the director rules instead of play on
        if event.code in (IrregularityCode.CLAIM_DISPUTED, IrregularityCode.CLAIM) and claim_open:
            if event.tricks is None:
                raise TableError(Text("refusal.claim_tricks", "a claim ruling must give the declarer side's tricks"))
            rule_claim(event.option, self.table_irregularities)
            self.claim_responses = {s: True for s in SEATS}
            self._finish(claimed=True, tricks=event.tricks)
            return []
        a = self.auction
        try:
            if a is not None and event.code == IrregularityCode.COMPARABLE_CALL_RULING:
                before = len(a.lead_penalties)
                flagged = a.ruling(event.code, event.option)
                if self.play is not None and len(a.lead_penalties) > before:
                    self.play.add_lead_penalties(a.lead_penalties[before:])
                return flagged
            if a is not None and (a.pending is not None and a.pending.kind == event.code
                                  or event.code == IrregularityCode.INSUFFICIENT_BID
                                  and event.option == "conventional"):
                return a.ruling(event.code, event.option)
            # established revokes still take rulings (62D, 64B4-5)
            revoke = event.code in (IrregularityCode.REVOKE, IrregularityCode.REVOKE_TRICK12)
            if self.play is not None and (revoke or any(i.code == event.code and i.open
                                                        for i in self.play.irregularities)):
                flagged = self.play.ruling(event.code, event.option, event.seat)
                if self.play.complete and self.play.awaiting is None:
                    if self.tricks is None:
                        self._finish()
                    elif not self.claimed:
                        self.tricks = self.play.finish()           # a 62D correction or exemption re-scores
                return flagged
        except (AuctionRulingError, PlayRulingError) as err:
            raise TableError(err.args[0]) from err               # its Text, if it has one
        # an irregularity with no mechanical rectification: the director's ruling is recorded on it
        for irr in reversed(self.irregularities):
            if irr.code == event.code and irr.open:
                irr.dispose(f"ruled:{event.option}", irr.law)
                return []
        raise TableError(Text("refusal.nothing_to_rule", "no open {code} to rule on", code=event.code))


_HANDLERS: dict[type, Callable[[Table, Any], list[Irregularity]]] = {
    BoardStarted: Table._start, CallMade: Table._call, CardPlayed: Table._card, ClaimMade: Table._claim,
    ClaimResponded: Table._claim_response, ContractRecorded: Table._contract, HandRead: Table._hand,
    ResultRecorded: Table._result,
    CardExposed: Table._exposed, RulingGiven: Table._ruling,
}
_START = Table._start
_SETTLING = frozenset({Table._ruling, Table._claim_response})     # handlers that may settle a choice

