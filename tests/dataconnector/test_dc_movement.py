"""ContinueEvent, UpdateMovement and UpdateScoringGroups from the client: the movement as the scoring program
changes it, until the first board starts."""
from __future__ import annotations

import json
from pathlib import Path

import httpx
from bridgemate_dataconnector import DataConnectorClient
from bridgemate_dataconnector.dto import (
    ContinueDTO,
    DataConnectorResponseData,
    ErrorType,
    InitDTO,
    ResultDTO,
    RoundDTO,
    ScoringGroupDTO,
    SectionDTO,
    SectionUpdateDTO,
    TableDTO,
)
from dc_helpers import CLUB_ID, LICENCE_KEY, DcServer

SESSION = "1A1B2C3D4E5F60718293A4B5C6D7E8F9"


def test_the_scoring_program_changes_the_movement_until_play_starts(sdist: Path, tmp_path: Path) -> None:
    server = DcServer(tmp_path / "srv").start()
    director = {"Authorization": f"Bearer {server.token}"}
    try:
        client = DataConnectorClient(CLUB_ID, LICENCE_KEY, server.dc_base)
        init = json.loads((sdist / "examples" / "data" / "init-template.json").read_text()
                          .replace("REPLACED-AT-RUNTIME", SESSION))
        init["Sessions"][0].update(Year=2026, Month=12, Day=3, Hour=19, Minute=30)
        assert client.initialize(InitDTO.from_dict(init)).data_type == DataConnectorResponseData.OK
        assert client.continue_event(ContinueDTO(event_guid=SESSION, commands=5)).data_type == \
            DataConnectorResponseData.OK
        unknown = client.continue_event(ContinueDTO(event_guid="F" * 32, commands=5))
        assert (unknown.data_type, unknown.error_type) == (DataConnectorResponseData.Error, ErrorType.EntryUnknown)

        # a new movement for section A: 2 tables, 2 rounds, 3 boards a round (12 boards, each played once)
        tables = [TableDTO(session_guid=SESSION, section_letters="A", table_number=t, rounds=[
            RoundDTO(session_guid=SESSION, section_letters="A", table_number=t, round_number=r,
                     low_board_number=low, high_board_number=low + 2, pair_ns=ns, pair_ew=ew)
            for r, low, ns, ew in rounds]) for t, rounds in ((1, ((1, 1, 1, 2), (2, 7, 1, 3))),
                                                              (2, ((1, 4, 3, 4), (2, 10, 4, 2))))]
        update = SectionUpdateDTO(session_guid=SESSION, scoring_group_number=1, scoring_group_scoring_method=10,
                                  letters="A", name="Section A", winners=1, game_type=10, tables=tables)
        answer = client.update_movement(update)
        assert answer.data_type == DataConnectorResponseData.OK, answer.serialized_data
        got = httpx.get(server.base + "/api/event/guidance", headers=director, params={"table": "2", "round": 2})
        assert got.json()["boards"]["numbers"] == [10, 11, 12]
        assert [p["pair"] for p in got.json()["pairs"]] == [4, 2]

        groups = [ScoringGroupDTO(session_guid=SESSION, scoring_group_number=1, scoring_method=30, name="Cross-IMP",
                                  sections=[SectionDTO(session_guid=SESSION, scoring_group_number=1, letters="A",
                                                       name="Section A", winners=1, game_type=10, tables=tables)])]
        assert client.update_scoring_groups(groups).data_type == DataConnectorResponseData.OK
        assert httpx.get(server.base + "/api/public/results").json()["event"]["scoring"] == "XIMP"

        # the first board starts: the movement stays, the scoring program is told why
        result = ResultDTO(session_guid=SESSION, section_letters="A", table_number=1, round_number=1, board_number=1,
                           scoring_direction=3, pair_north_south=1, pair_east_west=2, declaring_pair=1,
                           declarer_direction=1, level=1, denomination=1, stake=0, total_tricks=7)
        assert client.send_results(SESSION, [result]).data_type == DataConnectorResponseData.OK
        late = client.update_movement(update)
        assert (late.data_type, late.error_type) == (DataConnectorResponseData.Error, ErrorType.Movement)
    finally:
        server.stop()
