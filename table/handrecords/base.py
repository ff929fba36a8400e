"""What every hand-record format shares: the board model, the error, and the card/owner codecs.

A hand record is the deal of each board of a set, as a dealing machine or a hand-record sheet needs it:
board number, the four hands, dealer and vulnerability. Formats differ in how they number boards
(explicitly, or by position from 1), whether they carry dealer and vulnerability (most derive them from
the number, Law 2), and how they spell the 52 cards; each format module converts between its bytes
and a list of :class:`HandRecordBoard`.

Cards are indexed 0..51 in the order S, H, D, C and A, K, ... 2 within a suit (``table.cards.ALL_CARDS``):
the order of the wire protocol (docs/protocol.md §9.3) and of most dealing-machine formats.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..board import Vulnerability, dealer_for, vulnerability_for
from ..cards import ALL_CARDS, RANKS, SEATS, SUITS, CardError, Deal, Seat
from ..errors import BridgeError
from ..events import BoardStarted
from ..texts import Text

CARD_INDEX = {c: i for i, c in enumerate(ALL_CARDS)}
# what several formats' readers say alike: one keyed sentence each (table/texts.py)
NO_BOARDS = Text("records.no_boards", "no boards in the file")


def not_whole(size: int, record: int, after_header: bool = False) -> Text:
    """A file (or its part after the header) that is not a whole number of ``record``-byte boards."""
    if after_header:
        return Text("records.truncated_body", "truncated: {size} bytes after the header is not a whole number of "
                    "{record}-byte boards", size=size, record=record)
    return Text("records.truncated_bytes", "truncated: {size} bytes is not a whole number of {record}-byte boards",
                size=size, record=record)


class HandRecordError(BridgeError, ValueError):
    """A hand-record file (or a set of boards) that cannot be read or written; the message names the
    file, the board when known, and what is wrong."""

    def __init__(self, source: str, what: str, board: int | None = None) -> None:
        self.source = source
        self.board = board
        self.what = what
        # keyed (table/texts.py): a page words where, and ``what`` when it is a Text
        where = (Text("records.where_board", "{source}, board {board}: ", source=source, board=board)
                 if board is not None else Text("records.where", "{source}: ", source=source))
        super().__init__(where + what)


@dataclass(frozen=True, slots=True)
class HandRecordBoard:
    """One board of a hand record. Dealer and vulnerability default from the number (Law 2)."""
    board: int
    deal: Deal
    dealer: Seat
    vulnerable: Vulnerability

    @classmethod
    def of(cls, board: int, deal: Deal, dealer: str | None = None,
           vulnerable: Vulnerability | None = None) -> HandRecordBoard:
        return cls(board, deal, Seat(dealer) if dealer else dealer_for(board),
                   vulnerable if vulnerable is not None else vulnerability_for(board))

    @property
    def standard_markings(self) -> bool:
        """Whether dealer and vulnerability are the ones Law 2 gives this number."""
        return self.dealer == dealer_for(self.board) and self.vulnerable == vulnerability_for(self.board)

    def hands(self) -> dict[str, tuple[str, ...]]:
        """``{"N": ("SA", ...), ...}``: the form ``DealBoard.from_hands`` takes."""
        return {str(s): tuple(c for c in ALL_CARDS if c in self.deal.hands[s]) for s in SEATS}

    def to_event(self) -> BoardStarted:
        return BoardStarted(self.board, self.dealer, self.vulnerable, deal=self.deal.to_pbn())

    def __repr__(self) -> str:
        return f"HandRecordBoard({self.board}, {self.deal.to_pbn()!r}, {self.dealer}, {self.vulnerable})"


# ------------------------------------------------------------------------------------------ codecs

def deal_from_owners(owners: Sequence[Seat], source: str, board: int | None) -> Deal:
    """A deal from the owner of each card, in ``ALL_CARDS`` order (52 entries)."""
    hands: dict[Seat, list[str]] = {s: [] for s in SEATS}
    for card, seat in zip(ALL_CARDS, owners):
        hands[seat].append(card)
    return make_deal(hands, source, board)


def owners_of(deal: Deal) -> list[Seat]:
    return [deal.owner[c] for c in ALL_CARDS]


def make_deal(hands: Mapping[Seat, Iterable[str]], source: str, board: int | None) -> Deal:
    """``Deal`` with its complaint (a card twice, a hand of 12) turned into a ``HandRecordError``."""
    try:
        return Deal(hands)
    except CardError as err:
        # the deal's complaint is a Text of its own (table/cards.py): joined, so a page words both
        raise HandRecordError(source, Text("records.not_a_deal", "not a valid deal: ") + err.args[0], board) from None


def hand_from_suits(suits: Sequence[str], source: str, board: int | None) -> list[str]:
    """Cards of one hand from its four rank strings in S, H, D, C order (``"AK2"``, ``"T9"``, ``""``)."""
    if len(suits) != 4:
        raise HandRecordError(source, Text("records.suits", "a hand has {count} suits, not 4", count=len(suits)),
                              board)
    cards = []
    for suit, ranks in zip(SUITS, suits):
        for r in ranks.upper().replace("10", "T"):
            if r not in RANKS:
                raise HandRecordError(source, Text("records.rank", "{rank} is not a card rank (in {ranks})",
                                                   rank=repr(r), ranks=repr(ranks)), board)
            cards.append(suit + r)
    return cards


def suits_of(deal: Deal, seat: Seat) -> list[str]:
    """Rank strings of one hand in S, H, D, C order, highest first."""
    held = deal.hands[seat]
    return ["".join(r for r in RANKS if s + r in held) for s in SUITS]


def standard(board: int, deal: Deal) -> HandRecordBoard:
    return HandRecordBoard.of(board, deal)


# ------------------------------------------------------------------------------------------ set rules

def check_set(boards: Sequence[HandRecordBoard], source: str) -> list[HandRecordBoard]:
    """Boards in number order; the same number twice is allowed only with the same deal (a LIN file
    lists each board once per room), otherwise it is an error."""
    seen: dict[int, HandRecordBoard] = {}
    for b in boards:
        other = seen.get(b.board)
        if other is None:
            seen[b.board] = b
        elif other != b:
            raise HandRecordError(source, Text("records.twice", "appears twice with different deals (or markings)"),
                                  b.board)
    return [seen[n] for n in sorted(seen)]


def require_positional(boards: Sequence[HandRecordBoard], fmt: str, source: str, *, first: int | None = 1,
                       limit: int | None = None, markings: bool = True, consecutive: bool = True) -> None:
    """Refuse what a format cannot carry rather than write a file that reads back differently:
    boards numbered by position (consecutive, from ``first`` when given), a highest board number
    ``limit``, and dealer/vulnerability that only Law 2 markings can express."""
    if not boards:
        raise HandRecordError(source, Text("records.write_empty", "no boards to write ({fmt} cannot hold an empty "
                                                 "set)", fmt=fmt))
    numbers = [b.board for b in boards]
    start = numbers[0] if first is None else first
    if consecutive and numbers != list(range(start, start + len(numbers))):
        ranges = _ranges(numbers)
        raise HandRecordError(source, Text("records.positional_from", "{fmt} numbers boards by position, so they "
                                           "must be consecutive from board {first}; this set has boards {boards} "
                                           "(write PBN or CSV instead)", fmt=fmt, first=first, boards=ranges)
                              if first is not None else
                              Text("records.positional", "{fmt} numbers boards by position, so they must be "
                                   "consecutive; this set has boards {boards} (write PBN or CSV instead)", fmt=fmt,
                                   boards=ranges))
    if limit is not None and numbers[-1] > limit:
        raise HandRecordError(source, Text("records.limit", "{fmt} holds boards up to {limit} only", fmt=fmt,
                                           limit=limit), numbers[-1])
    if markings:
        for b in boards:
            if not b.standard_markings:
                raise HandRecordError(source, Text("records.markings", "dealer {seat} / vulnerability "
                                                   "{vulnerability} differ from the board number's (Law 2) and "
                                                   "{fmt} cannot record them (write PBN or CSV)", seat=b.dealer,
                                                   vulnerability=b.vulnerable, fmt=fmt), b.board)


def _ranges(numbers: Sequence[int]) -> str:
    out: list[str] = []
    for n in numbers:
        if out and out[-1].split("-")[-1] == str(n - 1):
            out[-1] = f"{out[-1].split('-')[0]}-{n}"
        else:
            out.append(str(n))
    return ", ".join(out)
