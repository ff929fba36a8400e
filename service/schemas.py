"""Request bodies of the REST API (they shape the OpenAPI schema at /openapi.json)."""
from __future__ import annotations

from typing import Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field

EventType = Literal["board", "hand", "call", "contract", "card", "exposed", "claim", "claim_response", "ruling"]


class EventIn(BaseModel):
    """A table event in its JSON form (ARCHITECTURE §3); which fields are needed depends on ``type``."""
    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra={"examples": [
        {"type": "call", "seat": "N", "call": "1NT"}, {"type": "card", "seat": "E", "card": "HT"}]})
    type: EventType
    board: Optional[int] = Field(None, ge=1, le=9999)
    deal: Optional[str] = Field(None, max_length=80, description='PBN deal, "N:AKQ.xxx.. ..."')
    dealer: Optional[str] = Field(None, max_length=5)
    vulnerable: Optional[str] = Field(None, max_length=8)
    seat: Optional[str] = Field(None, max_length=5)
    cards: Optional[list[str]] = Field(None, max_length=52)
    call: Optional[str] = Field(None, max_length=8)
    alert: Optional[bool] = None
    card: Optional[str] = Field(None, max_length=4)
    contract: Optional[str] = Field(None, max_length=10)
    declarer: Optional[str] = Field(None, max_length=5)
    tricks: Optional[int] = Field(None, ge=0, le=13)
    accept: Optional[bool] = None
    code: Optional[str] = Field(None, max_length=64)
    option: Optional[str] = Field(None, max_length=64)
    deliberate: Optional[bool] = None
    ts: Optional[str] = Field(None, max_length=64)
    source: Optional[str] = Field(None, max_length=128)


class RulingIn(BaseModel):
    """A choice among the options an open irregularity offers (``options[].code``)."""
    model_config = ConfigDict(extra="forbid", strict=True)
    code: str = Field(..., min_length=1, max_length=64, description="the irregularity's code")
    option: str = Field(..., min_length=1, max_length=64, description="one of its options' codes")
    tricks: Optional[int] = Field(None, ge=0, le=13, description="a disputed claim: the declarer side's total")


class AdjustmentIn(BaseModel):
    """Law 12: artificial (A+ 60 / A 50 / A- 40 or a percentage per side), assigned (a contract and result), or
    cancel."""
    model_config = ConfigDict(extra="forbid")
    kind: Literal["artificial", "assigned", "cancel"]
    ns: Optional[Union[Literal["A+", "A", "A-"], float]] = None
    ew: Optional[Union[Literal["A+", "A", "A-"], float]] = None
    contract: Optional[str] = Field(None, max_length=10)
    declarer: Optional[str] = Field(None, max_length=1)
    tricks: Optional[int] = Field(None, ge=0, le=13)
    note: Optional[str] = Field(None, max_length=500)
