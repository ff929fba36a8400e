"""The opening lead keyed at a scoring-only table, checked against the evening's hand record (Bridgemate's lead-card
validation): **off**, **warn** (the result is accepted; the seat is told and the director is called) or **must
comply** (the result is refused, 409, until the lead is one the leader held). Whatever the mode, a lead that declarer
or dummy held is refused (409, ``LEAD_DECLARING_SIDE``): no opening lead can be their card.

The director sets it for the club (``POST /api/event/lead-check``; journalled as a club row ``lead_check``); until he
does, the scoring program's Bridgemate setting for the table's section applies when the Data Connector runs
(``DataConnector.lead_card_entry``: ``enter`` is keyed without a check, so off here).

Law 16B, as ``service/live/permissions.py`` reasons for a deal the table knows: every answer about a lead tells
the seat whether the leader holds that card. The answer names no holder, and after ``MAX_WRONG`` wrong leads on a
board the director is called and the board is no longer checked, so a seat cannot read the deal off the check
(a probe before the board is played) one card at a time.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from service.errors import Conflict, Invalid
from service.event.hand_records import HandRecords
from service.live.club import Club
from service.live.runtime import TableRuntime
from service.store.journal import CLUB, Row
from table.cards import Deal, Seat, parse_card
from table.texts import Text

MODES = ("off", "warn", "must comply")
MAX_WRONG = 2                                     # wrong leads on a board before the check stops for it
# the refusals' pieces, keyed (table/texts.py): the English is the API's detail, a page words each piece
NOT_IN_HAND = Text("refusal.lead_not_in_hand", "the lead is not in the leader's hand per the hand record")
DECLARING_SIDE = Text("refusal.lead_declaring_side", "the lead is a card of the declaring side per the hand record, "
                      "and the opening lead is the defenders' (declarer's left-hand opponent leads, Law 41A)")
CALLED = Text("refusal.lead_called", ": the director is called")
TOLD = Text("refusal.lead_told", ": the director is told")
CHECK_LEAD = Text("refusal.lead_check_lead", ": check the opening lead")
CHECK_BOTH = Text("refusal.lead_check_both", ": check the opening lead and the declarer")


class LeadCheck:
    def __init__(self, club: Club, hand_records: Callable[[], HandRecords | None],
                 fallback: Callable[[str], str | None] = lambda _table: None) -> None:
        self.club = club
        self._hand_records = hand_records
        self._fallback = fallback                   # the scoring program's setting for a table, if any
        self.setting: str | None = None             # the director's; None: not set
        self._wrong: dict[tuple[str, int, str], int] = {}   # (table, board, its deal) -> wrong leads

    def load(self, rows: Iterable[Row]) -> LeadCheck:
        for row in rows:
            if row.table_id == CLUB and row.kind == "lead_check":
                self.setting = str(row.body["mode"])
        return self

    def mode(self, table_id: str) -> str:
        if self.setting is not None:
            return self.setting
        dc = self._fallback(table_id)
        return dc if dc in MODES else "off"

    async def set_mode(self, mode: str, actor: str = "director") -> Row:
        if mode not in MODES:
            raise Invalid(Text("refusal.lead_check_modes", "the lead check is one of: {modes}", modes=", ".join(MODES)))
        row = await self.club.append_club("lead_check", {"mode": mode}, actor)
        self.setting = mode
        return row

    def _stopped(self, table_id: str, board: int) -> bool:
        """The director was called about this board's leads (journalled: a restart does not check it again)."""
        return any(c["table"] == table_id and c["board"] == board and c.get("code") == "LEAD_CHECK"
                   for c in self.club.calls.listing())

    async def vet(self, rt: TableRuntime, event: dict[str, Any], seat: str | None) -> str | None:
        """Check a seat's keyed result at a scoring-only table: None (nothing to say), a warning for the seat
        (``warn``), or ``Conflict`` (``must comply``; and in every mode a lead the declaring side holds, which no
        opening lead can be: Law 41A gives it to declarer's left-hand opponent, and a defender's lead out of turn,
        Law 54, is still a defender's card)."""
        mode = self.mode(rt.id)
        board = rt.board_number
        lead, declarer = event.get("lead"), event.get("declarer")
        store = self._hand_records()
        if rt.kind != "scoring" or board is None or not lead or not declarer or store is None:
            return None
        hand = store.hand_record(board)
        if hand is None or self._stopped(rt.id, board):
            return None
        try:
            hands = Deal.from_pbn(hand.deal).hands
            decl = Seat(str(declarer))
            card = parse_card(str(lead))
        except (ValueError, KeyError):
            return None                             # malformed: the engine refuses the event in words
        if card in hands[decl.lho]:
            return None
        impossible = card in hands[decl] or card in hands[decl.partner]
        if mode == "off" and not impossible:
            return None
        key = (rt.id, board, hand.deal)        # this evening's board, however often the table starts it again
        self._wrong[key] = self._wrong.get(key, 0) + 1
        last = self._wrong[key] >= MAX_WRONG or mode == "warn" and not impossible
        if last:
            reason = (Text("call.lead_check_warned", "board {board}: the opening lead keyed ({card}) is not in the "
                           "leader's hand per the hand record (warned); the lead is no longer checked on this board",
                           board=board, card=card)
                      if mode == "warn" and not impossible else
                      Text("call.lead_check_refused", "board {board}: the opening lead keyed ({card}) is not in the "
                           "leader's hand per the hand record (refused {count} times); the lead is no longer checked "
                           "on this board", board=board, card=card, count=self._wrong[key]))
            await self.club.call_director(rt.id, seat, reason, f"seat:{rt.id}:{seat}", board=board, code="LEAD_CHECK")
        if impossible:
            raise Conflict(DECLARING_SIDE + (CALLED if last else CHECK_BOTH), code="LEAD_DECLARING_SIDE")
        if mode == "warn":
            return NOT_IN_HAND + TOLD
        raise Conflict(NOT_IN_HAND + (CALLED if last else CHECK_LEAD), code="LEAD_NOT_IN_HAND")
