"""Who may see what: ``visible_state(table, viewer)``, the one function every REST and WebSocket view uses.

Hidden information is security. The rules, for a board in progress:

* **director** — everything: the four hands, the auction with alerts, every trick, every irregularity
  with its detail and options, the journal position, device health.
* **seat** (a token bound to one table and one seat) — its own hand; dummy's hand once the opening lead
  is faced; the auction (alerts: with screens only its own side of the screen's; an alert's written
  explanation only to the caller and his opponents, never to his partner before the board is complete,
  Laws 16, 20F, 75) until its own first
  play, then only the contract and whether doubled (Law 41C); the current and the last quitted trick
  (Law 66A), its own played cards and the trick count; penalty cards and claims (they are faced), and the
  claiming declarer's remaining cards while his claim stands (he faces them, Laws 68C, 70B);
  irregularities at its table, but the detail of a play irregularity only to its offender, and one that
  reveals a holding (a revoke, a hand-record mismatch) only to its offender or chooser; rectification
  options only to the player who must choose (Law 10C2) and only if the regulation lets players choose.
  Never another hand. Once the board is complete: all four hands and the result.
* **spectator** — a view delayed by the regulation (the caller passes the delayed copy of the table):
  calls and played cards (an alert's written explanation only once the board is complete: a spectator may
  be the caller's partner); no hand, not even dummy's (a spectator may play the board at another table);
  hands only when the regulation shows hands of a delayed view, or the board's
  result is released; no options, no details that reveal holdings, the result once released.

Above these rules stands the movement's (Law 16B, ``service/event/board_rule.py``): a viewer never receives any
part of a board its own pair still has to play, an anonymous viewer nothing of a board any table still has
to play (unless the director marked the table a vugraph table: then its delayed calls and cards, but neither
its hands nor its result while another table still has the board, ``table.embargoed``). The caller passes
those boards as ``hidden``; a table on such a board shows only "board 7 in play" (:func:`withheld_state`).

``table`` is a :class:`service.live.runtime.TableRuntime` (the engine's ``Table`` plus board history and the
table's regulation); the function reads it and returns plain JSON data, changing nothing.
"""
from __future__ import annotations

from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from service.live.lawtext import statement
from service.live.runtime import TableRuntime, confirming_side, summarize
from table.cards import SEATS, Seat, sort_cards
from table.irregularity import Irregularity
from table.machine import Table
from table.texts import translatable

Role = Literal["director", "seat", "spectator"]

# irregularities whose mere existence tells something about a hidden hand
SECRET_CODES = frozenset({"REVOKE", "REVOKE_TRICK12", "HAND_RECORD_MISMATCH", "INCORRECT_HAND_COUNT", "DEFECTIVE_PACK",
                          "REVOKE_TRICK_TRANSFER"})
SCREENMATE = {"N": "E", "E": "N", "S": "W", "W": "S"}


@dataclass(frozen=True, slots=True)
class Viewer:
    role: Role
    table: str | None = None          # a seat's table
    seat: str | None = None           # a seat's seat
    round: int | None = None          # a seat's round, when its token names one (else: the table's current round)

    @property
    def key(self) -> str:
        if self.role != "seat":
            return self.role
        return f"seat:{self.seat}" if self.round is None else f"seat:{self.seat}:r{self.round}"


DIRECTOR = Viewer("director")
SPECTATOR = Viewer("spectator")
NOTHING: AbstractSet[int] = frozenset()


class BoardRule(Protocol):
    """The movement's rule (``service/event/board_rule.py``): the boards of which ``viewer`` may see nothing."""

    def hidden(self, viewer: Viewer) -> AbstractSet[int]:
        """Anywhere: board records, results, exports."""

    def hidden_at(self, table_id: str, viewer: Viewer) -> AbstractSet[int]:
        """In the live view of ``table_id`` (a seat's own current board, a vugraph table)."""


# ---------------------------------------------------------------------- reading the engine
def original_hand(t: Table, seat: str) -> list[str]:
    if t.deal is not None and t.deal.hands.get(Seat(seat)):
        return sort_cards(t.deal.hands[Seat(seat)])
    return sort_cards(t.hands_read.get(Seat(seat), ()))


def remaining_hand(t: Table, seat: str) -> list[str]:
    if t.play is not None:
        return sort_cards(t.play.remaining(Seat(seat)))
    return original_hand(t, seat)


def declarer_of(t: Table) -> str | None:
    if t.play is not None:
        return str(t.play.declarer)
    c = t.contract
    return c.declarer if c is not None else None


def dummy_of(t: Table) -> str | None:
    d = declarer_of(t)
    return str(Seat(d).partner) if d else None


def lead_faced(t: Table) -> bool:
    return t.play is not None and any(t.play.tricks)


def faced_claimer(t: Table) -> str | None:
    """Declarer's seat while his claim stands: he faces his remaining cards with his statement (Laws 68C, 70B),
    so every player at the table sees them. A defender's concession faces nothing (his partner may object and
    play on, Law 68B)."""
    if t.claim is None or t.play is None or t.state == "board_complete":
        return None
    claimer = str(t.claim.seat)
    return claimer if claimer == declarer_of(t) else None


def turn_of(t: Table) -> str | None:
    if t.board is None or t.state in ("idle", "board_complete", "claim_pending"):
        return None
    if t.auction is None:
        return None if t.contract is not None else str(t.board.dealer)
    if not t.auction.closed:
        return str(t.auction.next_seat)
    if t.passed_out:
        return None
    if t.play is not None:
        return None if t.play.complete else str(t.play.next_seat)
    d = declarer_of(t)
    return str(Seat(d).lho) if d else None


def has_played(t: Table, seat: str) -> bool:
    """Law 41C: whether ``seat`` has made a play (declarer plays dummy's cards too)."""
    if t.play is None:
        return False
    mine = {seat}
    if seat == declarer_of(t):
        mine.add(str(Seat(seat).partner))
    return any(str(s) in mine for trick in t.play.tricks for s, _ in trick)


def chooser_matches(t: Table, chooser: str, seat: str) -> bool:
    """Whether the option's ``chooser`` (a seat, ``declarer``, ``defenders``, ``director``) names ``seat``."""
    if chooser in ("N", "E", "S", "W"):
        return chooser == seat
    d = declarer_of(t)
    if chooser == "declarer":
        return d == seat
    if chooser == "defenders":
        return d is not None and Seat(d).side != Seat(seat).side
    return False


def entitled(table: TableRuntime, seat: str, code: str, option: str) -> bool:
    """A player may choose ``option`` for the open ``code`` himself (Law 10C2, regulation permitting)."""
    if not table.regulation.player_rulings:
        return False
    t = table.table
    return any(i.code == code and table.awaits_choice(i) and any(o.code == option
                                                                 and chooser_matches(t, o.chooser, seat)
                                                                 for o in i.options) for i in t.irregularities)


# ---------------------------------------------------------------------- the view
def _explanation_seen(e: Any, viewer: Viewer, seen_alert: bool, complete: bool) -> bool:
    """An alert's written explanation is for the caller's opponents (Law 20F): never for his partner while the
    board is played (it would be unauthorized information, Laws 16, 73B1, 75), nor for a spectator (who may be
    that partner); the director always; everyone once the board is complete."""
    if viewer.role == "director" or complete:
        return True
    if viewer.role != "seat" or not seen_alert or viewer.seat is None:
        return False
    return viewer.seat == str(e.seat) or Seat(viewer.seat).side != e.seat.side


def _calls(t: Table, viewer: Viewer, screens: bool, complete: bool) -> list[dict[str, Any]]:
    assert t.auction is not None
    out = []
    for e in t.auction.calls:
        seen_alert = e.alert
        if screens and viewer.role == "seat" and str(e.seat) not in (viewer.seat, SCREENMATE[viewer.seat or "N"]):
            seen_alert = False
        d: dict[str, Any] = {"seat": str(e.seat), "call": e.call, "alert": bool(seen_alert), "stands": e.stands}
        if e.explanation and _explanation_seen(e, viewer, seen_alert, complete):
            d["explanation"] = e.explanation
        if e.effective != e.call:
            d["effective"] = e.effective or None
        if e.deemed:
            d["deemed"] = True
        out.append(d)
    return out


def _tricks(t: Table) -> list[dict[str, Any]]:
    assert t.play is not None
    out = []
    for i, trick in enumerate(t.play.tricks):
        if not trick:
            continue
        out.append({"number": i + 1, "cards": [{"seat": str(s), "card": c} for s, c in trick],
                    "winner": str(t.play.winners[i]) if i < len(t.play.winners) else None})
    return out


def _irregularity(t: Table, irr: Irregularity, viewer: Viewer, complete: bool, regulation: Any,
                  sees_hands: bool, awaits: bool, ruling: str | None = None) -> dict[str, Any] | None:
    d = irr.to_dict()
    d["open"] = irr.open
    d["awaiting_choice"] = awaits
    if ruling is not None:                      # ruled; still open while the table complies (27B, 31A ...)
        d["ruling"] = ruling
    d["law_text"] = statement(irr.law)
    if viewer.role == "director":
        return d
    offender = viewer.role == "seat" and irr.seat == viewer.seat
    options = [o for o in irr.options if viewer.role == "seat" and regulation.player_rulings and awaits
               and chooser_matches(t, o.chooser, viewer.seat or "")]
    if not complete and not sees_hands and irr.code in SECRET_CODES and not (offender or options):
        return None
    # a complete board shows a seat all four hands, not a spectator: its details wait for the hands
    if not (complete and viewer.role == "seat" or sees_hands or offender or irr.phase == "auction"):
        d.pop("detail", None)
        d.pop("detail_parts", None)             # the same words, translatable: hidden alike
    d.pop("options", None)
    if options:
        d["options"] = [o.to_dict() for o in options]
    return d


def _sees_hands(table: TableRuntime, viewer: Viewer) -> bool:
    t = table.table
    number = t.board.board if t.board is not None else None
    if viewer.role == "director":
        return True
    if viewer.role == "seat":
        return t.state == "board_complete"
    return spectator_sees_hands(table, number)


def _visible_irregularities(table: TableRuntime, viewer: Viewer, irrs: list[Irregularity],
                            sees_hands: bool) -> list[dict[str, Any]]:
    t = table.table
    complete = t.state == "board_complete"
    out = []
    for irr in irrs:
        d = _irregularity(t, irr, viewer, complete, table.regulation, sees_hands, table.awaits_choice(irr),
                          table.ruling_for(irr))
        if d is not None:
            out.append(d)
    return out


def visible_irregularities(table: TableRuntime, viewer: Viewer, irrs: list[Irregularity]) -> list[dict[str, Any]]:
    """``irrs`` (e.g. the ones an event just flagged) as ``viewer`` may see them."""
    return _visible_irregularities(table, viewer, irrs, _sees_hands(table, viewer))


def spectator_sees_hands(table: TableRuntime, board: int | None) -> bool:
    """Released boards; the delayed view's hands when the regulation shows them, but never of a board another
    table still has to play (a vugraph table's audience sees its play, not its hands: Law 16B)."""
    pol = table.regulation.spectators
    if pol.hands == "never" or board is None:
        return False
    if board in table.released:
        return True
    return pol.hands == "delayed" and pol.delay_s > 0 and board not in table.embargoed


def _withheld(table: TableRuntime, hidden: AbstractSet[int]) -> bool:
    return table.board_number is not None and table.board_number in hidden


def _frozen(table: TableRuntime) -> tuple[int, str | None]:
    """The sequence number and time of the current board's first row: a withheld view does not move while
    the board is played (the number of events would tell how the auction and play went)."""
    rec = table.current
    if rec is None or not rec.rows:
        return table.seq, table.updated_at
    return rec.rows[0].seq, rec.started_at or rec.rows[0].at


def withheld_state(table: TableRuntime, viewer: Viewer) -> dict[str, Any]:
    """The view of a table on a board ``viewer`` may not see: "board 7 in play", nothing else of the board (the
    table's kind stays: a scoring-only table's page keys its own next board while the table is left on one)."""
    board = table.table.board
    seq, updated = _frozen(table)
    return {"table": table.id, "seq": seq, "updated": updated, "view": viewer.key,
            "board": None if board is None else {"number": board.board, "dealer": str(board.dealer),
                                                  "vulnerable": str(board.vulnerable)},
            "phase": "in_play", "withheld": True, "turn": None, "declarer": None, "dummy": None, "contract": None,
            "kind": table.kind, "hands": {}, "auction": None, "irregularities": [], "choices": []}


def visible_state(table: TableRuntime, viewer: Viewer, hidden: AbstractSet[int] = NOTHING) -> dict[str, Any]:
    """What ``viewer`` may see of ``table`` now (JSON data); ``hidden``: the boards it may see nothing of."""
    if viewer.role != "director" and _withheld(table, hidden):
        return withheld_state(table, viewer)
    t = table.table
    reg = table.regulation
    board = t.board
    number = board.board if board is not None else None
    complete = t.state == "board_complete"
    released = number is not None and number in table.released
    director = viewer.role == "director"
    seat = viewer.seat if viewer.role == "seat" else None
    if seat is not None and viewer.table != table.id:
        raise PermissionError(f"a seat token of table {viewer.table} does not see table {table.id}")
    sees_hands = _sees_hands(table, viewer)

    declarer, dummy = declarer_of(t), dummy_of(t)
    out: dict[str, Any] = {
        "table": table.id, "seq": table.seq, "updated": table.updated_at, "view": viewer.key,
        "board": None if board is None else {"number": number, "dealer": str(board.dealer),
                                              "vulnerable": str(board.vulnerable)},
        "phase": t.state, "turn": turn_of(t), "declarer": declarer, "dummy": dummy, "kind": table.kind,
    }
    c = t.contract
    out["contract"] = "PASS" if t.passed_out else (str(c) if c is not None and t._auction_over() else None)

    # hands
    hands: dict[str, Any] = {}
    faced = faced_claimer(t) if seat is not None else None
    for each in SEATS:
        s = str(each)
        if sees_hands or s == seat or (seat is not None and s == dummy and lead_faced(t)) or s == faced:
            hands[s] = {"cards": remaining_hand(t, s)}
            if sees_hands:
                hands[s]["original"] = original_hand(t, s)
    out["hands"] = hands
    if director and t.deal is not None:
        out["deal"] = t.deal.to_pbn()

    # the auction (Law 41C for a player after his first play)
    if t.auction is None:
        out["auction"] = {"dealer": str(board.dealer), "calls": []} if board is not None else None
    elif seat is not None and has_played(t, seat) and not complete:
        out["auction"] = None
    else:
        out["auction"] = {"dealer": str(t.auction.dealer), "calls": _calls(t, viewer, reg.screens, complete),
                          "closed": t.auction.closed}

    # the play
    if t.play is not None:
        tricks = _tricks(t)
        won = {"NS": 0, "EW": 0}
        for w in t.play.winners:
            won[w.side] += 1
        out["tricks_won"] = won
        out["penalty_cards"] = {str(s): t.play.penalty_cards(s) for s in SEATS if t.play.penalty_cards(s)}
        if seat is None or complete:
            out["tricks"] = tricks
        else:
            done = len(t.play.winners)
            out["trick"] = next((tr for tr in tricks if tr["number"] == done + 1), None)
            out["last_trick"] = next((tr for tr in tricks if tr["number"] == done), None)
            out["played"] = [{"number": tr["number"], "card": cd["card"]} for tr in tricks for cd in tr["cards"]
                             if cd["seat"] == seat]
    if t.claim is not None:
        out["claim"] = {"seat": str(t.claim.seat), "tricks": t.claim.tricks,
                        "responses": {str(k): v for k, v in t.claim_responses.items()}}

    # irregularities and the choices they offer
    irrs = _visible_irregularities(table, viewer, t.irregularities, sees_hands)
    out["irregularities"] = irrs
    out["choices"] = [i for i in irrs if i["awaiting_choice"] and i.get("options")]

    # the result
    if director or (seat is not None and complete) or (viewer.role == "spectator" and released and complete):
        out["result"] = summarize(t) if complete else None
        rec = table.boards.get(number) if number is not None else None
        if rec is not None and rec.adjustment is not None:
            out["adjustment"] = rec.adjustment
        if rec is not None and complete:            # the opponents' answer (service/api/terminal.py)
            out["confirm"] = {"side": confirming_side(rec, declarer), "keyed": rec.keyed_by is not None,
                              "keyed_by": (rec.keyed_by or "").rsplit(":", 1)[-1] or None,
                              "lead": t.keyed_lead, "answer": rec.confirmation}
    if director:
        out["devices"] = [d.health() if hasattr(d, "health") else d for d in table.devices]
        out["replay_errors"] = list(table.replay_errors)
        out["held"] = table.held
        out.update(translatable(table.held or "", "held"))
    return out


def summary(table: TableRuntime, viewer: Viewer, hidden: AbstractSet[int] = NOTHING) -> dict[str, Any]:
    """The one-line view of a table for lists (public facts only, devices for the director)."""
    t = table.table
    if viewer.role != "director" and _withheld(table, hidden):
        seq, updated = _frozen(table)
        return {"table": table.id, "board": table.board_number, "phase": "in_play", "withheld": True, "turn": None,
                "seq": seq, "updated": updated, "contract": None}
    out: dict[str, Any] = {"table": table.id, "board": t.board.board if t.board else None, "phase": t.state,
                           "turn": turn_of(t), "seq": table.seq, "updated": table.updated_at}
    c = t.contract
    out["contract"] = "PASS" if t.passed_out else (str(c) if c is not None and t._auction_over() else None)
    if viewer.role == "director":
        out["open_irregularities"] = sum(1 for i in t.irregularities if i.open)
        out["devices"] = [d.health() if hasattr(d, "health") else d for d in table.devices]
        out["held"] = table.held
        out.update(translatable(table.held or "", "held"))
    return out
