"""The Data Connector's envelope: a request names a command, carries the club id, licence key, session guid and
its data as a JSON string; every answer is HTTP 200 with a response envelope (``DataType`` Error and an
``ErrorType`` when it failed). The numbers are the protocol's, as the PyPI client
``bridgemate-dataconnector-client`` 1.2.1 (``dto/scoring_program_data_connector_commands.py``,
``dto/data_connector_response_data.py``, ``dto/error_type.py``) spells them.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

# The text a GET of the root answers: the client's connect() looks for it.
VERSION_TEXT = "Bridgemate dataconnector service version 5.0 (bridgetable)"


class Command(IntEnum):
    NONE = 0
    CONNECT = 1
    STOP_BCS = 2
    DISCONNECT = 3
    PING = 4
    INITIALIZE_EVENT = 5
    UPDATE_MOVEMENT = 6
    ADD_SESSION = 7
    UPDATE_SCORING_GROUPS = 8
    PUT_TABLE_GRAPH = 9
    PUT_RESULTS = 10
    PUT_PLAYER_DATA = 11
    PUT_PARTICIPATIONS = 12
    PUT_HANDRECORDS = 13
    PUT_BRIDGEMATE2_SETTINGS = 14
    PUT_BRIDGEMATE3_SETTINGS = 15
    UPDATE_SESSION = 16
    UPDATE_SECTION = 17
    UPDATE_TABLE = 18
    POLL_NEW_RESULTS = 19
    POLL_NEW_PLAYER_DATA = 20
    POLL_NEW_PARTICIPATIONS = 21
    POLL_NEW_HANDRECORDS = 22
    POLL_ALL_RESULTS = 23
    POLL_ALL_PLAYER_DATA = 24
    POLL_ALL_PARTICIPATIONS = 25
    POLL_ALL_HANDRECORDS = 26
    ACCEPT_RESULTS = 27
    ACCEPT_PLAYER_DATA = 28
    ACCEPT_PARTICIPATIONS = 29
    ACCEPT_HANDRECORDS = 30
    CONTINUE_EVENT = 31
    GET_MOVEMENT = 32
    GET_ALL_MOVEMENTS = 33
    MANAGE_BCS = 34
    CLEAR_DATA = 35
    POLL_NEW_TD_CALLS = 36
    POLL_ALL_TD_CALLS = 37
    ACCEPT_TD_CALLS = 38
    PUT_TD_CALLS = 39
    TEST_DATA = 40


class DataType(IntEnum):
    NONE = 0
    OK = 1
    WARNING = 3
    ERROR = 4
    PLAYER_DATA = 10
    PARTICIPATIONS = 11
    RESULTS = 12
    HANDRECORDS = 13
    TD_CALLS = 21


class ErrorType(IntEnum):
    NONE = 0
    BUSY = 1
    NO_DATA = 2
    NO_UPDATES = 3
    MOVEMENT = 4
    VALIDATION = 5
    ENTRY_UNKNOWN = 6
    EXCEPTION = 7
    NOT_IMPLEMENTED = 8
    WRONG_DATA_TYPE = 12
    UNEXPECTED_COMMAND = 13
    UNKNOWN = 14


class DcError(Exception):
    """A request the Data Connector refuses: answered with the error envelope, never an HTTP error."""

    def __init__(self, error_type: ErrorType, message: str) -> None:
        super().__init__(message)
        self.error_type = error_type
        self.message = message


@dataclass
class Request:
    command: int
    club_id: str
    licence_key: str
    session_guid: str
    data: str


def _text(d: dict[str, Any], key: str) -> str:
    v = d.get(key)
    if v is None:
        return ""
    if not isinstance(v, str):
        raise DcError(ErrorType.VALIDATION, f"{key} is a string")
    return v


def parse_request(body: bytes) -> Request:
    """The request envelope (``DcError`` when it is not one)."""
    try:
        d = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise DcError(ErrorType.VALIDATION, "the request is not JSON") from None
    if not isinstance(d, dict):
        raise DcError(ErrorType.VALIDATION, "the request is a JSON object")
    command = d.get("Command")
    if isinstance(command, bool) or not isinstance(command, int):
        raise DcError(ErrorType.VALIDATION, "Command is a number")
    return Request(command, _text(d, "ClubId"), _text(d, "LicenceKey"), _text(d, "SessionGuid"),
                   _text(d, "SerializedData"))


def data_of(req: Request, kind: type[dict[str, Any]] | type[list[Any]], what: str) -> Any:
    """The request's ``SerializedData`` decoded, checked to be a ``kind`` (dict or list)."""
    if not req.data.strip():
        raise DcError(ErrorType.NO_DATA, "Empty data")
    try:
        value = json.loads(req.data)
    except ValueError:
        raise DcError(ErrorType.VALIDATION, f"SerializedData is not JSON ({what})") from None
    if not isinstance(value, kind) or (isinstance(value, list) and not all(isinstance(x, dict) for x in value)):
        raise DcError(ErrorType.WRONG_DATA_TYPE, f"SerializedData is not {what}")
    return value


def response(command: int, data_type: DataType, data: Any, session_guid: str = "", error: ErrorType = ErrorType.NONE,
             last_queue_item_id: int = 0) -> dict[str, Any]:
    return {"RequestCommand": command, "DataType": int(data_type), "LastQueueItemId": last_queue_item_id,
            "ErrorType": int(error), "SessionGuid": session_guid or None,
            "SerializedData": json.dumps(data, separators=(",", ":"))}


def ok(command: int, message: str, session_guid: str = "") -> dict[str, Any]:
    return response(command, DataType.OK, message, session_guid)


def error(command: int, err: DcError, session_guid: str = "") -> dict[str, Any]:
    return response(command, DataType.ERROR, err.message, session_guid, err.error_type)
