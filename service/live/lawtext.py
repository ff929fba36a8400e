"""The text of the laws the engine cites, per law edition, for the director's console and the seat pages.

Three sources, one lookup (``law_text``):

* the seed's own Chinese wording (the 1997 WBF Laws, 1999 Chinese Bridge Association edition), split into
  sections (``service/live/lawtexts/wbf1997-cba1999.json``, made by ``bench/extract_seed_laws.py``);
* brief English quotations of the 2017 WBF Laws with the copy each was taken from
  (``service/live/lawtexts/wbf2017.json``), numbered as the 2017 book numbers them, each with the project's own
  Chinese summary (``zh``; not an official translation, which this project does not hold) for a Chinese page;
* short English paraphrases of the seed's laws (``STATEMENTS`` below, seed numbering), not the laws' text.

Every lookup falls back to the nearest law listed ("30B1" → "30B" → "30"); a citation of several laws
("27B1(b)/27B2") is looked up by its first. A 2017 law with no quotation falls back to the seed's paraphrase
of the same number (the laws the 2017 book left unchanged keep their numbers; in Chinese, to the seed's text of
that number), and says so.
"""
from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

from table.texts import Text

SEED, WBF2017 = "wbf1997-cba1999", "wbf2017"
_EDITION_NAMES = {"1997": SEED, "wbf1997": SEED, SEED: SEED, "2017": WBF2017, WBF2017: WBF2017}
LANGS = ("zh", "en")
LAST_LAW = 93
_TEXTS = Path(__file__).with_name("lawtexts")
_CITATION = re.compile(r"[0-9]{1,2}[A-H]?[0-9]{0,2}[a-z]?")       # ASCII digits: "\d" takes "٢٧" too


class LawTextError(ValueError):
    """An unknown edition or language."""


STATEMENTS: dict[str, str] = {
    "1": "The pack: 52 cards, four suits ranked spades, hearts, diamonds, clubs.",
    "7": "Control of board and cards: each player counts his cards before looking at them.",
    "9B2": ("After attention is drawn to an irregularity, no player may call or play until the director has explained "
            "the rectification."),
    "12": ("Director's discretionary powers: an adjusted score, artificial (average plus 60%, average 50%, average "
           "minus 40%) or assigned (a likely result)."),
    "13": "Incorrect number of cards: the director corrects the deficiency or scores the board as a fouled board.",
    "13A1": "A hand with an incorrect number of cards is corrected from the hand record; play may continue.",
    "17": "The auction begins when a player first looks at his cards; the dealer makes the first call.",
    "19": ("A double is allowed only of an opponent's last bid with only passes since; a redouble only of an "
           "opponent's double."),
    "22A": "Four passes: the board is passed out; the hands are returned without a replay.",
    "24": ("Cards exposed during the auction: a low card is no penalty; an honour, a premature lead or two cards: "
           "partner passes at his next turn and the cards become penalty cards if the offender defends."),
    "24A": "A single low card exposed during the auction: no penalty, the card is left face up until the auction ends.",
    "24B": ("A single honour or a premature lead exposed during the auction: it becomes a penalty card if the "
            "offender defends, and partner must pass at his next turn."),
    "24C": ("Two or more cards exposed during the auction: penalty cards if the offender defends; partner must pass "
            "at his next turn."),
    "25": ("Change of call: an inadvertent call may be changed without pause; a purposeful change is cancelled unless "
           "LHO accepts it."),
    "26": ("Lead penalties after a withdrawn call: declarer may require or forbid the lead of a related suit (26A), "
           "or forbid one suit (26B)."),
    "27": ("Insufficient bid: LHO may accept it; otherwise it must be corrected by a sufficient bid or pass; partner "
           "may have to pass for the rest of the auction."),
    "28": ("A call out of rotation by RHO of a player under a pass obligation or by the player whose turn it was is "
           "treated as in rotation."),
    "29": ("Call out of rotation: it may be accepted by the offender's LHO calling over it; otherwise it is cancelled "
           "and the auction reverts."),
    "30": ("Pass out of rotation: cancelled; the offender passes at his next turn (30A, 30B1) or for the rest of the "
           "auction (30B2)."),
    "30B2b": ("After partner's pass out of rotation at partner's turn, the offender's partner may not double or "
              "redouble at that turn."),
    "31": ("Bid out of rotation: cancelled unless accepted; partner passes once or for the rest of the auction, "
           "depending on the offender's later call."),
    "32": ("Double or redouble out of rotation: cancelled unless accepted; partner passes for the rest of the "
           "auction; lead penalties may apply."),
    "34": ("A pass out of rotation that would have ended the auction deprived a player of his turn: the auction "
           "reverts to him."),
    "35": ("Inadmissible calls condoned: the call over an inadmissible double or redouble is cancelled; a barred "
           "player's call stands."),
    "36": ("Inadmissible double or redouble: cancelled; the offender substitutes a legal call; partner passes for the "
           "rest of the auction."),
    "37": ("A call by a player required to pass: cancelled; both members of the offending side pass for the rest of "
           "the auction."),
    "38": "A bid of more than seven: cancelled; both members of the offending side pass for the rest of the auction.",
    "39": "A call after the final pass is cancelled; a defender's bid, double or redouble may give a lead penalty.",
    "41C": ("After the opening lead each player sees only the contract and whether doubled or redoubled, not the "
            "auction."),
    "44C": "Each player must follow suit if able.",
    "45C": "A card played or named is played; a defender's card held so his partner could see its face must be played.",
    "45E": "A fifth card played to a trick is restored to the hand; a defender's may become a penalty card.",
    "49": "A defender's card exposed other than in the normal course of play becomes a penalty card.",
    "50": ("Penalty cards: minor (a single low card exposed by accident) or major; a major penalty card must be "
           "played at the first legal opportunity."),
    "50B": ("A single card below an honour exposed inadvertently is a minor penalty card; an honour, or a card "
            "exposed deliberately, is a major penalty card."),
    "50D2": ("When a defender has a major penalty card and his partner is to lead, declarer may require or forbid the "
             "lead of that suit."),
    "52": "Failure to lead or play a penalty card: declarer may accept the card played or require the penalty card.",
    "53": ("Lead out of turn: any lead out of turn may be accepted, also by the next hand playing to it; declarer "
           "chooses for the defenders' leads."),
    "54": ("Opening lead out of turn faced: declarer may spread his hand and become dummy, accept the lead, or "
           "require the correct leader to lead (the card becomes a major penalty card)."),
    "55": ("Declarer's lead out of turn: either defender may accept it or require its retraction; from the wrong "
           "hand, declarer leads from the correct hand."),
    "56": "A defender's opening lead out of turn refused: the card becomes a major penalty card.",
    "57": ("A premature lead or play by a defender: declarer chooses that partner plays highest, lowest, or not a "
           "named suit."),
    "58B": ("Two or more cards played at once: the card chosen is played; the others are restored (a defender's may "
            "become penalty cards)."),
    "60": ("A play after an irregularity forfeits the non-offending side's right to a rectification (acceptance by "
           "action)."),
    "61A": "Revoke: failure to follow suit when able, or to lead or play a card required by a rectification.",
    "62": ("A revoke must be corrected before it is established: the card is withdrawn (a defender's becomes a major "
           "penalty card)."),
    "62D": ("A revoke on the twelfth trick must be corrected, even if established, before the hands are returned; no "
            "trick transfer."),
    "63": ("A revoke is established when the offending side leads or plays to the next trick, or makes or agrees a "
           "claim."),
    "64": ("An established revoke: one or two tricks are transferred to the non-offending side, as the offending side "
           "won them from the revoke trick on."),
    "64A1": "Revoke transfer: one trick, when the offending player won the revoke trick.",
    "64A2": ("Revoke transfer: one trick when the offending side won the revoke trick or a later one; a second when "
             "it also won another."),
    "64B": ("No trick transfer in the cases of Law 64B (a second revoke in the same suit, dummy's revoke, a failure "
            "to play a penalty card, trick 12 ...)."),
    "66": ("Inspection of tricks: until his side leads or plays to the next trick a player may look at the last "
           "trick; otherwise quitted tricks may not be inspected."),
    "67B": ("A defective trick: a player who omitted to play to a trick supplies a card; the director rules on the "
            "rest."),
    "68": "Claims and concessions: a statement that a number of tricks will be won or lost; play ceases.",
    "68D": "After a claim or concession play ceases; any later play is void.",
    "70": "A disputed claim: the director adjudicates as equitably as possible, doubtful points against the claimer.",
    "77": ("Duplicate scoring: trick points, overtricks, undertricks, bonuses for game, slam and making a doubled "
           "contract."),
    "78": "Methods of scoring: matchpoints, IMPs, total points.",
    "80E": "The sponsoring organization may regulate bidding boxes, screens and written bidding.",
    "15": ("A board not designated for the round: if no player has played it before, the score normally stands and "
           "the director may have the pairs play the correct board later; a board a player has played already is "
           "not scored again (adjusted score)."),
    "87": "A fouled board: one played differently at different tables; the director scores it as the regulation says.",
}


def statement(law: str | None) -> str:
    """The short statement of ``law`` (seed numbering) or of its nearest parent; "" when unknown."""
    found = _nearest(_key(law), STATEMENTS)
    return STATEMENTS[found] if found else ""


def edition_name(name: str | None, default: str = SEED) -> str:
    """The service's name of an edition ("1997" and "2017" are accepted too); None is ``default``."""
    if name is None or not str(name).strip():
        return _EDITION_NAMES[default]
    found = _EDITION_NAMES.get(str(name).strip().lower())
    if found is None:
        raise LawTextError(Text("refusal.law_edition", "unknown law edition {edition} (available: {available})",
                                  edition=repr(name), available=f"{SEED}, {WBF2017}"))
    return found


def law_text(law: str | None, edition: str | None = None, lang: str | None = None) -> dict[str, Any] | None:
    """The text of ``law`` in ``edition`` (default: the seed) and ``lang`` ("zh": the seed's Chinese, or for 2017
    the project's Chinese summary, kind ``summary_zh``, with the English entry as ``original``; "en": the 2017
    quotation or the seed's paraphrase; default: the edition's own language), or None when neither the law nor a
    parent is known. The answer names what was found: ``cited`` (the law actually quoted), ``edition``, ``lang``,
    ``source`` and, for 2017, the ``url`` of the copy quoted."""
    ed = edition_name(edition)
    if lang is not None and lang not in LANGS:
        raise LawTextError(Text("refusal.law_language", "unknown language {language} (available: {available})",
                                  language=repr(lang), available=", ".join(LANGS)))
    key = _key(law)
    if not key:
        return None
    if ed == WBF2017:
        book = _book(WBF2017)
        found = _nearest(key, book["laws"])
        if found:
            entry = book["laws"][found]
            if lang == "zh":        # the project's Chinese summary; the English quoted beside it as ``original``
                return {"law": law, "cited": found, "edition": WBF2017, "lang": "zh", "text": entry["zh"],
                        "kind": "summary_zh", "original": entry["text"], "original_kind": entry["kind"],
                        "source": book["source"], "url": entry.get("url")}
            return {"law": law, "cited": found, "edition": WBF2017, "lang": "en", "text": entry["text"],
                    "kind": entry["kind"], "source": book["source"], "url": entry.get("url")}
        if lang == "zh":            # a law the 2017 book left as it was: the seed's Chinese of its number
            seed = _seed(law, key)
            if seed is not None:
                seed.update(fallback=f"no 2017 entry; the seed's Law {seed['cited']}")
            return seed
        paraphrase = _paraphrase(law, key)
        if paraphrase is not None:
            paraphrase.update(edition=WBF2017, fallback=f"no 2017 quotation; the seed's Law {paraphrase['cited']}")
        return paraphrase
    if lang == "en":
        return _paraphrase(law, key)
    return _seed(law, key)


def _seed(law: str | None, key: str) -> dict[str, Any] | None:
    book = _book(SEED)
    number = re.match(r"[0-9]+", key)
    nodes = book["laws"].get(number.group(0) if number else "", [])
    found = _nearest(key, {n["key"]: n for n in nodes})
    if not found:
        return None
    start = next(i for i, n in enumerate(nodes) if n["key"] == found)
    lines = [_node_line(nodes[start])]
    for node in nodes[start + 1:]:
        if node["depth"] <= nodes[start]["depth"]:
            break
        lines.append(_node_line(node))
    title = nodes[0]["heading"]
    return {"law": law, "cited": found, "edition": SEED, "lang": "zh", "title": title,
            "text": "\n".join(line for line in lines if line), "kind": "text", "source": book["source"]}


def _paraphrase(law: str | None, key: str) -> dict[str, Any] | None:
    found = _nearest(key, STATEMENTS)
    if not found:
        return None
    return {"law": law, "cited": found, "edition": SEED, "lang": "en", "text": STATEMENTS[found],
            "kind": "paraphrase", "source": "a paraphrase of the seed's law, not its text"}


def _node_line(node: dict[str, Any]) -> str:
    """One section as the seed prints it: "B．heading", "1.heading", "（a）heading", then its text."""
    key, depth, heading, text = node["key"], node["depth"], node["heading"], node["text"]
    marker = "" if depth == 0 else f"{key[-1]}．" if depth == 1 else f"{key[-1]}." if depth == 2 else f"（{key[-1]}）"
    head = f"第{key}條：{heading}" if depth == 0 else marker + heading
    return "\n".join(part for part in (head, text) if part)


def _key(law: str | None) -> str:
    """A citation as the texts key it: "27B1(a)" → "27B1a"; "30A/30B1" → "30A"; "" when it is not one."""
    key = str(law or "").split("/")[0].replace("(", "").replace(")", "").replace(" ", "")
    number = re.match(r"[0-9]+", key)
    return key if _CITATION.fullmatch(key) and number and 1 <= int(number.group(0)) <= LAST_LAW else ""


def _nearest(key: str, table: dict[str, Any]) -> str:
    """``key`` or its nearest parent ("27B1a" → "27B1" → "27B" → "27"), never another law ("16" is not "1")."""
    number = re.match(r"[0-9]+", key)
    floor = len(number.group(0)) if number else 1
    while len(key) >= floor:
        if key in table:
            return key
        key = key[:-1]
    return ""


@cache
def _book(edition: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((_TEXTS / f"{edition}.json").read_text(encoding="utf-8"))
    return data
