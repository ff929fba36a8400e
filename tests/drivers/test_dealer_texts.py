"""The dealing machine's lines for the volunteer are keyed (issue 24): each problem's message and a stopped board's
instructions are Texts (table/texts.py) whose English is the line it always was and whose every piece but the
numbering and line breaks carries a key with its Chinese in engine.json, so the Chinese console words them."""
from __future__ import annotations

import json
import re
from pathlib import Path

from drivers.dealer import BoardVerifier
from table.cards import Seat
from table.dealgen import HashDRBG, random_deal
from table.handrecords import HandRecordBoard
from table.texts import Text

ENGINE_ZH = json.loads((Path(__file__).resolve().parents[2] / "service" / "web" / "static" / "locales" / "zh-Hant"
                        / "engine.json").read_text(encoding="utf-8"))
RECORD = HandRecordBoard.of(3, random_deal(HashDRBG("d")))


def keyed(message: str) -> list[str]:
    """The keys of ``message``'s pieces (each with its Chinese); unkeyed pieces hold no word."""
    assert isinstance(message, Text), message
    keys = []
    for piece in message.pieces():
        if isinstance(piece, Text) and piece.key:
            assert re.search(r"[\u4e00-\u9fff]", ENGINE_ZH[f"engine.{piece.key}"]), piece.key
            keys.append(piece.key)
        else:
            assert not re.search(r"[A-Za-z]", piece), (message, piece)
    return keys


def test_a_card_in_the_wrong_pocket_and_the_boards_instructions() -> None:
    v = BoardVerifier(RECORD)
    card = "C2"
    own = RECORD.deal.owner[card]
    assert own == Seat.N
    p = v.card(card, "E", b"\x01\x02")
    assert p is not None and p.message == ("Board 3: the 2 of clubs went into the East pocket; it belongs to North. "
                                           "Take it out and put it in North's pocket, then press Continue.")
    assert keyed(p.message) == ["dealing.on_board", "dealing.wrong_pocket"]
    assert p.message.pieces()[1].params == {"card_name": "C2", "pocket": "E", "seat_name": "N"}
    steps = v.instructions()
    assert steps == ("Board 3 needs attention:\n  1. the 2 of clubs went into the East pocket; it belongs to North. "
                     "Take it out and put it in North's pocket, then press Continue.\nOr put all the board's cards "
                     "back in the machine and press Redeal.")
    assert keyed(steps) == ["dealing.attention", "dealing.wrong_pocket", "dealing.redeal"]


def test_a_misread_a_jam_a_fault_and_a_missing_card() -> None:
    v = BoardVerifier(RECORD)
    v.card("C3", "N", b"\x01")
    twice = v.card("C3", "N", b"\x01")
    assert twice is not None and twice.message == (
        "Board 3: a second 3 of clubs went into the North pocket (the first went there too): the machine read it "
        "twice, so two cards probably stuck together and the second went in unread. Check the North pocket: it "
        "must hold only North's cards (see the hand record); move any other card to its own pocket, then press "
        "Continue.")
    assert keyed(twice.message) == ["dealing.on_board", "dealing.second_card_there", "dealing.read_twice"]
    jam = v.jam(None, 3)
    assert jam.message == ("Board 3: the machine jammed in the feeder after 3 cards. Clear the stuck card and "
                           "restart the machine; checking goes on by itself.")
    assert keyed(jam.message) == ["dealing.on_board", "dealing.jam_feeder"]
    fault = v.machine_error(0xFFFF, "")
    assert fault.message == "Board 3: the machine reports a fault (0xFFFF). Dealing goes on."
    assert keyed(fault.message) == ["dealing.on_board", "dealing.fault", "dealing.fault_goes_on"]
    missing = v.finish()[0]
    assert missing.message == ("Board 3: the ace of spades never reached a pocket; it belongs to East. It probably "
                               "went into the North pocket stuck to another card: look there. Put it in East's "
                               "pocket, then press Continue.")
    assert keyed(missing.message) == ["dealing.on_board", "dealing.missing", "dealing.missing_stuck",
                                      "dealing.put_in"]
