"""A malformed hand-record file's refusal is keyed (issue 24): each reader's complaint (table/handrecords, the PBN and
LIN game readers, a deal's own complaint from table/cards.py) is a Text whose English is the message it always was
(the API's ``detail`` and the logs unchanged) and whose every piece but punctuation carries a key with its Chinese in
service/web/static/locales/zh-Hant/engine.json, so the console words the whole refusal."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from table.dealgen import HashDRBG, random_deal
from table.handrecords import HandRecordBoard, HandRecordError, read_bytes, to_bytes
from table.texts import Text

ENGINE_ZH = json.loads((Path(__file__).resolve().parents[2] / "service" / "web" / "static" / "locales" / "zh-Hant"
                        / "engine.json").read_text(encoding="utf-8"))
BOARDS = [HandRecordBoard.of(n, random_deal(HashDRBG("texts"))) for n in range(1, 5)]


def written(fmt: str) -> bytes:
    return to_bytes(BOARDS, fmt)


# (format, the file's bytes, the English the reader said before its messages were keyed)
MALFORMED: list[tuple[str, bytes, str]] = [
    ("DUP", b"x" * 10, "f.dup: too short for a DUP file (10 bytes; one board takes 156)"),
    ("DUP", written("DUP")[:-3], "f.dup, board 4: truncated: 621 bytes is not a whole number of 156-byte boards"),
    ("DUP", b"x" * 312, "f.dup: no DUP header in the first record (found b'xxxxxxxxxx')"),
    ("BER", b"5" * 52, "f.ber, board 1: '5' is not an owner digit 1-4"),
    ("BER", b"", "f.ber: no boards in the file"),
    ("BHG", written("BHG")[:30], "f.bhg, board 1: line 2 has 28 characters, a board needs 52 letters"),
    ("BRI", b"99" * 39 + b" " * 50, "f.bri, board 1: card number 99 is not 01..52"),
    ("CDS", b"\0" * 14, "f.cds: record 1 has board number 0"),
    ("CSV", b"a,b\n", "f.csv: row 1 has 2 fields, a board needs 18"),
    ("DGE", b"\x07" * 80, "f.dge, board 1: a record starts with a suit marker (0x03-0x06), not 0x07"),
    ("DLM", b"[Document]\nFrom board=3\nTo board=200\n", "f.dlm: board range 3..200 is not within 1..99"),
    ("RZD", b"\x09\x00" + written("RZD")[2:], "f.rzd: the header announces 9 boards, the file holds 4"),
    ("LIN", b"md|3SAKx,,,|sv|o|", "f.lin: record 1 has no board number (record 0: md: bad hand 'SAKx')"),
    ("LIN", b"qx|o3|md|3SAK,,,|sv|o|",
     "f.lin: record 1 has no board number (record 0 (board 3): md: South holds 2 cards, not 13)"),
    ("LIN", b"qx|o1|md|3" + b",".join([b"SAKQJT98765432"] * 4) + b"|",
     "f.lin: record 1 has no board number (record 0 (board 1): card SA is in both N and E)"),
    ("PBN", b'[Board "1"]\n[Deal "N:AKQ"]\n',
     "f.pbn, board 1: has no usable Deal tag (record 1 (board 1, line 1): bad Deal (deal has 1 hands, not 4: "
     "'N:AKQ'))"),
    ("PBN", b"hello", "f.pbn: game 1 has no board number (no PBN game found (no tag pairs))"),
    # the PBN game reader's auction and play problems, inside the refusal's brackets
    ("PBN", b'[Deal "N:AKQ"]\n', "f.pbn: game 1 has no board number (record 1 (line 1): bad Deal (deal has 1 hands, "
     "not 4: 'N:AKQ'); no Board number, and no Dealer and Vulnerable tags: the board is unknown)"),
    ("PBN", b'[Board "1"]\n[Deal "N:AKQ"]\n[Auction "N"]\n1C ZZ\n', "f.pbn, board 1: has no usable Deal tag "
     "(record 1 (board 1, line 1): bad Deal (deal has 1 hands, not 4: 'N:AKQ'); auction: 'ZZ' is not a call (call 2); "
     "the rest is ignored)"),
    ("PBN", b'[Board "1"]\n[Deal "N:AKQ"]\n[Result "15"]\n[Contract "1C"]\n[Declarer "N"]\n',
     "f.pbn, board 1: has no usable Deal tag (record 1 (board 1, line 1): bad Deal (deal has 1 hands, not 4: "
     "'N:AKQ'); Result '15': more than 13 tricks)"),
    ("PBN", b'[Board "1"]\n[Deal "N:AKQ"]\n[Auction "N"]\n1C Pass Pass Pass\n[Play "E"]\nS2 - S3 S4\nS5 S6 S7 S8\n',
     "f.pbn, board 1: has no usable Deal tag (record 1 (board 1, line 1): bad Deal (deal has 1 hands, not 4: "
     "'N:AKQ'); play: trick 1 is incomplete but more cards follow; they are ignored)"),
    ("PBN", b'[Board "1"]\n[Deal "N:AKQJT98765432... -  - -"]\n',
     "f.pbn, board 1: the deal 'N:AKQJT98765432... - - -' does not give all four hands"),
]


def refusal(fmt: str, data: bytes) -> str:
    with pytest.raises(HandRecordError) as err:
        read_bytes(data, fmt, f"f.{fmt.lower()}")
    message: str = err.value.args[0]      # the Text itself, not str() of it (a plain copy)
    return message


@pytest.mark.parametrize(("fmt", "data", "english"), MALFORMED, ids=[f"{m[0]}-{k}" for k, m in enumerate(MALFORMED)])
def test_a_malformed_files_refusal_is_its_english_in_keyed_pieces(fmt: str, data: bytes, english: str) -> None:
    message = refusal(fmt, data)
    assert message == english
    assert isinstance(message, Text)
    for piece in message.pieces():
        if not (isinstance(piece, Text) and piece.key):
            assert not re.search(r"[A-Za-z]", piece), (english, piece)      # only brackets left unkeyed
            continue
        chinese = ENGINE_ZH[f"engine.{piece.key}"]
        assert re.search(r"[\u4e00-\u9fff]", chinese), piece.key
        assert set(re.findall(r"\{(\w+)\}", chinese)) == set(piece.params) | set(re.findall(r"\{(\w+)\}",
                                                                                            piece.template)), piece.key


def test_a_writers_refusal_is_keyed_too() -> None:
    bad = HandRecordBoard.of(1, BOARDS[0].deal, "S")
    with pytest.raises(HandRecordError) as err:
        to_bytes([bad], "DUP")
    message = err.value.args[0]
    assert message == ("<data>, board 1: dealer S / vulnerability None differ from the board number's (Law 2) and "
                       "DUP cannot record them (write PBN or CSV)")
    assert [p.key for p in message.pieces()] == ["records.where_board", "records.markings"]
    assert message.pieces()[1].params == {"seat": "S", "vulnerability": "None", "fmt": "DUP"}
