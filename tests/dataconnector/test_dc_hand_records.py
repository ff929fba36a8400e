"""The evening's hand records (``service/hand_records.py``) as the scoring program fills them: exactly the event's
boards, each once; replaceable until the first board starts."""
from __future__ import annotations

import json
from pathlib import Path

from bridgemate_dataconnector import DataConnectorClient
from bridgemate_dataconnector.dto import DataConnectorResponseData, ErrorType, HandrecordDTO, InitDTO, ResultDTO
from dc_helpers import CLUB_ID, LICENCE_KEY, DcServer

from service.sim.dealing import deal_for

SESSION = "0A1B2C3D4E5F60718293A4B5C6D7E8F9"


def records(boards: list[int]) -> list[HandrecordDTO]:
    out = []
    for n in boards:
        h = HandrecordDTO(session_guid=SESSION, scoring_group_number=1, section_letters="A", board_number=n)
        for seat, word in (("N", "north"), ("E", "east"), ("S", "south"), ("W", "west")):
            for suit, name in (("S", "spades"), ("H", "hearts"), ("D", "diamonds"), ("C", "clubs")):
                cards = sorted((c[1] for c in deal_for(3, n).hands[seat] if c[0] == suit),  # type: ignore[index]
                               key="AKQJT98765432".index)
                setattr(h, f"{word}_{name}", "".join(cards))
        out.append(h)
    return out


def refusal(client: DataConnectorClient, boards: list[int]) -> tuple[ErrorType, str]:
    r = client.send_handrecords(SESSION, records(boards))
    assert r.data_type == DataConnectorResponseData.Error
    return r.error_type, json.loads(r.serialized_data or "")


def test_hand_records_match_the_event_and_stay_once_play_starts(sdist: Path, tmp_path: Path) -> None:
    server = DcServer(tmp_path / "srv").start()
    try:
        client = DataConnectorClient(CLUB_ID, LICENCE_KEY, server.dc_base)
        init = json.loads((sdist / "examples" / "data" / "init-template.json").read_text()
                          .replace("REPLACED-AT-RUNTIME", SESSION))
        init["Sessions"][0].update(Year=2026, Month=12, Day=3, Hour=19, Minute=30)
        assert client.initialize(InitDTO.from_dict(init)).data_type == DataConnectorResponseData.OK   # boards 1-12
        assert refusal(client, list(range(1, 12))) == (
            ErrorType.Validation, "the hand records do not match the event's boards: missing board(s): 12")
        assert "board(s) given twice: 3" in refusal(client, [*range(1, 13), 3])[1]
        assert "board(s) not in the event: 13" in refusal(client, list(range(1, 14)))[1]
        ok = client.send_handrecords(SESSION, records(list(range(1, 13))))
        assert ok.data_type == DataConnectorResponseData.OK, ok.serialized_data
        # the first board starts (a scoring-only table keys board 1): the set stays as it is
        result = ResultDTO(session_guid=SESSION, section_letters="A", table_number=1, round_number=1, board_number=1,
                           scoring_direction=3, pair_north_south=1, pair_east_west=2, declaring_pair=1,
                           declarer_direction=1, level=3, denomination=5, stake=0, total_tricks=9)
        assert client.send_results(SESSION, [result]).data_type == DataConnectorResponseData.OK
        assert refusal(client, list(range(1, 13)))[1] == \
            "the event's first board has started: its hand records can no longer be replaced"
    finally:
        server.stop()
