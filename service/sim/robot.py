"""Scripted players for simulated tables: the next event a table needs, from its state alone.

``next_event(table, rng, fault)`` looks at the engine's ``Table`` and returns the next call, card or claim
response as event JSON — the call of the player whose turn it is, a legal card of the player to play —
or ``None`` when the board needs nothing from the players (complete, or nobody to act). Because it keeps no
memory, a simulated table resumes after a restart from the replayed journal alone.

The bidding is simple and natural (open 1 of the longest suit with 12+ points, 1NT with 15-17 balanced,
raise or bid a long suit with a fit or values, stop at the four level); a 1NT opening is alerted with its range
written for the opponents (Law 20F), so that alerts and their explanations run through the evening, the pages
and the exports as a real table's would; the play follows suit, wins
cheaply when it can, discards low. ``fault`` asks for one seeded irregularity at its first chance:
``insufficient_bid``, ``lead_out_of_turn`` (the opening lead by the wrong defender) or ``revoke``.
Not modelled: conventions, doubles, claims, thinking.
"""
from __future__ import annotations

import random
from typing import Any

from service.live.visibility import declarer_of, remaining_hand
from table.calls import PASS, STRAINS, bid_key, bid_level, bid_strain, is_bid
from table.cards import CARD_RANK, SEATS, Seat
from table.machine import Table

FAULTS = ("insufficient_bid", "lead_out_of_turn", "revoke")
# the robots' alerted openings and what they write for the opponents: figures only, read alike on every language's page
OPENING_EXPLANATIONS = {"1NT": "15-17"}
HCP = {"A": 4, "K": 3, "Q": 2, "J": 1}


def _hcp(cards: list[str]) -> int:
    return sum(HCP.get(c[1], 0) for c in cards)


def _lengths(cards: list[str]) -> dict[str, int]:
    return {s: sum(1 for c in cards if c[0] == s) for s in "SHDC"}


def _lowest_sufficient(last: str | None, strain: str) -> str:
    if last is None:
        return f"1{strain}"
    lvl = bid_level(last)
    cand = f"{lvl}{strain}"
    return cand if bid_key(cand) > bid_key(last) else f"{lvl + 1}{strain}"


def choose_call(t: Table, seat: Seat, rng: random.Random, fault: str | None = None) -> tuple[str, bool]:
    """(call, seeded) for ``seat``; ``seeded`` is True when the call is the requested irregularity."""
    a = t.auction
    if a is not None and seat in a.obligations:
        return PASS, False
    stood = [e for e in (a.stood if a else []) if e.effective]
    last_bid = next((e for e in reversed(stood) if is_bid(e.effective)), None)
    last = last_bid.effective if last_bid else None
    if fault == "insufficient_bid" and last is not None and bid_level(last) <= 6 and last != "1C":
        lower = [f"{lv}{s}" for lv in range(1, 8) for s in STRAINS if bid_key(f"{lv}{s}") < bid_key(last)]
        return rng.choice(lower[-3:]), True
    cards = remaining_hand(t, str(seat))
    pts, lens = _hcp(cards), _lengths(cards)
    longest = max("SHDC", key=lambda s: (lens[s], "CDHS".index(s)))
    mine = [e for e in stood if e.seat == seat and is_bid(e.effective)]
    partner = [e for e in stood if e.seat == seat.partner and is_bid(e.effective)]
    if len(mine) >= 2 or (last is not None and bid_level(last) >= 4):
        return PASS, False
    if last is None:
        if 15 <= pts <= 17 and max(lens.values()) <= 5 and min(lens.values()) >= 2:
            return "1NT", False
        if pts >= 12 or (pts >= 10 and lens[longest] >= 6):
            return f"1{longest}", False
        return PASS, False
    if partner:
        ps = bid_strain(partner[-1].effective)
        if pts >= 6 and ps != "NT" and lens[ps] >= 3:
            target = _lowest_sufficient(last, ps)
            if pts >= 13 and bid_level(target) < 4:
                target = f"{4 if ps in 'SH' else min(5, bid_level(target) + 1)}{ps}"
                if bid_key(target) <= bid_key(last):
                    return PASS, False
            return (target, False) if bid_level(target) <= 4 else (PASS, False)
        if pts >= 8 and not mine:
            strain = longest if lens[longest] >= 5 else "NT"
            target = _lowest_sufficient(last, strain)
            return (target, False) if bid_level(target) <= 3 else (PASS, False)
        return PASS, False
    if last_bid is not None and last_bid.seat.side != seat.side and pts >= 10 and lens[longest] >= 5 and not mine:
        target = _lowest_sufficient(last, longest)
        return (target, False) if bid_level(target) <= 2 else (PASS, False)
    return PASS, False


def _winning(trick: list[tuple[Seat, str]], trump: str | None) -> tuple[Seat, str]:
    lead = trick[0][1][0]
    best = trick[0]
    for s, c in trick[1:]:
        b = best[1]
        if c[0] == b[0] and CARD_RANK[c] > CARD_RANK[b]:
            best = (s, c)
        elif trump and c[0] == trump and b[0] != trump:
            best = (s, c)
        elif c[0] == lead and b[0] not in (lead, trump):
            best = (s, c)
    return best


def choose_card(t: Table, seat: Seat, rng: random.Random, fault: str | None = None) -> tuple[str, bool]:
    p = t.play
    hand = remaining_hand(t, str(seat))
    contract = t.contract
    trump = p.trump if p is not None else (None if contract is None or contract.strain == "NT" else contract.strain)
    trick = list(p.tricks[len(p.winners)]) if p is not None and len(p.tricks) > len(p.winners) else []
    pcs = p.penalty_cards(seat) if p is not None else {}
    if not trick:
        major = [c for c, k in pcs.items() if k == "major" and c in hand]
        if major:
            return major[0], False
        lens = _lengths(hand)
        suits = [s for s in "SHDC" if lens[s] and s != trump] or [s for s in "SHDC" if lens[s]]
        suit = max(suits, key=lambda s: (lens[s], rng.random()))
        in_suit = sorted((c for c in hand if c[0] == suit), key=CARD_RANK.__getitem__, reverse=True)
        touching = len(in_suit) >= 2 and CARD_RANK[in_suit[0]] - CARD_RANK[in_suit[1]] == 1
        return in_suit[0] if touching else in_suit[-1], False
    lead = trick[0][1][0]
    follow = sorted((c for c in hand if c[0] == lead), key=CARD_RANK.__getitem__)
    if fault == "revoke" and follow and len(follow) < len(hand):
        other = [c for c in hand if c[0] != lead]
        return rng.choice(other), True
    due = [c for c, k in pcs.items() if c in hand and (c[0] == lead or not follow)]
    if due:
        return due[0], False
    win_seat, win_card = _winning(trick, trump)
    partner_winning = win_seat == seat.partner
    if follow:
        if partner_winning:
            return follow[0], False
        beat = [c for c in follow if win_card[0] == lead and CARD_RANK[c] > CARD_RANK[win_card]]
        return (beat[0] if beat else follow[0]), False
    trumps = sorted((c for c in hand if trump and c[0] == trump), key=CARD_RANK.__getitem__)
    if trumps and not partner_winning:
        over = [c for c in trumps if win_card[0] != trump or CARD_RANK[c] > CARD_RANK[win_card]]
        if over:
            return over[0], False
    rest = (sorted((c for c in hand if c[0] != trump), key=CARD_RANK.__getitem__)
            or sorted(hand, key=CARD_RANK.__getitem__))
    return rest[0], False


def next_event(t: Table, rng: random.Random, fault: str | None = None) -> tuple[dict[str, Any], bool] | None:
    """(event JSON, seeded) for the next player action, or None. ``seeded`` tells the caller that the fault
    it asked for was committed."""
    if t.board is None or t.state in ("idle", "board_complete"):
        return None
    if t.claim is not None and t.tricks is None:
        opponents = [s for s in SEATS if s.side != t.claim.seat.side and s not in t.claim_responses]
        if opponents:
            return {"type": "claim_response", "seat": str(opponents[0]), "accept": True}, False
        return None
    a = t.auction
    if t.contract is None and not t.passed_out:
        seat = a.next_seat if a is not None else t.board.dealer
        call, seeded = choose_call(t, seat, rng, fault if fault == "insufficient_bid" else None)
        event: dict[str, Any] = {"type": "call", "seat": str(seat), "call": call}
        opening = a is None or not any(e.effective and is_bid(e.effective) for e in a.stood)
        if opening and call in OPENING_EXPLANATIONS:
            event |= {"alert": True, "explanation": OPENING_EXPLANATIONS[call]}
        return event, seeded
    if t.passed_out:
        return None
    p = t.play
    if p is None:
        d = declarer_of(t)
        if d is None:
            return None
        leader = Seat(d).lho
        if fault == "lead_out_of_turn":
            wrong = leader.partner
            card, _ = choose_card(t, wrong, rng)
            return {"type": "card", "seat": str(wrong), "card": card}, True
        card, _ = choose_card(t, leader, rng)
        return {"type": "card", "seat": str(leader), "card": card}, False
    if p.complete:
        return None
    seat = p.next_seat
    if not remaining_hand(t, str(seat)):
        return None
    card, seeded = choose_card(t, seat, rng, fault if fault == "revoke" else None)
    return {"type": "card", "seat": str(seat), "card": card}, seeded
