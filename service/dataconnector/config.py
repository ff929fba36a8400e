"""The ``dataconnector`` block of the settings: the scoring program's credentials and the port it calls."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class DataConnectorConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    club_id: str = Field(..., min_length=1, max_length=64, description="the club id the scoring program sends")
    licence_key: str = Field(..., min_length=1, max_length=128,
                             description="the licence key the scoring program sends")
    port: int = Field(default=5079, ge=0, le=65535, description="the Data Connector's port (the protocol's 5079)")
    host: str | None = Field(default=None, description="address to listen on (default: the service's)")
    table_kind: Literal["played", "scoring"] = Field(
        default="scoring", description="the kind of the tables InitializeEvent sets up: played (cards and readers) "
                                      "or scoring (Bridgemate-style: the result keyed at the table)")
