"""The law engine's state on top of the position: the flags raised, the choices waiting, the revokes and
obligations in force, and whether the board must take the checked path.

:class:`PlayState` holds it with the few operations every rule module needs (raise a flag, take a card
back, hand a card over as a penalty card). The rules themselves are functions of the sibling modules that
take the state as their first argument; ``engine.Play`` ties them together.
"""
from __future__ import annotations

from collections.abc import Sequence

from ..cards import SEATS, Deal, Seat
from ..codes import IrregularityCode
from ..editions import DEFAULT, Edition, edition
from ..irregularity import Irregularity, LeadPenalty, Option
from ..texts import Text
from .errors import PlayRulingError
from .position import SIDE, E, N, Position, S, W
from .records import Obligation, Pending, Revoke


class PlayState(Position):
    """Position plus the law's bookkeeping (see the module docstring)."""

    # class-level defaults, stored on an instance only when they differ (memory per live table)
    edition: Edition = DEFAULT
    _lead13: Seat | None = None         # 2017 53A: trick 13's correct leader after a lead out of turn

    def __init__(self, declarer: Seat, strain: str, deal: Deal | None,
                 lead_penalties: Sequence[LeadPenalty], laws: Edition | str | None = None) -> None:
        Position.__init__(self, declarer, strain, deal)
        if laws is not None and edition(laws) is not DEFAULT:
            self.edition = edition(laws)
        self.irregularities: list[Irregularity] = []
        self._pending: list[Pending] = []
        self._revokes: list[Revoke] = []
        self._open_revokes: list[Revoke] = []
        self._lead_obs: list[Obligation] = []
        self._play_obs: list[Obligation] = []
        self._lps: list[LeadPenalty] = [lp for lp in lead_penalties
                                         if SIDE[Seat(lp.offender)] != self.declarer.side] if lead_penalties else []
        self._had_lead: set[Seat] = set()
        self._replay_last = False                                # 62D after trick 13: replay the forced trick
        self._retracted: Pending | None = None              # 55B2 retraction: window of Law 60B
        self._claimed: Seat | None = None
        self._shown_out: dict[Seat, dict[str, tuple[int, int, str]]] = {N: {}, E: {}, S: {}, W: {}}
        self._retro_done: set[tuple[Seat, str]] = set()
        self._start_flags: list[Irregularity] = []              # choices created when the current trick began
        # True while anything exceptional is in force (pending choices, penalty cards, open revokes, lead
        # restrictions, hands without a record, a trick out of rotation): every card takes the checked path
        self._slow = True

    @property
    def awaiting(self) -> Irregularity | None:
        """The first open irregularity that waits for a choice (declarer's, the defenders', the
        director's); play is not blocked meanwhile (acceptance by action stays possible)."""
        for p in self._pending:
            if p.irr.open:
                return p.irr
        return None

    # ------------------------------------------------------------------ the law modules' view (live, not copies)
    @property
    def choices(self) -> Sequence[Pending]:
        """The choices flagged and not yet known to be settled, oldest first."""
        return self._pending

    def await_choice(self, p: Pending) -> None:
        self._pending.append(p)

    def drop_settled_choices(self) -> None:
        self._pending = [p for p in self._pending if p.irr.open]

    @property
    def open_revokes(self) -> Sequence[Revoke]:
        """Revokes flagged and not yet established or corrected (62, 63)."""
        return self._open_revokes

    def forget_revoke(self, rv: Revoke) -> None:
        """``rv`` is no longer open (its card went back to the hand, or it was settled)."""
        self._open_revokes.remove(rv)

    @property
    def revokes(self) -> Sequence[Revoke]:
        """Every revoke flagged on the board, in order."""
        return self._revokes

    @property
    def lead_obligations(self) -> Sequence[Obligation]:
        """Restrictions on a coming lead (26, 50D2, 51B, 54D ...); spent ones are dropped as tricks begin."""
        return self._lead_obs

    @property
    def play_obligations(self) -> Sequence[Obligation]:
        """Restrictions on a coming play (57A on the offender's partner), for the current trick only."""
        return self._play_obs

    def restrict_lead(self, ob: Obligation) -> None:
        """A rectification restricts a coming lead (26, 50D2, 51B)."""
        self._lead_obs.append(ob)

    def restrict_play(self, ob: Obligation) -> None:
        """A rectification restricts a coming play to the current trick (57A)."""
        self._play_obs.append(ob)

    def lead_complied(self, ob: Obligation) -> None:
        """A lead requirement binds that one lead."""
        self._lead_obs.remove(ob)

    def play_complied(self, ob: Obligation) -> None:
        self._play_obs.remove(ob)

    def end_trick_obligations(self) -> None:
        """A trick is complete: 57A restrictions bound that trick only."""
        self._play_obs.clear()

    def keep_lead_obligations_of(self, leader: Seat) -> None:
        """A trick begins: only a prohibition on ``leader``'s own lead outlasts it (26, 50D2: for as long as he
        retains the lead)."""
        self._lead_obs = [ob for ob in self._lead_obs if ob.seat == leader and ob.kind == "forbid"]

    @property
    def lead_penalties(self) -> Sequence[LeadPenalty]:
        """Law 26 restrictions from the auction not yet offered (the restricted defender has not led)."""
        return self._lps

    def offer_lead_penalty(self, lp: LeadPenalty) -> None:
        """``lp`` is offered to declarer at this lead: no longer waiting."""
        self._lps.remove(lp)

    def first_lead(self, seat: Seat) -> bool:
        """``seat`` is on lead: True when it is his first lead (26: a lead penalty applies at that one only)."""
        if seat in self._had_lead:
            return False
        self._had_lead.add(seat)
        return True

    def undo_first_lead(self, seat: Seat, lp: LeadPenalty) -> None:
        """A trick start was undone: ``seat``'s first lead, and the penalty ``lp`` offered at it, are to come."""
        self._lps.append(lp)
        self._had_lead.discard(seat)

    def begin_trick_flags(self) -> None:
        """A trick begins: choices created from now on belong to its start (``drop_start_flags``)."""
        self._start_flags = []

    def note_start_flag(self, irr: Irregularity) -> None:
        self._start_flags.append(irr)

    @property
    def retracted(self) -> Pending | None:
        """A lead retracted under 55B2 whose Law 60B window is still open."""
        return self._retracted

    def open_retraction_window(self, p: Pending) -> None:
        self._retracted = p

    def set_trick13_leader(self, seat: Seat) -> None:
        """2017 53A: a lead out of turn at trick 13 is not accepted; ``seat`` leads instead."""
        self._lead13 = seat

    @property
    def trick13_leader(self) -> Seat | None:
        return self._lead13

    def clear_trick13_leader(self) -> None:
        del self._lead13

    @property
    def checked_path(self) -> bool:
        """Something exceptional is in force: every card is checked (``_update_slow``)."""
        return self._slow

    @property
    def forced_last_trick(self) -> bool:
        """62D after trick 13: the 13th trick is replayed as forced once the corrected 12th completes."""
        return self._replay_last

    def expect_forced_last_trick(self, forced: bool) -> None:
        self._replay_last = forced

    def record_revoke(self, rv: Revoke, still_open: bool = True) -> None:
        """A revoke flagged (open until established or corrected), or inferred after the fact (``still_open``
        False: it is only transferred at the end)."""
        self._revokes.append(rv)
        if still_open:
            self._open_revokes.append(rv)

    def drop_settled_revokes(self) -> None:
        self._open_revokes = [rv for rv in self._open_revokes if rv.irr.open]

    def shown_out(self, seat: Seat) -> dict[str, tuple[int, int, str]]:
        """Suits ``seat`` has shown out of: suit -> (trick, place, the card he played instead)."""
        return self._shown_out[seat]

    def infer_revoke_once(self, seat: Seat, suit: str) -> bool:
        """True the first time a revoke of ``suit`` by ``seat`` is inferred without a record (never twice)."""
        if (seat, suit) in self._retro_done:
            return False
        self._retro_done.add((seat, suit))
        return True

    def note_inferred_revoke(self, seat: Seat, suit: str) -> None:
        """A revoke of ``suit`` by ``seat`` was flagged directly: the inference must not flag it again."""
        self._retro_done.add((seat, suit))

    def flag(self, out: list[Irregularity], code: IrregularityCode, law: str, seat: Seat | None, trick: int,
              index: int, options: Sequence[Option] = (), detail: str = "", disposition: str | None = None,
              disposition_law: str | None = None) -> Irregularity:
        irr = Irregularity(code=code, law=law, seat=str(seat) if seat is not None else None, phase="play",
                           position={"trick": trick, "card": index}, options=list(options), detail=detail,
                           disposition=disposition, disposition_law=disposition_law)
        self.irregularities.append(irr)
        out.append(irr)
        return irr

    def _update_slow(self) -> None:
        self._pending = [p for p in self._pending if p.irr.open]
        self._slow = bool(self._pending or self._open_revokes or self._lps or self._lead_obs or self._play_obs
                          or self._insert_at is not None or self._claimed is not None or self._retracted
                          or self._replay_last or self._lead13 is not None or any(self._pcs[s] for s in SEATS)
                          or not all(self._known[s] for s in SEATS) or not self._in_rotation())

    def add_penalty_card(self, seat: Seat, card: str, major: bool) -> None:
        """Make ``card`` (held by the defender ``seat``) a penalty card; 50B: two or more are all major."""
        if card in self._played:
            return                                # a card counted as played cannot also lie as a penalty card
        if card not in self._hand[seat]:
            for other in SEATS:
                if other != seat and card in self._hand[other]:
                    # a CARD_ALREADY_PLAYED duplicate was handed back to another seat: a pack holds the card
                    # once (Law 1), and the ruling says the offender played it, so it is his
                    self._take_from(other, card)
                    self._pcs[other].pop(card, None)
                    self._known[other] = self._known[seat] = False
            self._give(seat, card)
        pcs = self._pcs[seat]
        pcs[card] = "major" if major else "minor"
        if len(pcs) >= 2:
            for c in pcs:
                pcs[c] = "major"

    # ------------------------------------------------------------------ taking cards back
    def withdraw(self, seat: Seat, card: str, law: str) -> None:
        """Take ``card`` back out of the current trick into ``seat``'s hand; revokes made with it lapse."""
        trick = self._trick
        if (seat, card) in trick:
            trick.remove((seat, card))
        self.unplay(seat, card)
        for rv in list(self._open_revokes):
            if rv.seat == seat and rv.card == card and rv.trick == len(self.winners) + 1:
                self._open_revokes.remove(rv)
                rv.irr.dispose("card_withdrawn", law)
                if rv.linked is not None and rv.linked.open:
                    rv.linked.dispose("card_withdrawn", law)
        self.recompute_next()

    def withdraw_trick(self, law: str) -> None:
        """Take every card of the current trick back, the last played first: of two plays of one card (a
        CARD_ALREADY_PLAYED duplicate) the earlier goes back to its hand, the later stays counted out."""
        for s, c in reversed(list(self._trick)):
            self.withdraw(s, c, law)
        self._trick.clear()

    def reopen_last_trick(self) -> None:
        """Make the last completed trick current again (its winner is undone); only while the next trick is
        still empty. Choices created when the next trick began are dropped."""
        if self.complete:                     # the 13th trick is still "current": only its winner is undone
            self.winners.pop()
            self._trick = self.tricks[-1]
            self._leader = self._trick[0][0]
            return
        if self._trick or not self.winners:
            raise PlayRulingError(Text("refusal.trick_not_current", "the trick is no longer the current one"))
        self.tricks.pop()
        self.drop_start_flags()
        self.winners.pop()
        self._trick = self.tricks[-1]
        self._leader = self._trick[0][0]

    def drop_start_flags(self) -> None:
        """Choices created when a trick began are dropped when that trick start is undone."""
        for irr in self._start_flags:
            if irr.open and irr in self.irregularities:
                self.irregularities.remove(irr)
                for p in self._pending:
                    if p.irr is irr and "lp" in p.extra:
                        self._lps.append(p.extra["lp"])
                        self._had_lead.discard(p.offender)
        self._pending = [p for p in self._pending if p.irr not in self._start_flags]
        self._start_flags = []
