"""The server's validation messages equal the client's own validators on the sdist's golden validation cases
(``tests/fixtures/validation``), every case of every kind; over HTTP a put
with an invalid object is answered with those messages."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import bridgemate_dataconnector as bm
import bridgemate_dataconnector.dto as dtos
from bridgemate_dataconnector import DataConnectorClient
from bridgemate_dataconnector.dto import DataConnectorResponseData, ErrorType, ResultDTO
from dc_helpers import CLUB_ID, LICENCE_KEY, DcServer

from service.dataconnector import validation

CLIENT_CHECKS = {"PlayerDataDTO": bm.validate_player_data_dto, "ParticipationDTO": bm.validate_participation_dto,
                 "RoundDTO": bm.validate_round_dto, "TableDTO": bm.validate_table_dto,
                 "ResultDTO": bm.validate_result_dto, "TdCallDTO": bm.validate_td_call_dto,
                 "ContinueDTO": bm.validate_continue_dto, "HandrecordDTO": bm.validate_handrecord_dto,
                 "Bridgemate2SettingsDTO": bm.validate_bridgemate2_settings_dto,
                 "Bridgemate3SettingsDTO": bm.validate_bridgemate3_settings_dto,
                 "SectionDTO": bm.validate_section_dto, "SectionUpdateDTO": bm.validate_section_update_dto,
                 "ScoringGroupDTO": bm.validate_scoring_group_dto, "SessionDTO": bm.validate_session_dto,
                 "InitDTO": bm.validate_init_dto}


def server_messages(case: dict[str, Any]) -> list[str]:
    if case["Dto"] == "ParticipationDTO":
        return validation.participation(case["Payload"], bool(case["Args"].get("allowPlayerNumberAndName")))
    if case["Dto"] == "SessionDTO":
        return validation.session(case["Payload"], bool(case["Args"].get("forAdding")))
    return validation.messages(case["Dto"], case["Payload"])


def client_messages(case: dict[str, Any]) -> list[str]:
    dto = getattr(dtos, case["Dto"]).from_dict(case["Payload"])
    if case["Dto"] == "ParticipationDTO":
        CLIENT_CHECKS[case["Dto"]](dto, bool(case["Args"].get("allowPlayerNumberAndName")))
    elif case["Dto"] == "SessionDTO":
        CLIENT_CHECKS[case["Dto"]](dto, bool(case["Args"].get("forAdding")))
    else:
        CLIENT_CHECKS[case["Dto"]](dto)
    return list(dto.validation_messages or [])


def test_messages_equal_the_clients_validators(sdist: Path) -> None:
    cases = [json.loads(p.read_text()) for p in sorted((sdist / "tests" / "fixtures" / "validation").glob("*.json"))]
    assert {c["Dto"] for c in cases} == set(validation.VALIDATORS) == set(CLIENT_CHECKS)
    assert len(cases) == 168
    for case in cases:
        ours = server_messages(case)
        assert ours == client_messages(case) == case["ExpectedMessages"], (case["Dto"], case["Case"])
        assert (not ours) == case["ExpectedValid"]


def test_an_invalid_put_is_answered_with_the_messages(sdist: Path, tmp_path: Path) -> None:
    case = json.loads((sdist / "tests" / "fixtures" / "validation" / "ResultDTO.invalid-stake.json").read_text())
    server = DcServer(tmp_path / "srv").start()
    try:
        client = DataConnectorClient(CLUB_ID, LICENCE_KEY, server.dc_base)
        init = json.loads((sdist / "examples" / "data" / "init-template.json").read_text()
                          .replace("REPLACED-AT-RUNTIME", case["Payload"]["SessionGuid"]))
        init["Sessions"][0].update(Year=2026, Month=12, Day=3, Hour=19, Minute=30)
        assert client.initialize(dtos.InitDTO.from_dict(init)).data_type == DataConnectorResponseData.OK
        answer = client.send_results(case["Payload"]["SessionGuid"], [ResultDTO.from_dict(case["Payload"])])
        assert (answer.data_type, answer.error_type) == (DataConnectorResponseData.Error, ErrorType.Validation)
        assert json.loads(answer.serialized_data or "") == " ".join(case["ExpectedMessages"])
    finally:
        server.stop()
