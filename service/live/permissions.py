"""Who may post which event: the director anything; a seat only its own actions; spectators nothing. Dummy acts
only as Laws 42 and 43 let him: declarer plays dummy's cards, dummy neither plays nor claims, and during the play
calls the director only once another player has drawn attention to an irregularity (Law 43A1a)."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from service.errors import Conflict, Forbidden, Unauthenticated
from service.live.runtime import TableRuntime
from service.live.visibility import Viewer, declarer_of, dummy_of, entitled
from table.cards import Seat
from table.events import (
    BoardStarted,
    CallMade,
    CardPlayed,
    ClaimMade,
    ClaimResponded,
    ResultRecorded,
    RulingGiven,
    TableEvent,
)
from table.texts import Text

# Declarer's partner is dummy once the opening lead is faced (before it he may still call, e.g. in the 41 period).
PLAY_PERIOD = ("play", "claim_pending", "awaiting_ruling")


def authorize(rt: TableRuntime, viewer: Viewer, event: TableEvent, scoring: bool = False) -> TableEvent:
    """Return the event to apply (a seat's ruling is stamped with its seat) or raise ``Unauthenticated`` or
    ``Forbidden``. At a scoring-only table (``scoring``) the terminal (any seat) also starts a board and keys its
    result: the cards are real and no reader records them."""
    if viewer.role == "director":
        return event
    if viewer.role != "seat":
        raise Unauthenticated(Text("refusal.post_token", "posting events needs a director or seat token"))
    if viewer.table != rt.id:
        raise Forbidden(Text("refusal.other_table", "this seat token belongs to table {table}", table=viewer.table))
    me = viewer.seat or ""                       # a seat token always names its seat
    if isinstance(event, RulingGiven):
        if not entitled(rt, me, event.code, event.option):
            why = "" if rt.regulation.player_rulings else \
                Text("refusal.choices_to_director", " (the regulation leaves choices to the director)")
            raise Forbidden(Text("refusal.not_your_choice", "seat {seat} may not choose '{option}' for {code}: the "
                                 "choice is the director's or another player's", seat=me, option=event.option,
                                 code=event.code) + why)
        event.seat = Seat(me)
        return event
    dummy = dummy_of(rt.table)
    if me == dummy and isinstance(event, (CardPlayed, ClaimMade)):
        raise Forbidden(Text("refusal.dummy_plays", "seat {seat} is dummy: declarer plays dummy's cards and dummy "
                             "does not play (Law 45)", seat=me) if isinstance(event, CardPlayed) else
                        Text("refusal.dummy_claims", "seat {seat} is dummy: declarer plays dummy's cards and dummy "
                             "does not claim (Law 68)", seat=me))
    if isinstance(event, (CallMade, ClaimMade, ClaimResponded)):
        if str(event.seat) != me:
            raise Forbidden(Text("refusal.act_for_itself", "seat {seat} may only act for itself, not {seat2}",
                                 seat=me, seat2=event.seat))
        return event
    if isinstance(event, CardPlayed):
        d = declarer_of(rt.table)
        if str(event.seat) == me or (d == me and str(event.seat) == str(Seat(me).partner)):
            return event
        raise Forbidden(Text("refusal.own_and_dummy_cards", "seat {seat} may play only its own cards and dummy's",
                             seat=me) if d == me else
                        Text("refusal.own_cards", "seat {seat} may play only its own cards", seat=me))
    if scoring and isinstance(event, (BoardStarted, ResultRecorded)):
        if isinstance(event, BoardStarted) and event.deal is not None:
            raise Forbidden(Text("refusal.terminal_no_cards", "a terminal names the board, not its cards"))
        if isinstance(event, ResultRecorded) and rt.table.state == "board_complete":
            may_correct(rt, me)
        deal = rt.table.deal
        if isinstance(event, ResultRecorded) and event.lead is not None and event.declarer is not None \
                and deal is not None and event.lead not in deal.hands.get(event.declarer.lho, ()):
            # A refusal would tell the seat where the card is before the hands are shown (39 tries give the
            # deal): a lead the hand record contradicts is left out of the result instead, never refused.
            event.lead = None
        return event
    raise Forbidden(Text("refusal.director_or_device", "a {kind} event is entered by the director or a device",
                         kind=event.type))


def may_correct(rt: TableRuntime, seat: str) -> None:
    """A keyed result is corrected by the seat that keyed it until the opponents accept it; then it stands (the
    director can still change it: a Law 12 adjustment). The opponents dispute it instead."""
    rec = rt.current
    n = rec.number if rec is not None else "?"
    if rec is None or rec.keyed_by is None:
        raise Conflict(Text("refusal.nothing_to_correct", "board {board} is complete at table {table} and no result "
                            "was keyed for it: nothing to correct", board=n, table=rt.id))
    if (rec.confirmation or {}).get("accept"):
        side = rec.confirmation.get("side") if rec.confirmation else None
        raise Conflict(Text("refusal.confirmed_by", "the result of board {board} was confirmed by {side}: it can no "
                            "longer be corrected at the table; call the director, who can still change it",
                            board=n, side=side) if side else
                       Text("refusal.confirmed", "the result of board {board} was confirmed by the opponents: it can "
                            "no longer be corrected at the table; call the director, who can still change it",
                            board=n), code="CONFIRMED")
    if rec.keyed_by != f"seat:{rt.id}:{seat}":
        keyer = rec.keyed_by.rsplit(":", 1)[-1]
        raise Forbidden(Text("refusal.keyed_by", "the result of board {board} was keyed by {seat}: only {seat} "
                             "corrects it before the opponents confirm it; the opponents accept or dispute it",
                             board=n, seat=keyer))


def may_call_director(rt: TableRuntime, seat: str, attention_drawn: bool) -> None:
    """Law 43A1a: during the play dummy calls the director only once another player has drawn attention to an
    irregularity (``attention_drawn``: an open irregularity, or another seat's call on this board)."""
    t = rt.table
    if seat == dummy_of(t) and t.state in PLAY_PERIOD and not attention_drawn \
            and not any(i.open for i in t.irregularities):
        raise Forbidden(Text("refusal.dummy_calls", "dummy may not call the director during the play unless another "
                             "player has drawn attention to an irregularity (Law 43A1a); after the play he may"))


def may_seat_call_director(rt: TableRuntime, seat: str, open_calls: Iterable[dict[str, Any]]) -> None:
    """:func:`may_call_director` for a seat's own call (its page's button, its bidding box's Director key):
    attention counts as drawn when another seat's call on this board is still open (``open_calls``)."""
    board = rt.current.number if rt.current is not None else None
    others = any(c["table"] == rt.id and c["board"] == board and c["seat"] != seat for c in open_calls)
    may_call_director(rt, seat, others)
