"""Checks at the table, from the hands the seat readers see (Laws 6F, 7, 13, 15, 87).

Each check is a plain function that returns an :class:`~table.irregularity.Irregularity` (or ``None``):
data for the director, with the law and the rectifications it offers. :class:`BoardVerifier` runs them
from table events for one board at one table:

* ``BoardStarted`` — the board must be one the movement gives this table in this round (Law 15:
  ``WRONG_BOARD``);
* ``HandRead`` at pickup (before the first call) — each hand must be 13 cards (Law 13:
  ``INCORRECT_HAND_COUNT``); once all four are read (or when a call comes first), the hands are compared
  with the hand record: a board turned on the table (every hand is another seat's: ``HAND_FROM_WRONG_POCKET``
  with the rotation), a hand taken from another pocket (Law 7B1), cards displaced between hands —
  ``DUPLICATION_MISMATCH`` (Law 6F) when no table has played the board yet, ``FOULED_BOARD`` (Law 87)
  when other tables played it in another form, ``HAND_RECORD_MISMATCH`` (Law 13A1) when this table
  holds what the others played but the record says otherwise;
* before any board started, the hands picked up name their board by themselves (:func:`identify`) and are
  checked against its hand record all at once (:func:`check_pickup`: Law 13 counts, Law 87 a hand of another
  board or displaced cards, 7B1 a hand of another seat) — the service's reader tables start a board that way;
* ``HandRead`` when the hands go back into the pockets after play (``returned``) — every card must go
  back to its own pocket (Law 7C: ``CARD_RETURNED_TO_WRONG_POCKET``).

Pickup irregularities are raised before the auction may go on: ``ready_for_auction`` stays false while
one is open (not yet disposed of by the director). Nothing here changes the board: the director decides.

``Table`` (``table/machine.py``) flags count and record mismatches on its own from the board's deal;
this module adds what needs the set and the movement (rotation, wrong board, other tables' forms, the
return to the pockets) and says which cards are where.
"""
from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping

from .cards import SEATS, Deal, Seat
from .codes import IrregularityCode
from .events import BoardStarted, CallMade, CardPlayed, ContractRecorded, HandRead, TableEvent
from .handrecords.base import HandRecordBoard
from .irregularity import Irregularity, Option
from .texts import Text, card_words

SEAT_NAME = {Seat.N: "North", Seat.E: "East", Seat.S: "South", Seat.W: "West"}
_TURN = {1: Text("board.turned_1", "the board is turned a quarter turn clockwise (each player holds his right-hand "
                 "opponent's hand)"),
         2: Text("board.turned_2", "the board is turned half a turn (each player holds his partner's hand)"),
         3: Text("board.turned_3", "the board is turned a quarter turn anticlockwise (each player holds his "
                 "left-hand opponent's hand)")}


def card_name(card: str) -> str:
    """``"HT"`` -> ``"10 of hearts"``, ``"SA"`` -> ``"ace of spades"`` (as a Text's ``card_name`` parameter)."""
    return card_words(card)


def seat_name(seat: str) -> str:
    return SEAT_NAME[Seat(seat)]


def _rotated(seat: Seat, k: int) -> Seat:
    return SEATS[(SEATS.index(seat) + k) % 4]


def _director(code: str, text: str) -> Option:
    return Option(code, text, "director")


def _irr(code: IrregularityCode, law: str, seat: str | None, board: int | None, detail: str, options: list[Option],
         **where: object) -> Irregularity:
    position: dict[str, object] = {"board": board}
    position.update({k: v for k, v in where.items() if v is not None})
    return Irregularity(code, law, seat, "board", position, options, detail)


# ------------------------------------------------------------------------------------------ the board

def check_board(board: int | None, expected: Collection[int] | None, *, table: object | None = None,
                round: int | None = None, played_here: bool = False,
                auction_begun: bool = False) -> Irregularity | None:
    """Law 15: a board the movement does not give this table in this round. ``played_here``: a player at
    the table has played it before (15B); ``auction_begun``: found during the auction (15C)."""
    if expected is None or board in expected:
        return None
    want = ", ".join(str(b) for b in sorted(expected)) or "none"
    options = [_director("play_and_score", Text("board.15a_play", "play it; the score stands (15A); the director "
                                                "may have the correct board played later")),
               _director("correct_board", Text("board.15c_correct", "put this board aside and play the correct "
                                               "board: the auction is cancelled and repeated on it; any call that "
                                               "differs cancels the board (15C)") if auction_begun else
                         Text("board.correct_board", "put this board aside and play the correct board"))]
    if played_here:
        options = [_director("cancel", Text("board.15b_cancel", "a player here has played this board: cancel the "
                                            "second score; artificial adjusted score for the side deprived of a "
                                            "result (15B)")),
                   options[1]]
    detail = (Text("board.wrong_board_at", "board {board} is on the table at table {table}, but the movement gives "
                   "board(s) {boards}", board=board, table=table, boards=want) if table is not None else
              Text("board.wrong_board", "board {board} is on the table, but the movement gives board(s) {boards}",
                   board=board, boards=want))
    if round is not None:
        detail += Text("board.in_round", " in round {round}", round=round)
    return _irr(IrregularityCode.WRONG_BOARD, "15", None, board, detail,
                options, table=table, round=round, expected=sorted(expected))


# ------------------------------------------------------------------------------------------ hands at pickup

def check_count(read: HandRead, board: int | None, record: Deal | None = None,
                calls_made: bool = False) -> Irregularity | None:
    """Law 13 (and 7B1: each player counts his 13 cards): a hand of other than 13 distinct cards. With the
    hand record, the detail names the missing and extra cards."""
    cards = set(read.cards)
    if len(read.cards) == 13 and len(cards) == 13:
        return None
    detail = f"{seat_name(read.seat)} holds {len(read.cards)} card(s)"
    if len(cards) != len(read.cards):
        twice = sorted({c for c in read.cards if read.cards.count(c) > 1})
        detail += f" ({', '.join(twice)} read twice)"
    if record is not None:
        own = record.hands[read.seat]
        missing, extra = sorted(own - cards), sorted(cards - own)
        if missing:
            detail += f"; missing {', '.join(missing)}"
        if extra:
            detail += "; extra " + ", ".join(f"{c} ({SEAT_NAME[record.owner[c]]}'s)" for c in extra)
    if calls_made:
        options = [_director("continue_with_consent", "if the board can be corrected and played normally without "
                             "changing any call, continue with all four players' consent (13)"),
                   _director("adjusted_score", "otherwise an artificial adjusted score (13)")]
    else:
        options = [_director("correct", "correct the hand from the hand record and play normally (13A1)"),
                   _director("search", "if only this hand is short and the other three are right, search for the "
                             "missing card (14A)")]
    return _irr(IrregularityCode.INCORRECT_HAND_COUNT, "13", str(read.seat), board, detail, options,
                cards=len(read.cards))


def _displaced(hands: Mapping[Seat, frozenset[str]], reference: Deal, what: str) -> str:
    """Which cards sit in another hand than ``reference`` gives them: "HT in North's hand (the hand record
    gives it to East)"."""
    parts = []
    for s in SEATS:
        for c in sorted(hands.get(s, frozenset()) - reference.hands[s]):
            parts.append(f"{c} in {SEAT_NAME[s]}'s hand ({what} gives it to {SEAT_NAME[reference.owner[c]]})")
    return "; ".join(parts)


def check_hands(hands: Mapping[Seat, Iterable[str]], record: Deal, board: int | None, *,
                played: Mapping[str, Deal] | None = None) -> list[Irregularity]:
    """Compare the hands read at pickup with the hand record (hands of other than 13 cards are left to
    :func:`check_count`). ``played``: the forms other tables played this board in, by table name."""
    read = {Seat(s): frozenset(cs) for s, cs in hands.items()}
    good = {s: h for s, h in read.items() if len(h) == 13}
    if all(good.get(s) == record.hands[s] for s in good) and not (played and len(good) == 4):
        return []
    if len(good) == 4:
        for k in (1, 2, 3):
            if all(good[s] == record.hands[_rotated(s, k)] for s in SEATS):
                return [_irr(IrregularityCode.HAND_FROM_WRONG_POCKET, "7B1", None, board, _TURN[k], [
                                 _director("turn_board", Text("board.turn_board", "turn the board the right way; "
                                                              "each player puts the hand back and takes the one "
                                                              "from his own pocket (7B1)")),
                                 _director("information", Text("board.saw_cards", "a player who saw another hand's "
                                                               "cards: before the auction 6D1, else 16B"))],
                             rotation=k)]
    out = []
    swapped = set()
    for s, h in good.items():
        if h == record.hands[s]:
            continue
        other = next((t for t in SEATS if t != s and record.hands[t] == h), None)
        if other is not None:
            swapped.add(s)
            out.append(_irr(IrregularityCode.HAND_FROM_WRONG_POCKET, "7B1", str(s), board,
                            Text("board.holds_other", "{seat_name} holds {seat2_name}'s hand", seat_name=s,
                                 seat2_name=other), [
                                _director("return_hand", Text("board.return_hand", "{seat_name} puts the hand back "
                                                              "in {seat2_name}'s pocket and takes his own (7B1)",
                                                              seat_name=s, seat2_name=other)),
                                _director("information", Text("board.he_saw_cards", "if he saw the cards of another "
                                                              "hand: before the auction 6D1, else 16B"))],
                            took=str(other)))
    rest = {s: h for s, h in good.items() if s not in swapped}
    if len(good) == 4 and not swapped:
        dealt = _as_deal(good)
        if dealt is not None:
            flagged = _against_other_tables(dealt, record, board, played or {})
            return out + ([flagged] if flagged else [])
    for s, h in rest.items():
        if h != record.hands[s]:
            out.append(_irr(IrregularityCode.HAND_RECORD_MISMATCH, "13A1", str(s), board,
                            f"{SEAT_NAME[s]}'s hand differs from the hand record: "
                            + _displaced({s: h}, record, "the hand record"),
                            [_director("correct", "correct the board from the hand record before the auction "
                                       "(13A1)")]))
    return out


def _as_deal(hands: Mapping[Seat, frozenset[str]]) -> Deal | None:
    try:
        return Deal(hands)
    except ValueError:
        return None                                # a card in two hands: not one pack


def _against_other_tables(dealt: Deal, record: Deal, board: int | None,
                          played: Mapping[str, Deal]) -> Irregularity | None:
    forms = {d for d in played.values()}
    if forms and dealt not in forms:
        tables = ", ".join(str(t) for t in sorted(played, key=str))
        reference = next(iter(forms)) if len(forms) == 1 else record
        what = "the form played elsewhere" if len(forms) == 1 else "the hand record"
        return _irr(IrregularityCode.FOULED_BOARD, "87", None, board,
                    f"the cards differ from the form already played at table(s) {tables}: "
                    + _displaced(dealt.hands, reference, what), [
                        _director("restore", "restore the form already played before the auction, so that all "
                                  "tables play the same board (13A1)"),
                        _director("score_in_groups", "play it as it is; the board is fouled and scored in groups "
                                  "of tables that played the same form (87B)")],
                    tables=sorted((str(t) for t in played), key=str))
    if dealt == record:
        return None
    if forms:
        return _irr(IrregularityCode.HAND_RECORD_MISMATCH, "13A1", None, board,
                    "the cards match what the other tables played, but not the hand record: "
                    + _displaced(dealt.hands, record, "the hand record"), [
                        _director("play_as_played", "play the form the other tables played (the board stays "
                                  "comparable); correct the hand record"),
                        _director("correct", "correct the board from the hand record (13A1); the board is then "
                                  "fouled (87)")])
    return _irr(IrregularityCode.DUPLICATION_MISMATCH, "6F", None, board,
                "the board was duplicated wrongly: " + _displaced(dealt.hands, record, "the hand record"),
                [_director("correct", "correct the board from the hand record before anyone plays it (6F, 13A1)")])


# ------------------------------------------------------------------------------------------ a board found by its hands

def identify(hands: Mapping[Seat, Iterable[str]], records: Mapping[int, Deal]) -> int | None:
    """The board the hands picked up come from, by the cards alone: the board most of them are a hand of
    (13 cards exactly that board's hand at some seat), else the board whose hands share the most cards with
    them seat by seat; None without records or hands. One hand is enough: a hand of 13 cards is, in practice,
    in one hand record only."""
    read = {Seat(s): frozenset(cs) for s, cs in hands.items()}
    if not records or not read:
        return None
    exact: dict[int, int] = {}
    for n, deal in records.items():
        whole = sum(1 for h in read.values() if h in deal.hands.values())
        if whole:
            exact[n] = whole
    if exact:
        return min(exact, key=lambda n: (-exact[n], n))
    return min(records, key=lambda n: (-sum(len(h & records[n].hands[s]) for s, h in read.items()), n))


def check_pickup(hands: Mapping[Seat, Iterable[str]], records: Mapping[int, Deal],
                 board: int) -> list[Irregularity]:
    """The hands picked up at a table before its board started, against board ``board``'s hand record
    (``records``: every board of the set). Empty when each hand is the record's hand of its seat.

    * a hand of other than 13 cards: ``INCORRECT_HAND_COUNT`` (Law 13), naming the missing and extra cards;
    * a hand of another board at a seat, or cards displaced between the hands (a card of another pack, a
      card in the wrong pocket): ``FOULED_BOARD`` (Law 87), to be corrected from the hand record before the
      first call (13A1);
    * this board's hand of another seat (the board turned, a hand from the wrong pocket): as
      :func:`check_hands` (Law 7B1)."""
    record = records[board]
    read = {Seat(s): tuple(cs) for s, cs in hands.items()}
    out: list[Irregularity] = []
    for s, cards in read.items():
        irr = check_count(HandRead(s, cards), board, record)
        if irr is not None:
            out.append(irr)
    good = {s: frozenset(cs) for s, cs in read.items() if len(cs) == 13 and len(set(cs)) == 13}
    other = {s: next(((n, t) for n, d in sorted(records.items()) if n != board for t in SEATS
                      if d.hands[t] == h), None) for s, h in good.items()}
    parts = [f"{SEAT_NAME[s]} holds board {o[0]}'s {SEAT_NAME[o[1]]} hand" for s, o in other.items() if o]
    mine = {s: h for s, h in good.items() if not other[s]}
    turned = [i for i in check_hands(mine, record, board) if i.code == IrregularityCode.HAND_FROM_WRONG_POCKET]
    moved = {s for i in turned for s in ([Seat(i.seat)] if i.seat else SEATS)}
    displaced = _displaced({s: h for s, h in mine.items() if s not in moved and h != record.hands[s]},
                           record, "the hand record")
    if displaced:
        parts.append(displaced)
    if len(read) == 4 and not out:
        nowhere = sorted(set(record.owner) - set().union(*good.values()))
        if nowhere:
            parts.append("in no hand: " + ", ".join(nowhere))
    out += turned
    if parts:
        out.append(_irr(IrregularityCode.FOULED_BOARD, "87", None, board,
                        f"the hands picked up are not board {board}'s: " + "; ".join(parts), [
                            _director("correct", "correct the board from the hand record before the first call, "
                                      "then each player takes his hand again (13A1)"),
                            _director("score_in_groups", "play it as it is: the board is fouled and scored in "
                                      "groups of tables that played the same form (87B)")]))
    return out


# ------------------------------------------------------------------------------------------ after play

def check_returned(read: HandRead, played: Deal, board: int | None) -> Irregularity | None:
    """Law 7C: after play each player returns his own 13 cards to his own pocket."""
    own = played.hands[read.seat]
    cards = set(read.cards)
    wrong = sorted(cards - own)
    missing = sorted(own - cards)
    if not wrong and not missing:
        return None
    parts = [f"the {card_name(c)} is in {SEAT_NAME[read.seat]}'s pocket; it belongs to "
             f"{SEAT_NAME[played.owner[c]] if c in played.owner else 'no hand of this board'}" for c in wrong]
    if missing:
        parts.append(f"{SEAT_NAME[read.seat]}'s pocket lacks {', '.join(missing)}")
    return _irr(IrregularityCode.CARD_RETURNED_TO_WRONG_POCKET, "7C", str(read.seat), board, "; ".join(parts), [
        _director("fix", "put each card back in its own pocket before the board leaves the table (7C)"),
        _director("procedural_penalty", "a procedural penalty may be given (90B6)")],
        wrong=wrong or None, missing=missing or None)


# ------------------------------------------------------------------------------------------ from events

Records = HandRecordBoard | Mapping[int, HandRecordBoard] | Iterable[HandRecordBoard] | None


class BoardVerifier:
    """One board at one table, driven by its table events (see the module docstring).

    ``records``: the board's hand record, or the set's (looked up by the board number when the board
    starts). ``expected``: the boards the movement gives this table in this round. ``played``: the forms
    other tables played, ``{board: {table: Deal}}``.
    """

    def __init__(self, records: Records, expected: Collection[int] | None = None, *,
                 played: Mapping[int, Mapping[str, Deal]] | None = None, table: object | None = None,
                 round: int | None = None) -> None:
        if isinstance(records, HandRecordBoard):
            self.records = {records.board: records}
        elif isinstance(records, Mapping):
            self.records = dict(records)
        else:
            self.records = {r.board: r for r in (records or ())}
        self.expected = expected
        self.played = played or {}
        self.table = table
        self.round = round
        self.board: int | None = None
        self.record: HandRecordBoard | None = None
        self.hands: dict[Seat, tuple[str, ...]] = {}
        self.pickup: list[Irregularity] = []
        self.returns: list[Irregularity] = []
        self.compared = False
        self.auction_begun = False

    @property
    def irregularities(self) -> list[Irregularity]:
        return self.pickup + self.returns

    @property
    def ready_for_auction(self) -> bool:
        """No pickup irregularity is waiting for the director."""
        return not any(i.open for i in self.pickup)

    def played_deal(self) -> Deal | None:
        """The deal as this table holds it: the four hands read at pickup when they make a pack, else the
        hand record."""
        if len(self.hands) == 4:
            dealt = _as_deal({s: frozenset(h) for s, h in self.hands.items()})
            if dealt is not None:
                return dealt
        return self.record.deal if self.record is not None else None

    def apply(self, event: TableEvent, *, board_complete: bool = False) -> list[Irregularity]:
        """Feed one table event; ``board_complete`` marks a hand read as the return to the pockets."""
        if isinstance(event, BoardStarted):
            return self.start(event)
        if isinstance(event, HandRead):
            return self.returned(event) if board_complete else self.picked_up(event)
        if isinstance(event, (CallMade, CardPlayed, ContractRecorded)) and not self.auction_begun:
            self.auction_begun = True
            return self._compare()                 # hands not all read: check those that were, now
        return []

    def start(self, event: BoardStarted) -> list[Irregularity]:
        self.board = event.board
        self.record = self.records.get(event.board) if event.board is not None else None
        self.hands = {}
        self.pickup, self.returns = [], []
        self.compared = self.auction_begun = False
        irr = check_board(event.board, self.expected, table=self.table, round=self.round)
        return self._keep(self.pickup, [irr] if irr else [])

    def picked_up(self, event: HandRead) -> list[Irregularity]:
        self.hands[event.seat] = event.cards
        record = self.record.deal if self.record is not None else None
        irr = check_count(event, self.board, record, calls_made=self.auction_begun)
        out = [irr] if irr else []
        if len(self.hands) == 4 or self.auction_begun:
            out += self._compare()
        return self._keep(self.pickup, out)

    def _compare(self) -> list[Irregularity]:
        if self.record is None or not self.hands:
            return []
        self.compared = True
        played = self.played.get(self.board, {}) if self.board is not None else {}
        found = check_hands(self.hands, self.record.deal, self.board, played=played)
        known = {(i.code, i.seat) for i in self.pickup}
        return self._keep(self.pickup, [i for i in found if (i.code, i.seat) not in known])

    def returned(self, event: HandRead) -> list[Irregularity]:
        deal = self.played_deal()
        if deal is None:
            return []
        irr = check_returned(event, deal, self.board)
        return self._keep(self.returns, [irr] if irr else [])

    @staticmethod
    def _keep(into: list[Irregularity], found: list[Irregularity]) -> list[Irregularity]:
        into.extend(found)
        return found
