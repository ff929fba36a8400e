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
    trick = st.current_trick
    lead = idx == 0
    was_pc = card in st.face_up(seat)
    if checks:
        check_card(st, seat, card, idx, lead, was_pc, out)
    if st.open_revokes:
        establish_by_play(st, seat, n)
    st.lay_card(seat, card, idx, was_pc)
    # show-outs and revokes detected afterwards, for seats without a trusted hand record
    if not st.hand_known(seat):
        note_show_out(st, seat, card, n, idx, out)
    elif not lead:
        ls = trick[0][1][0]
        shown = st.shown_out(seat)
        if card[0] != ls and not st.suit_count(seat, ls) and ls not in shown:
            shown[ls] = (n, idx, card)      # void per the record (kept if the record fails later)
    for ob in list(st.play_obligations):
        if ob.seat == seat:
            st.play_complied(ob)
    st.recompute_next()
    if len(trick) == 4:
        lead13 = st.trick13_leader
        if lead13 is not None:
            # 2017 53A: trick 13 is counted as led from the correct hand (each hand held one card)
            k = next(i for i, (s, _) in enumerate(trick) if s == lead13)
            trick[:] = trick[k:] + trick[:k]
            st.clear_trick13_leader()
        complete_trick(st, out)


def complete_trick(st: PlayState, out: list[Irregularity]) -> None:
    """The current trick has four cards: its winner, then the next trick's start (or the end of play)."""
    more = st.close_trick()
    if st.play_obligations:
        st.end_trick_obligations()
    if more:
        if st.checked_path:
            trick_start(st, out)
            if st.forced_last_trick and len(st.winners) == 12:
                _replay_forced_last(st, out)
    else:
        for p in st.choices:                  # choices about later leads are moot once play is over
            if p.irr.open and p.irr.code in (IrregularityCode.LEAD_PENALTY_PENDING, IrregularityCode.PENALTY_CARD):
                p.irr.dispose("lapsed_end_of_play", p.irr.law)


def _replay_forced_last(st: PlayState, out: list[Irregularity]) -> None:
    """62D after trick 13 was played: the corrected 12th trick is complete; the 13th is forced."""
    st.expect_forced_last_trick(False)
    if all(len(st.holding(s)) == 1 for s in SEATS):
        s = st.leader
        for _ in range(4):
            c = next(iter(st.holding(s)))
            place(st, s, c, len(st.current_trick), out, checks=False)
            s = LHO[s]
