"""The play period (Laws 41-71): follow every card, flag every irregularity the moment it happens.

Pure logic, no I/O. :class:`Play` receives the physical card events of one board (``card``; dummy's
cards carry dummy's seat), exposures (``expose``), explicit choices (``ruling``) and the end of play
(``claim_made``, ``finish``). Nothing is refused: an illegal event is recorded, flagged as an
:class:`~table.irregularity.Irregularity` (law as the 1997 WBF / 1999 CBA edition numbers it, seat,
``phase="play"``, ``position={"trick": n, "card": k}`` with ``n`` 1-based and ``k`` 0-based in play order,
and the options the law gives and to whom), and the play goes on as the laws say:

* acceptance by action: a lead out of turn is accepted when the next hand in rotation plays to it (53A);
  the non-offending side playing on after an irregular play forfeits the right to penalize (60A1); declarer
  playing on after a defender failed to play a penalty card must accept the card (52B1);
* explicit choices: ``ruling(code, option, seat)`` applies an option (declarer's 54/56/57/50D2/26/52
  choices, the defenders' 55 choices, the offender's revoke correction 62, the director's 64B4/64B5).

The package splits the work: ``position`` (where the cards are), ``state`` (the law's bookkeeping),
``checks`` (irregularities in a card), ``acceptance`` (a card's effect on waiting choices), ``lead_choices``
(26 and 50D2 at the start of a trick), ``counting`` (a card into the trick on the checked path), ``rulings``
(the options applied), ``revokes`` (61-64 with the transfer at the end).

Model of a trick: each seat plays one card to a trick; a card played out of rotation by a seat that has not
played yet is counted in the trick (the law lets it stand or be withdrawn later), the rotation then continues
from the lead with the seats that have not played. A second card by a seat that has already played to the
trick is not counted (45E, 58B, 57A premature lead): for a defender it becomes a penalty card.

Performance: a legal card on the usual path (``run_cards``; ``card`` lays a run of one) costs one dict
look-up for the hand, one for the suit count and a list append; every exceptional state (pending choices,
penalty cards, open revokes, lead restrictions, hands without a record, a trick played out of rotation)
switches the board to the checked path; ``finish`` without any revoke skips the Law 64 computation.

Not decided from card events (director input or another module): a face-down lead (41A), designations of
dummy's cards (45C4b, 45D, 46), retractions after misinformation (47E), dummy's rights (43), illegal revoke
inquiries (61B, 63B), which of several cards was "visible" (58B: the first read is kept), whether a card
played by the correct leader just after a lead out of turn by his RHO was a proper lead (53C) rather
than a play to it (53A is assumed), an omitted play (67: it shows as a trick that never completes and an
extra card; a card left after 13 tricks is flagged DEFECTIVE_TRICK), the 62C withdrawal of cards played
after a revoke inside the revoke trick, 62D2, 64B4/64B5 (director's ruling), 64C equity, the claim
adjudication of Laws 68-71. Dummy's own initiative (57C) is not visible either.
"""
from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from ..cards import CARD_SET, HONORS, Deal, Seat, parse_card, sort_cards
from ..codes import IrregularityCode
from ..editions import Edition
from ..irregularity import Irregularity, LeadPenalty, Option
from ..texts import Text
from .acceptance import resolve_pending
from .checks import extra_card, irregular_lead, out_of_turn_play
from .claims import play_after_claim
from .counting import place
from .errors import PlayRulingError
from .lead_choices import check_50d2, trick_start
from .position import LHO, PARTNER, SIDE
from .records import Revoke
from .revokes import REVOKE_CODES, establish_on_claim, transfers
from .revokes import rule as rule_on_revoke
from .rulings import RULINGS, check_chooser
from .state import PlayState

log = logging.getLogger(__name__)
CORRECT_FROM_RECORD = Text("play.13a1", "13A1: correct from the hand record")


class _Card:
    """A card event for ``run_cards`` (``card`` lays its card as a run of one)."""

    __slots__ = ("seat", "card")

    def __init__(self, seat: Seat, card: str) -> None:
        self.seat, self.card = seat, card


class Play(PlayState):
    """The play of one board, card by card (see the module docstring)."""

    def __init__(self, declarer: Seat, strain: str, deal: Deal | None = None,
                 lead_penalties: Sequence[LeadPenalty] = (), laws: Edition | str | None = None) -> None:
        # (a direct call costs less than super())
        PlayState.__init__(self, declarer, strain, deal, lead_penalties, laws)
        if self._lps:
            trick_start(self, [])
            self._update_slow()
        else:
            self._slow = not all(self._known.values())

    # ------------------------------------------------------------------ the card event
    def card(self, seat: Seat, card: str) -> list[Irregularity]:
        """Apply one played card; returns the irregularities flagged by it (usually none)."""
        if not self._slow and self.run_cards((_Card(seat, card),), 0, _Card):
            return []
        return self._card_slow(seat, card)

    def run_cards(self, events: Sequence[Any], i: int, card_cls: type) -> int:
        """Lay ``events[i:]`` on the usual path while each is a ``card_cls`` event (with ``seat`` and ``card``)
        that needs no check beyond following suit: the seat whose turn it is, a held card, suit followed,
        nothing exceptional in force (``_slow``). Returns the index of the first event not laid (always
        stopping after the 13th trick). ``card`` is a run of one; a batch replay passes a whole record."""
        if self._slow:
            return i
        hand_of, cnt_of, played = self._hand, self._cnt, self._played
        # the current trick, whose turn it is and the suit led, kept in locals inside a trick (nothing else
        # runs meanwhile), stored back before a trick closes and when the run ends
        trick, turn, lead_suit = self._trick, self._next, self._lead_suit
        n = len(events)
        while i < n:
            e = events[i]
            cls = e.__class__              # (compared through a name: ``e.__class__ is`` would narrow e to object)
            if cls is not card_cls:
                break
            seat, card = e.seat, e.card
            hand = hand_of[seat]
            if seat is not turn or card not in hand:
                break
            suit = card[0]
            cnt = cnt_of[seat]
            if not trick:
                lead_suit = suit
            elif suit != lead_suit and cnt[lead_suit]:
                break                      # a revoke: the checked path flags it
            hand.remove(card)
            cnt[suit] -= 1
            played.add(card)
            trick.append((seat, card))
            i += 1
            if len(trick) == 4:
                # what ``counting.complete_trick`` does when nothing exceptional is in force
                self._next, self._lead_suit = turn, lead_suit
                if not self.close_trick():
                    return i
                trick, turn, lead_suit = self._trick, self._next, self._lead_suit
            else:
                turn = LHO[seat]
        self._next, self._lead_suit = turn, lead_suit
        return i

    # ------------------------------------------------------------------ the checked path
    def _card_slow(self, seat: Seat, card: str) -> list[Irregularity]:
        out: list[Irregularity] = []
        self._slow = True
        seat = Seat(str(seat).strip().upper()[:1])
        if card not in CARD_SET:
            card = parse_card(card)                   # a malformed card is an input error, not an irregularity
        n = len(self.winners) + 1
        trick = self._trick
        here = len(trick) if not self.complete else 0
        if self._claimed is not None:
            return self.card_after_claim(seat, card)
        if self.complete:
            if card in self._played:
                self.flag(out, IrregularityCode.CARD_ALREADY_PLAYED, "1", seat, 13, 4, [],
                           Text("play.after_trick13_again", "{card} reported by {seat} after trick 13; it was played "
                                "before (repeated read or a recording error); ignored", card=card, seat=seat))
            else:
                self.flag(out, IrregularityCode.DEFECTIVE_TRICK, "67B", seat, 13, 4,
                           [Option("director", Text("play.67b1_omitted", "67B1: the player who kept a card omitted "
                                                    "a play to an earlier trick"), "director")],
                           Text("play.card_left", "{seat} still had {card} after 13 tricks: a play was omitted (or the "
                                "record is wrong)", seat=seat, card=card))
            return out

        # ---- identity of the card
        if card in self._played:
            mine = any(s == seat for s, _ in trick) or (
                not trick and self.winners and (seat, card) in self.tricks[len(self.winners) - 1])
            if mine:
                # a repeated report of a card this seat already played to this (or the just completed) trick
                self.flag(out, IrregularityCode.CARD_ALREADY_PLAYED, "1", seat, n, here, [],
                           Text("play.repeated_read", "{card} reported again by {seat}: repeated read; ignored",
                                card=card, seat=seat))
                self._update_slow()
                return out
            # Law 1: a pack holds 52 different cards, so a card cannot be played twice. Either the pack is
            # defective (Laws 1, 13, 14) or the event/record is wrong; only the director can tell. The card is
            # counted as this seat's play so the trick structure (and everything after it) stays usable, and
            # the seat's hand record is no longer trusted (no revoke is inferred from it).
            self.flag(out, IrregularityCode.CARD_ALREADY_PLAYED, "1", seat, n, here,
                       [Option("director", Text("play.establish_card", "establish which card was really played "
                                                "(Laws 1, 13, 14, 67)"), "director")],
                       Text("play.already_played", "{card} was already played earlier; counted as {seat}'s card to "
                            "keep the trick", card=card, seat=seat))
            self._known[seat] = False
        elif card not in self._hand[seat]:
            owner = self._owner.get(card)
            if owner is not None and owner != seat:
                self.flag(out, IrregularityCode.HAND_RECORD_MISMATCH, "13A1", seat, n, here,
                           [Option("director", Text("play.13a1_or_fouled", "13A1: correct from the hand record, or "
                                                    "score as a fouled board (87)"), "director")],
                           Text("play.other_players_card", "{seat} played {card}, which the hand record gives to "
                                "another player; accepted as played", seat=seat, card=card))
                self._take_from(owner, card)
                self._pcs[owner].pop(card, None)
                self._set_owner(card, seat)
                self._known[seat] = self._known[owner] = False
            elif self._known[seat]:
                self.flag(out, IrregularityCode.HAND_RECORD_MISMATCH, "13A1", seat, n, here,
                           [Option("director", CORRECT_FROM_RECORD, "director")],
                           Text("play.not_in_recorded_hand", "{seat} played {card}, which is not in his recorded hand; "
                                "accepted as played", seat=seat, card=card))
                self._known[seat] = False
            if card not in self._hand[seat]:
                self._give(seat, card)                # he physically held it: bookkeeping follows the event
                self._set_owner(card, seat)

        # ---- acceptance by action and other effects of this card on pending choices
        suppress_oot = resolve_pending(self, seat, card, out)
        trick = self._trick

        # ---- classification
        if self._insert_at is not None and seat == self._insert_at[0]:
            idx = self._insert_at[1]
            self._insert_at = None
            place(self, seat, card, idx, out, checks=True)
        elif not trick:
            if seat == self._next:
                self._retracted = None
                place(self, seat, card, 0, out, checks=True)
            elif irregular_lead(self, seat, card, out):
                place(self, seat, card, 0, out, checks=False)
        elif any(s == seat for s, _ in trick):
            extra_card(self, seat, card, out)
        elif seat == self._next or suppress_oot:
            place(self, seat, card, len(trick), out, checks=True)
        elif out_of_turn_play(self, seat, card, out):
            place(self, seat, card, len(trick), out, checks=True)
        self._update_slow()
        return out

    # ------------------------------------------------------------------ exposures
    def expose(self, seat: Seat, cards: Sequence[str], deliberate: bool) -> list[Irregularity]:
        """A defender's card(s) exposed other than by playing them (Laws 24, 49): penalty cards, minor for a
        single inadvertent 9-or-lower, else major (50B). Declarer's and dummy's cards never (48A)."""
        out: list[Irregularity] = []
        seat = Seat(str(seat).strip().upper()[:1])
        if not self.is_defender(seat):
            log.debug("exposure by %s ignored: declarer's and dummy's cards are never penalty cards (48A)", seat)
            return out
        n = len(self.winners) + 1
        new = []
        for c in cards:
            c = parse_card(c) if c not in CARD_SET else c
            if c in self._played or c in self._pcs[seat]:
                continue
            owner = self._owner.get(c)
            if owner is not None and owner != seat:
                self.flag(out, IrregularityCode.HAND_RECORD_MISMATCH, "13A1", seat, n, len(self._trick),
                           [Option("director", CORRECT_FROM_RECORD, "director")],
                           Text("play.exposed_other_players", "{seat} exposed {card}, which the hand record gives to "
                                "another player", seat=seat, card=c))
                self._take_from(owner, c)
                self._set_owner(c, seat)
                self._known[seat] = self._known[owner] = False
            major = deliberate or c[1] in HONORS
            self.add_penalty_card(seat, c, major)
            new.append(c)
        if new:
            detail = Text("play.exposed", "{seat} exposed {cards}: penalty card(s) (", seat=seat,
                          cards=" ".join(sort_cards(new)))
            for i, c in enumerate(sort_cards(new)):
                detail += (", " if i else "") + (Text("play.penalty_major", "{card} major", card=c)
                                                 if self._pcs[seat][c] == "major" else
                                                 Text("play.penalty_minor", "{card} minor", card=c))
            detail += "; 50B" + (Text("play.all_major", "; two or more penalty cards are all major")
                                 if len(self._pcs[seat]) >= 2 else "") + ")"
            self.flag(out, IrregularityCode.EXPOSED_CARD, "49", seat, n, len(self._trick), [], detail,
                       "penalty_card", "50B")
            check_50d2(self, out)
        self._update_slow()
        return out

    # ------------------------------------------------------------------ explicit choices
    def ruling(self, code: str, option: str, seat: Seat | None = None) -> list[Irregularity]:
        """Apply a choice the law offers for an open irregularity (``option`` is one of its
        ``Option.code``); ``seat`` is who chose, checked against the option's chooser when given."""
        out: list[Irregularity] = []
        who = Seat(str(seat).strip().upper()[:1]) if seat is not None else None
        if code in REVOKE_CODES:
            rule_on_revoke(self, code, option, who)
            self._update_slow()
            return out
        p = next((p for p in reversed(self._pending) if p.irr.code == code and p.irr.open), None)
        if p is None:
            done = [i for i in self.irregularities if i.code == code]
            why = Text("refusal.disposed_of", " (it was disposed of: {disposition})",
                       disposition=done[-1].disposition) if done and done[-1].disposition else ""
            raise PlayRulingError(Text("refusal.no_choice_waiting", "no open {code} waiting for a choice",
                                       code=code) + why)
        irr = p.irr
        opt = next((o for o in irr.options if o.code == option), None)
        if opt is None:
            raise PlayRulingError(Text("refusal.not_an_option_among", "'{option}' is not an option for {code}; "
                                       "the options are {options}", option=option, code=code,
                                       options=", ".join(o.code for o in irr.options)))
        check_chooser(self, opt, who, code)
        p.extra["chooser_seat"] = who
        RULINGS[code](self, p, option, out)
        self._update_slow()
        return out

    # ------------------------------------------------------------------ claims and the end of play
    def claim_made(self, claimer: Seat, acquiesced: bool = True) -> None:
        """A claim or concession (68): play ceases. 63A3: a revoke not yet established becomes established
        when a member of the offending side makes the claim, or acquiesces in the opponents' claim
        (``acquiesced=False`` when the opponents disputed it)."""
        c = claimer if claimer.__class__ is Seat else Seat(str(claimer).strip().upper()[:1])
        self._claimed = c
        establish_on_claim(self, c, acquiesced)
        self._update_slow()

    def card_after_claim(self, seat: Seat, card: str) -> list[Irregularity]:
        """A card after a claim, or after the play has ended: flagged, never counted (68D)."""
        n = len(self.winners) + 1
        irr = play_after_claim(seat, card, self._claimed,
                               {"trick": n, "card": len(self._trick) if not self.complete else 0})
        self.irregularities.append(irr)
        return [irr]

    def add_lead_penalties(self, penalties: Sequence[LeadPenalty]) -> None:
        """Law 26 restrictions that arrive once the play has begun (a late Law 23 ruling): they apply if the
        restricted defender has not had his first lead yet."""
        for lp in penalties:
            if SIDE[Seat(lp.offender)] != self.declarer.side and Seat(lp.restricted) not in self._had_lead:
                self._lps.append(lp)
                if not self._trick and self._leader == Seat(lp.restricted):
                    self._had_lead.discard(self._leader)
                    trick_start(self, [])
        self._update_slow()

    def omitted_play(self, seat: Seat, trick: int, held_suit: bool) -> list[Irregularity]:
        """Law 67B1, the director's finding: ``seat`` omitted to play to ``trick`` (the card he places there
        is in the record). Holding the suit led: 1997 no penalty; 2017 67B1(a) a deemed revoke costing one
        trick (64A2, switch ``law67B1a_deemed_revoke``). Void: a deemed revoke in both editions."""
        out: list[Irregularity] = []
        seat = Seat(str(seat).strip().upper()[:1])
        if not 1 <= trick <= len(self.winners):
            raise PlayRulingError(Text("refusal.not_a_completed_trick", "trick {trick} is not a completed trick",
                                       trick=trick))
        deemed = not held_suit or self.edition.law67B1a_deemed_revoke
        law = "67B1" if not self.edition.comparable_call else ("67B1(a)" if held_suit else "67B1(b)")
        idx = next((i for i, (s, _) in enumerate(self.tricks[trick - 1]) if s == seat), 0)
        irr = self.flag(out, IrregularityCode.DEFECTIVE_TRICK, law, seat, trick, idx, [],
                         (Text("play.omitted_holding", "{seat} omitted to play to trick {trick} holding the suit "
                               "led", seat=seat, trick=trick) if held_suit else
                          Text("play.omitted_void", "{seat} omitted to play to trick {trick} with none of the suit "
                               "led", seat=seat, trick=trick))
                         + (Text("play.omitted_deemed", "; deemed to have revoked: one trick (64A2)") if deemed else
                            Text("play.omitted_placed", "; the card placed there, no penalty")),
                         "deemed_revoke" if deemed else "no_penalty", law)
        if deemed:
            card = self.tricks[trick - 1][idx][1] if self.tricks[trick - 1] else ""
            rv = Revoke(irr, seat, trick, card, card[:1], frozenset(), False, False, "deemed")
            self._revokes.append(rv)
            irr.disposition = "established"
        return out

    def resume_after_claim(self) -> None:
        """The director lets play continue after a claim (for instance a disputed claim under a regulation
        that suspends play): later cards are followed again instead of flagged PLAY_AFTER_CLAIM (claims.py)."""
        self._claimed = None
        self._update_slow()

    def finish(self, claimed_total: int | None = None) -> int:
        """Declarer side's final total of tricks after the Law 64 transfers. With a claim, ``claimed_total``
        is declarer side's agreed total: the tricks not played are attributed by it. Each established revoke
        is recorded as a ``REVOKE_TRICK_TRANSFER`` (64A1/64A2 with ``tricks_transferred=N`` in the detail,
        or an exemption 64B1..6 with 0). Calling it again recomputes (the previous records are replaced)."""
        if self._revokes:
            return transfers(self, claimed_total)
        # no revoke was ever flagged (every open one is also in _revokes): nothing to transfer and no
        # earlier transfer record to replace; only a claim's unplayed tricks are attributed
        self.irregularities = self.irregularities[:]          # a fresh list, as the full path gives
        winners = self.winners
        total = winners.count(self.declarer) + winners.count(PARTNER[self.declarer])
        if claimed_total is not None:
            total += min(max(int(claimed_total) - total, 0), 13 - len(winners))
        return total
