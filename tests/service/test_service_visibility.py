"""``visible_state`` at every phase of a board, for every viewer: no hidden card ever leaks.

Boards are driven event by event by the robot players (with seeded irregularities and a claim) through a
``TableRuntime``; after every event the view of the director, each seat and a spectator is checked.
"""
from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from typing import Any

import pytest

from service.config.settings import Regulation, SpectatorPolicy
from service.live.runtime import TableRuntime
from service.live.visibility import DIRECTOR, SPECTATOR, Viewer, entitled, visible_state
from service.sim.dealing import deal_for
from service.sim.robot import next_event
from service.store.journal import Row, utcnow
from table.cards import SEATS

PHASES = {"board_ready", "auction", "awaiting_ruling", "opening_lead", "play", "claim_pending", "board_complete"}


def _apply(rt: TableRuntime, body: dict[str, Any]) -> None:
    rt.apply_row(Row(rt.id, rt.seq + 1, utcnow(), "test", "event", body))


def drive(rt: TableRuntime, board: int, fault: str | None, claim_at: int | None = None,
          rulings: dict[str, str] | None = None) -> Iterator[TableRuntime]:
    """Play one board; yields after every event."""
    rng = random.Random(board)
    _apply(rt, {"type": "board", "board": board, "deal": deal_for(7, board).to_pbn()})
    yield rt
    rulings = dict(rulings or {})
    for _ in range(400):
        t = rt.table
        open_ = [i for i in t.irregularities if i.open and i.options]
        if open_ and open_[0].code in rulings:
            irr = open_[0]
            _apply(rt, {"type": "ruling", "code": irr.code, "option": rulings.pop(irr.code)})
            yield rt
            continue
        if claim_at is not None and t.play is not None and len(t.play.winners) == claim_at and t.claim is None \
                and not t.play.tricks[-1]:
            _apply(rt, {"type": "claim", "seat": str(t.play.declarer), "tricks": 13 - claim_at + 1})
            yield rt
            continue
        step = next_event(t, rng, fault if not any(i.code in ("INSUFFICIENT_BID", "OPENING_LEAD_OUT_OF_TURN", "REVOKE")
                                                   for i in t.irregularities) else None)
        if step is None:
            break
        _apply(rt, step[0])
        yield rt
    assert rt.table.state == "board_complete"


def hidden_cards(state: dict[str, Any], rt: TableRuntime, viewer: Viewer) -> set[str]:
    """Cards the viewer must not be able to see: every card of a hand it may not see, except cards that
    are public (played, or penalty cards lying face up)."""
    t = rt.table
    if viewer.role == "director" or t.deal is None:
        return set()
    played = {c for trick in (t.play.tricks if t.play else []) for _, c in trick}
    faced = {c for s in SEATS for c in (t.play.penalty_cards(s) if t.play else {})}
    exposed = {c for _, cards in t.auction_exposures for c in cards}
    visible = set(state["hands"])
    out = set()
    for s in SEATS:
        if str(s) not in visible:
            out |= set(t.deal.hands[s]) - played - faced - exposed
    return out


def check(rt: TableRuntime, viewer: Viewer) -> dict[str, Any]:
    state = visible_state(rt, viewer)
    text = json.dumps(state)
    t = rt.table
    complete = t.state == "board_complete"
    lead = t.play is not None and any(t.play.tricks)
    dummy = state["dummy"]
    # which hands
    if viewer.role == "director":
        assert set(state["hands"]) == {"N", "E", "S", "W"} and "deal" in state
    elif viewer.role == "seat":
        # a declarer who claims faces his remaining cards to the whole table (Laws 68C, 70B)
        claimer = str(t.claim.seat) if t.claim is not None and t.play is not None and not complete \
            and t.claim.seat == t.play.declarer else None
        allowed = {"N", "E", "S", "W"} if complete else \
            {viewer.seat} | ({dummy} if lead and dummy else set()) | ({claimer} if claimer else set())
        assert set(state["hands"]) <= allowed, (t.state, state["hands"].keys())
        if claimer:
            assert claimer in state["hands"], "the claimer's faced cards are seen at the table"
        assert viewer.seat in state["hands"]
        if lead and dummy:
            assert dummy in state["hands"], "dummy is seen once the opening lead is faced"
        assert "deal" not in state
    else:
        assert "deal" not in state
        if not complete:
            assert state["hands"] == {}, "spectators see no hands of a board in play"
    # no hidden card anywhere (values, details)
    for card in hidden_cards(state, rt, viewer):
        assert f'"{card}"' not in text, f"{viewer.key} sees {card} at {t.state}"
        for irr in state["irregularities"]:
            assert not re.search(rf"\b{card}\b", irr.get("detail", "")), f"{viewer.key}: {card} in {irr}"
            # the same words, translatable (table/texts.py): each piece's text and parameters
            pieces = " ".join(f"{p.get('text', '')} {' '.join(p.get('params', {}).values())}"
                              for p in irr.get("detail_parts", []))
            assert not re.search(rf"\b{card}\b", pieces), f"{viewer.key}: {card} in {irr}"
    # Law 41C
    if viewer.role == "seat" and not complete:
        mine = {viewer.seat} | ({dummy} if viewer.seat == state["declarer"] and dummy else set())
        played = t.play is not None and any(str(s) in mine for tr in t.play.tricks for s, _ in tr)
        assert (state["auction"] is None) == played, (viewer.key, t.state)
        if played:
            assert state["contract"], "after his first play a player still sees the contract"
    # options only to whoever must choose (Law 10C2)
    for irr in state["irregularities"]:
        for opt in irr.get("options", []):
            if viewer.role == "seat":
                assert entitled(rt, str(viewer.seat), irr["code"], opt["code"])
            assert viewer.role != "spectator"
    if viewer.role == "seat" and not complete:
        assert "tricks" not in state           # only the current and the last trick (Law 66A)
    if viewer.role == "spectator":
        assert "result" not in state or complete
    return state


VIEWERS = [DIRECTOR, SPECTATOR] + [Viewer("seat", table="T", seat=s) for s in "NESW"]


@pytest.mark.parametrize("board,fault,claim_at,rulings", [
    (1, None, None, {}),
    (2, "insufficient_bid", None, {}),
    (3, "lead_out_of_turn", 9, {}),
    (4, "revoke", None, {}),
    (5, "insufficient_bid", None, {"INSUFFICIENT_BID": "refuse"}),
    (6, "lead_out_of_turn", None, {"OPENING_LEAD_OUT_OF_TURN": "refuse"}),
    (7, "revoke", 10, {"REVOKE": "correct"}),
    (8, "lead_out_of_turn", None, {"OPENING_LEAD_OUT_OF_TURN": "spread"}),
])
def test_every_phase_every_viewer(board: int, fault: str | None, claim_at: int | None,
                                  rulings: dict[str, str]) -> None:
    rt = TableRuntime("T", Regulation())
    seen = set()
    for _ in drive(rt, board, fault, claim_at, rulings):
        seen.add(rt.table.state)
        for v in VIEWERS:
            check(rt, v)
    assert {"board_ready", "auction", "opening_lead", "play", "board_complete"} <= seen | {"opening_lead"}


def test_phases_covered() -> None:
    seen: set[str] = set()
    for board, fault, claim in ((2, "insufficient_bid", None), (3, "lead_out_of_turn", 9), (4, "revoke", None)):
        rt = TableRuntime("T", Regulation())
        for _ in drive(rt, board, fault, claim):
            seen.add(rt.table.state)
    assert PHASES <= seen, PHASES - seen


def test_seat_token_of_another_table_sees_nothing() -> None:
    rt = TableRuntime("T", Regulation())
    next(drive(rt, 1, None))
    with pytest.raises(PermissionError):
        visible_state(rt, Viewer("seat", table="U", seat="N"))


def test_screens_hide_the_other_sides_alerts() -> None:
    rt = TableRuntime("T", Regulation(screens=True))
    _apply(rt, {"type": "board", "board": 1, "deal": deal_for(7, 1).to_pbn()})
    _apply(rt, {"type": "call", "seat": "N", "call": "1C", "alert": True})
    north = visible_state(rt, Viewer("seat", table="T", seat="N"))["auction"]["calls"][0]
    east = visible_state(rt, Viewer("seat", table="T", seat="E"))["auction"]["calls"][0]
    south = visible_state(rt, Viewer("seat", table="T", seat="S"))["auction"]["calls"][0]
    assert north["alert"] and east["alert"] and not south["alert"]
    rt2 = TableRuntime("T", Regulation(screens=False))
    _apply(rt2, {"type": "board", "board": 1, "deal": deal_for(7, 1).to_pbn()})
    _apply(rt2, {"type": "call", "seat": "N", "call": "1C", "alert": True})
    assert visible_state(rt2, Viewer("seat", table="T", seat="S"))["auction"]["calls"][0]["alert"]


def test_spectator_policies() -> None:
    def spectator_hands(policy: SpectatorPolicy, released: bool) -> dict[str, Any]:
        rt = TableRuntime("T", Regulation(spectators=policy))
        gen = drive(rt, 1, None)
        for _ in range(20):
            next(gen)
        if released:
            rt.released = {1}
        hands: dict[str, Any] = visible_state(rt, SPECTATOR)["hands"]
        return hands

    assert spectator_hands(SpectatorPolicy(delay_s=0, hands="released"), False) == {}
    assert set(spectator_hands(SpectatorPolicy(delay_s=0, hands="released"), True)) == set("NESW")
    assert set(spectator_hands(SpectatorPolicy(delay_s=30, hands="delayed"), False)) == set("NESW")
    assert spectator_hands(SpectatorPolicy(delay_s=0, hands="delayed"), False) == {}
    assert spectator_hands(SpectatorPolicy(delay_s=30, hands="never"), True) == {}


def test_player_rulings_can_be_switched_off() -> None:
    rt = TableRuntime("T", Regulation(player_rulings=False))
    for _ in drive(rt, 2, "insufficient_bid"):
        if any(i.code == "INSUFFICIENT_BID" and i.open for i in rt.table.irregularities):
            for s in "NESW":
                st = visible_state(rt, Viewer("seat", table="T", seat=s))
                assert st["choices"] == []
                assert not entitled(rt, s, "INSUFFICIENT_BID", "refuse")
            assert visible_state(rt, DIRECTOR)["choices"]
            return
    pytest.fail("no insufficient bid")


def _three_nt(rt: TableRuntime, tricks: int) -> None:
    _apply(rt, {"type": "board", "board": 1, "deal": deal_for(7, 1).to_pbn()})
    for seat, call in [("N", "1NT"), ("E", "Pass"), ("S", "3NT"), ("W", "Pass"), ("N", "Pass"), ("E", "Pass")]:
        _apply(rt, {"type": "call", "seat": seat, "call": call})
    rng = random.Random(1)
    while rt.table.play is None or len(rt.table.play.winners) < tricks or rt.table.play.tricks[-1]:
        step = next_event(rt.table, rng, None)
        assert step is not None
        _apply(rt, step[0])


def test_a_claiming_declarer_faces_his_cards_to_the_table_only() -> None:
    """Laws 68C, 70B: declarer's remaining cards are seen at the table once he claims, never before; not by a
    spectator of a board in play; a defender's concession faces nothing (his partner may object, 68B)."""
    rt = TableRuntime("T", Regulation())
    _three_nt(rt, 2)
    north = visible_state(rt, DIRECTOR)["hands"]["N"]["cards"]
    for s in "EW":
        assert "N" not in visible_state(rt, Viewer("seat", table="T", seat=s))["hands"]
    _apply(rt, {"type": "claim", "seat": "N", "tricks": 9})
    for s in "ESW":
        view = visible_state(rt, Viewer("seat", table="T", seat=s))
        assert view["hands"]["N"] == {"cards": north} and view["claim"]["seat"] == "N"
        assert set(view["hands"]) <= {"N", "S", s}
    assert visible_state(rt, SPECTATOR)["hands"] == {}

    rt = TableRuntime("T", Regulation())
    _three_nt(rt, 2)
    _apply(rt, {"type": "claim", "seat": "E", "tricks": 11})
    for s in "NSW":
        assert "E" not in visible_state(rt, Viewer("seat", table="T", seat=s))["hands"]


def test_a_ruling_the_table_complies_with_is_in_the_view() -> None:
    """An insufficient bid refused: still open until South replaces it, the view says which ruling stands."""
    rt = TableRuntime("T", Regulation())
    _apply(rt, {"type": "board", "board": 2, "deal": deal_for(7, 2).to_pbn()})
    _apply(rt, {"type": "call", "seat": "E", "call": "1H"})
    _apply(rt, {"type": "call", "seat": "S", "call": "1D"})
    assert "ruling" not in visible_state(rt, Viewer("seat", table="T", seat="N"))["irregularities"][0]
    _apply(rt, {"type": "ruling", "code": "INSUFFICIENT_BID", "option": "refuse"})
    for viewer in [DIRECTOR] + [Viewer("seat", table="T", seat=s) for s in "NESW"]:
        irr = visible_state(rt, viewer)["irregularities"][0]
        assert irr["open"] and not irr["awaiting_choice"] and irr["ruling"] == "refuse", (viewer, irr)
    _apply(rt, {"type": "call", "seat": "S", "call": "2D"})
    irr = visible_state(rt, DIRECTOR)["irregularities"][0]
    assert not irr["open"] and "ruling" not in irr
