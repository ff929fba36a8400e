"""Counting a card into the current trick on the checked path, and what follows when a trick completes
(the next trick's lead choices; after a Law 62D correction the forced 13th trick)."""
from __future__ import annotations

from ..cards import SEATS, Seat
from ..codes import IrregularityCode
from ..irregularity import Irregularity
from .checks import check_card
from .lead_choices import trick_start
from .position import LHO
from .revokes import establish_by_play, note_show_out
from .state import PlayState


def place(st: PlayState, seat: Seat, card: str, idx: int, out: list[Irregularity], checks: bool) -> None:
    """Count ``card`` at place ``idx`` of the current trick (checked first when ``checks``)."""
    n = len(st.winners) + 1
    trick = st._trick
    lead = idx == 0
    was_pc = card in st._pcs[seat]
    if checks:
        check_card(st, seat, card, idx, lead, was_pc, out)
    if st._open_revokes:
        establish_by_play(st, seat, n)
    # bookkeeping
    hand = st._hand[seat]
    if card in hand:
        hand.remove(card)
        st._cnt[seat][card[0]] -= 1
    if was_pc:
        del st._pcs[seat][card]
    st._played.add(card)
    trick.insert(idx, (seat, card))
    # show-outs and revokes detected afterwards, for seats without a trusted hand record
    if not st._known[seat]:
        note_show_out(st, seat, card, n, idx, out)
    elif not lead:
        ls = trick[0][1][0]
        if card[0] != ls and not st._cnt[seat][ls] and ls not in st._shown_out[seat]:
            st._shown_out[seat][ls] = (n, idx, card)      # void per the record (kept if the record fails later)
    for ob in list(st._play_obs):
        if ob.seat == seat:
            st._play_obs.remove(ob)
    st.recompute_next()
    if len(trick) == 4:
        if st._lead13 is not None:
            # 2017 53A: trick 13 is counted as led from the correct hand (each hand held one card)
            k = next(i for i, (s, _) in enumerate(trick) if s == st._lead13)
            trick[:] = trick[k:] + trick[:k]
            del st._lead13
        complete_trick(st, out)


def complete_trick(st: PlayState, out: list[Irregularity]) -> None:
    """The current trick has four cards: its winner, then the next trick's start (or the end of play)."""
    more = st.close_trick()
    if st._play_obs:
        st._play_obs.clear()
    if more:
        if st._slow:
            trick_start(st, out)
            if st._replay_last and len(st.winners) == 12:
                _replay_forced_last(st, out)
    else:
        for p in st._pending:                  # choices about later leads are moot once play is over
            if p.irr.open and p.irr.code in (IrregularityCode.LEAD_PENALTY_PENDING, IrregularityCode.PENALTY_CARD):
                p.irr.dispose("lapsed_end_of_play", p.irr.law)


def _replay_forced_last(st: PlayState, out: list[Irregularity]) -> None:
    """62D after trick 13 was played: the corrected 12th trick is complete; the 13th is forced."""
    st._replay_last = False
    if all(len(st._hand[s]) == 1 for s in SEATS):
        s = st._leader
        for _ in range(4):
            c = next(iter(st._hand[s]))
            place(st, s, c, len(st._trick), out, checks=False)
            s = LHO[s]
