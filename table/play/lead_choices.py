"""Declarer's choices due before a defender leads: the Law 26 lead penalty at the first lead of a seat whose
partner's call was withdrawn, and the Law 50D2 / 51B choice when the leader's partner has a major penalty
card. Both are flagged when a trick begins (or when a penalty card appears before the lead)."""
from __future__ import annotations

from ..cards import SUITS, Seat
from ..codes import IrregularityCode
from ..irregularity import Irregularity, Option
from ..texts import Text
from .position import PARTNER
from .records import Pending
from .state import PlayState


def trick_start(st: PlayState, out: list[Irregularity]) -> None:
    """A trick begins with ``st.leader`` on lead: clear spent lead obligations; first lead of a seat
    restricted by Law 26; Law 50D2 choice when the leader's partner has a major penalty card."""
    leader = st.leader
    n = len(st.winners) + 1
    st.begin_trick_flags()
    st.keep_lead_obligations_of(leader)
    for p in st.choices:
        if p.irr.open and p.irr.code == IrregularityCode.PENALTY_CARD and p.offender != leader:
            p.irr.dispose("lapsed", p.irr.law)
            p.irr.detail += Text("play.did_not_lead", "; {seat} did not lead that trick", seat=p.offender)
        elif p.irr.open and p.irr.code == IrregularityCode.LEAD_PENALTY_PENDING and p.offender != leader:
            # somebody else's lead stood (e.g. an accepted lead out of turn): the restricted player has not
            # had his first lead yet, so the Law 26 choice waits for it (flagged again then)
            p.irr.dispose("deferred", p.irr.law)
            p.irr.detail += Text("play.did_not_lead_waits", "; {seat} did not lead that trick: the choice waits for "
                                 "his first lead", seat=p.offender)
            st.undo_first_lead(p.offender, p.extra["lp"])
    if not st.is_defender(leader):
        return
    if st.first_lead(leader):
        _first_lead(st, leader, n, out)
    check_50d2(st, out)


def _first_lead(st: PlayState, leader: Seat, n: int, out: list[Irregularity]) -> None:
    for lp in [lp for lp in st.lead_penalties if Seat(lp.restricted) == leader]:
        st.offer_lead_penalty(lp)
        related = lp.suits if lp.law.upper().startswith("26A") else frozenset()
        choices = st.edition.lead_options(related, lp.specified)
        law = choices[0][1] if choices else "26B"
        prohibit = st.edition.lead_restriction_law == "26B"
        opts = [Option(code, Text("play.require_lead", "require the lead of {suit} ({law})", suit=code[-1], law=lw)
                       if code.startswith("require") else
                       Text("play.prohibit_lead", "prohibit the lead of {suit} while {leader} keeps the lead ({law})",
                            suit=code[-1], leader=leader, law=lw) if prohibit else
                       Text("play.forbid_lead", "forbid the lead of {suit} while {leader} keeps the lead ({law})",
                            suit=code[-1], leader=leader, law=lw), "declarer") for code, lw in choices]
        opts.append(Option("none", Text("play.no_lead_restriction", "no lead restriction"), "declarer"))
        irr = st.flag(out, IrregularityCode.LEAD_PENALTY_PENDING, law, leader, n, 0, opts,
                       Text("play.first_lead_26", "{leader}'s first lead; his partner {partner}'s call was withdrawn",
                            leader=leader, partner=lp.offender)
                       + (f" ({lp.source_code})" if lp.source_code else "")
                       + Text("play.declarer_chooses_26", ": declarer chooses before the lead; not complying when "
                              "able is a revoke (61A)"))
        st.await_choice(Pending(irr, leader, n, lp=lp))
        st.note_start_flag(irr)


def check_50d2(st: PlayState, out: list[Irregularity]) -> None:
    """50D2 / 51B: a defender to lead while his partner has major penalty card(s): declarer chooses first."""
    leader = st.leader
    if st.current_trick or not st.is_defender(leader):
        return
    pard = PARTNER[leader]
    majors = [c for c, k in st.face_up(pard).items() if k == "major"]
    if not majors:
        return
    if any(p.irr.code == IrregularityCode.PENALTY_CARD and p.offender == leader for p in st.choices):
        return
    n = len(st.winners) + 1
    suits = [s for s in SUITS if any(c[0] == s for c in majors)]
    law = "51B" if len(st.face_up(pard)) >= 2 else "50D2"
    opts = [Option(f"require:{s}", Text("play.50d2_require", "require the lead of {suit}; the {suit2} penalty "
                                        "card(s) are picked up ({law}a)", suit=s, suit2=s, law=law), "declarer")
            for s in suits]
    opts += [Option(f"forbid:{s}", Text("play.50d2_forbid", "forbid {suit} while {leader} keeps the lead; the {suit2} "
                                        "penalty card(s) are picked up", suit=s, suit2=s, leader=leader), "declarer")
             for s in suits]
    opts.append(Option("none", Text("play.50d2_none", "no restriction: any lead, the card(s) stay penalty cards "
                                    "(50D2b)"), "declarer"))
    irr = st.flag(out, IrregularityCode.PENALTY_CARD, law, leader, n, 0, opts,
                   Text("play.50d2", "{leader} to lead while partner {partner} has major penalty card(s) {cards}; "
                        "{leader} may not lead until declarer has chosen (50D2)", leader=leader, partner=pard,
                        cards=" ".join(majors)))
    st.await_choice(Pending(irr, leader, n))
    st.note_start_flag(irr)
