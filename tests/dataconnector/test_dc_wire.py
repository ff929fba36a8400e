"""Every golden request of the client's sdist (``tests/fixtures/requests``) gets a well-formed response envelope
over HTTP; so do bad JSON, a wrong licence key and a command bridgetable does not implement."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
from bridgemate_dataconnector.dto import DataConnectorResponseData, ErrorType, ScoringProgramResponse
from dc_helpers import DcServer
from service_harness import PLAIN_HTTP

ENVELOPE = {"RequestCommand": int, "DataType": int, "LastQueueItemId": int, "ErrorType": int,
            "SessionGuid": (str, type(None)), "SerializedData": str}


def post(server: DcServer, body: bytes) -> dict[str, Any]:
    r = httpx.post(server.dc_base + "/dc-scoringprogram", content=body, verify=PLAIN_HTTP,
                   headers={"Content-Type": "application/json; charset=utf-8"})
    assert r.status_code == 200, r.text
    env = r.json()
    assert set(env) == set(ENVELOPE), env
    for key, kind in ENVELOPE.items():
        assert isinstance(env[key], kind), (key, env)
    json.loads(env["SerializedData"])              # the data is JSON text, as the client decodes it
    return env


def test_every_golden_request_gets_an_envelope(sdist: Path, dc_server: DcServer) -> None:
    requests = sorted((sdist / "tests" / "fixtures" / "requests").glob("*.json"))
    assert len(requests) == 27
    seen = {}
    for path in requests:
        body = path.read_bytes()
        env = post(dc_server, body)
        assert env["RequestCommand"] == json.loads(body)["Command"], path.name
        parsed = ScoringProgramResponse.from_dict(env)          # the client reads it
        seen[path.stem] = (parsed.data_type, parsed.error_type)
    assert seen["Ping"] == (DataConnectorResponseData.OK, ErrorType.None_)
    # the fixtures' data are placeholders ("NorthClubs 1"): refused the protocol's way, not with a 500
    assert seen["PutHandrecords"][0] == DataConnectorResponseData.Error
    assert seen["InitializeEvent"] == (DataConnectorResponseData.Error, ErrorType.Validation)


def test_refusals_are_envelopes(sdist: Path, dc_server: DcServer) -> None:
    ping = json.loads((sdist / "tests" / "fixtures" / "requests" / "Ping.json").read_text())
    wrong = post(dc_server, json.dumps({**ping, "LicenceKey": "guess"}).encode())
    assert (wrong["DataType"], wrong["ErrorType"]) == (4, 5)
    assert json.loads(wrong["SerializedData"]) == "Invalid club id or licence key"
    for bad in (b"not json", b"[1, 2]", b'{"Command": "Ping"}', b"\xff\xfe", b" " * 5_000_000):
        env = post(dc_server, bad)
        assert (env["DataType"], env["ErrorType"]) == (4, 5), bad
    for command in (2, 7, 9, 16, 32, 33, 34, 35, 40, 99):
        env = post(dc_server, json.dumps({**ping, "Command": command}).encode())
        assert (env["RequestCommand"], env["DataType"], env["ErrorType"]) == (command, 4, 8), command
    assert "Bridgemate dataconnector service version" in httpx.get(dc_server.dc_base + "/").text
