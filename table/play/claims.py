"""Claims and concessions (Laws 68-70): what the law says about a claim, its responses, and play after it.

Pure functions that build the irregularities; the table (``machine.py``) keeps the claim in progress and only
sequences, and :class:`~table.play.engine.Play` stops counting cards once a claim is made (``claim_made``).
"""
from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import Any

from ..cards import Seat
from ..codes import IrregularityCode
from ..irregularity import Irregularity, Option
from ..texts import Text


def _claim_flag(code: IrregularityCode, law: str, seat: Seat | None, detail: str,
                options: list[Option] | None = None, disposition: str | None = None) -> Irregularity:
    irr = Irregularity(code, law, str(seat) if seat is not None else None, "claim", {}, options or [], detail)
    if disposition:
        irr.dispose(disposition)
    return irr


def play_after_claim(seat: Seat, card: str, claimer: Seat | None, position: dict[str, Any]) -> Irregularity:
    """68D: play ceases after a claim or concession and the director voids any later play. The card is not
    counted; the flag stays open for the director, whose only option is to void it."""
    return Irregularity(IrregularityCode.PLAY_AFTER_CLAIM, "68D", str(seat), "play", position,
                        [Option("void", Text("claim.void_later_plays", "68D: play ceases after a claim; the director "
                                             "voids later plays"), "director")],
                        Text("claim.played_after", "{seat} played {card} after {claimer}'s claim; not counted",
                             seat=seat, card=card, claimer=claimer) if claimer is not None else
                        Text("claim.played_after_ceased", "{seat} played {card} after play ceased; not counted",
                             seat=seat, card=card))


def claim_out_of_play(seat: Seat) -> Irregularity:
    """68: a claim concerns tricks of the play, so none is made before the auction has closed."""
    return _claim_flag(IrregularityCode.CLAIM_OUT_OF_PLAY, "68", seat, Text("claim.before_auction_closed",
                                                                                "a claim before the auction closed"),
                       disposition="ignored")


def response_without_claim(seat: Seat) -> Irregularity:
    return _claim_flag(IrregularityCode.CLAIM_RESPONSE_WITHOUT_CLAIM, "68", seat,
                       Text("claim.response_without_claim", "a response with no claim pending"),
                       disposition="ignored")


def disputed(seat: Seat, claimed_tricks: int) -> Irregularity:
    """68D, 70: an opponent disputes the claim; the director rules, doubtful points against the claimer."""
    return _claim_flag(IrregularityCode.CLAIM_DISPUTED, "70", seat,
                       Text("claim.disputed", "{seat} disputes the claim of {tricks} tricks", seat=seat,
                            tricks=claimed_tricks),
                       [Option("rule", Text("claim.director_rules", "director rules the claim (Law 70): doubtful "
                                            "points against the claimer"), "director")])


def acquiesced(claimer: Seat, responses: Mapping[Seat, bool]) -> bool:
    """69A: the claim stands once both opponents of the claimer agree to it."""
    return bool(responses.get(claimer.lho) and responses.get(claimer.rho))


def play_on_refused(seat: Seat | None) -> Irregularity:
    """1997 68D: play has ceased, so a request to play on is only recorded for the director (70)."""
    return _claim_flag(IrregularityCode.PLAY_ON_AFTER_CLAIM, "68D", seat,
                       Text("claim.play_on_refused", "play on after a claim requested: under this edition play "
                            "ceases after a claim; later plays are void and the director adjudicates the claim (70)"),
                       [Option("rule", Text("claim.director_adjudicates", "director adjudicates the claim (70)"),
                               "director")], disposition="refused")


def everyone_plays_on(agreed: Collection[Seat]) -> bool:
    """2017 68D2(b): play continues only once all four players agree to it."""
    return len(agreed) >= 4


def claim_voided(claimer: Seat | None, flags: Iterable[Irregularity]) -> Irregularity:
    """2017 68D2(b): all four agreed to play on, so the claim is void (an open dispute with it) and play goes on."""
    for irr in flags:
        if irr.code == IrregularityCode.CLAIM_DISPUTED and irr.open:
            irr.dispose("claim_void_play_continued", "68D2b")
    irr = _claim_flag(IrregularityCode.CLAIM_VOID_PLAY_CONTINUED, "68D2b", claimer,
                      Text("claim.void_play_on", "all four players agreed to play on: the claim is void and the play "
                           "continues"),
                      disposition="play_continued")
    irr.disposition_law = "68D2b"
    return irr


def rule_claim(option: str, flags: Iterable[Irregularity]) -> None:
    """70: the director's ruling on the claim settles any open dispute of it."""
    for irr in flags:
        if irr.code == IrregularityCode.CLAIM_DISPUTED and irr.open:
            irr.dispose(f"ruled:{option}", "70")
