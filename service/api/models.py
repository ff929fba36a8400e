"""Request bodies of the REST API (they shape the OpenAPI schema at /openapi.json)."""
from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt

Percent = Annotated[StrictInt | StrictFloat, Field(ge=0, le=100)]
PercentText = Annotated[str, Field(pattern=r"^[0-9]{1,3}(\.[0-9]{1,4})?$")]       # "55": a percentage as text
EventType = Literal["board", "hand", "call", "contract", "result", "card", "exposed", "claim", "claim_response",
                    "ruling"]


class EventIn(BaseModel):
    """A table event in its JSON form (``table/events.py``); which fields are needed depends on ``type``."""
    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={"examples": [
        {"type": "call", "seat": "N", "call": "1NT"}, {"type": "card", "seat": "E", "card": "HT"}]})
    type: EventType
    board: int | None = Field(None, ge=1, le=9999)
    deal: str | None = Field(None, max_length=80, description='PBN deal, "N:AKQ.xxx.. ..."')
    dealer: str | None = Field(None, max_length=5)
    vulnerable: str | None = Field(None, max_length=8)
    seat: str | None = Field(None, max_length=5)
    cards: list[str] | None = Field(None, max_length=52)
    call: str | None = Field(None, max_length=8)
    alert: bool | None = None
    explanation: str | None = Field(None, max_length=2000, description="an alerted call's written explanation for "
                                    "the opponents (one line, at most 160 characters once cleaned; never shown to "
                                    "the caller's partner before the board is complete)")
    card: str | None = Field(None, max_length=4)
    lead: str | None = Field(None, max_length=4, description="a keyed result's opening lead")
    contract: str | None = Field(None, max_length=10)
    declarer: str | None = Field(None, max_length=5)
    tricks: int | None = Field(None, ge=0, le=13)
    accept: bool | None = None
    code: str | None = Field(None, max_length=64)
    option: str | None = Field(None, max_length=64)
    deliberate: bool | None = None
    ts: str | None = Field(None, max_length=64)
    source: str | None = Field(None, max_length=128)


class RulingIn(BaseModel):
    """A choice among the options an open irregularity offers (``options[].code``)."""
    model_config = ConfigDict(extra="forbid", strict=True)
    code: str = Field(..., min_length=1, max_length=64, description="the irregularity's code")
    option: str = Field(..., min_length=1, max_length=64, description="one of its options' codes")
    tricks: StrictInt | None = Field(None, ge=0, le=13, description="a disputed claim: the declarer side's total")
    note: str | None = Field(None, max_length=500, description="the director's note for the record (a claim ruling)")


class AdjustmentIn(BaseModel):
    """Law 12: artificial (A+ 60 / A 50 / A- 40 or a percentage per side), assigned (a contract and result), or
    cancel. Strictly typed: tricks an integer 0-13 (not ``true``, not ``"9"``); a percentage a finite number or
    its decimal text, never a boolean."""
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)
    kind: Literal["artificial", "assigned", "cancel"]
    ns: Literal["A+", "A", "A-"] | Percent | PercentText | None = None
    ew: Literal["A+", "A", "A-"] | Percent | PercentText | None = None
    contract: str | None = Field(None, max_length=10)
    declarer: str | None = Field(None, max_length=1)
    tricks: StrictInt | None = Field(None, ge=0, le=13)
    note: str | None = Field(None, max_length=500)


class ConfirmIn(BaseModel):
    """The opponents' answer to a board's result. ``seat``: the opponent who answers on the terminal that keyed
    the result, when it is handed over to him (a scoring-only table)."""
    model_config = ConfigDict(extra="forbid", strict=True)
    accept: bool
    seat: Literal["N", "E", "S", "W"] | None = None


class TableKindIn(BaseModel):
    """``scoring``: real cards and no readers, the result keyed at the table; ``played``: readers and boxes."""
    model_config = ConfigDict(extra="forbid", strict=True)
    kind: Literal["scoring", "played"]


class DirectorCallIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    reason: Literal["call", "cards_differ", "insufficient_bid", "call_out_of_rotation", "lead_out_of_turn", "revoke",
                    "claim_dispute", "unauthorized_information", "misinformation", "other"] = Field(
        "call", description="what the call is about: cards_differ (the player's cards differ from the hand record, "
        "Laws 13, 87), an irregularity with its laws (service/live/director_calls.py REASONS), or other with a note")
    note: str | None = Field(None, max_length=2000, description="a short note (other: required; at most 120 "
                             "printable characters once control characters are dropped)")
