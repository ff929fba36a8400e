"""A club's configuration read and checked: ``load_settings`` reads a TOML or JSON file, the environment and
keyword overrides into ``Settings`` (``service/config/settings.py``) and ``check_settings`` checks what only the domain
can: the event's movements, sections and entrants are built (``service/config/event_plan.py``). Either raises
``ConfigError`` with the reason.
"""
from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from service.config.event_plan import build_session
from service.config.settings import Settings
from service.errors import ConfigError


def check_settings(settings: Settings) -> Settings:
    """``settings`` if the domain accepts them (the event's plan can be built), else ``ConfigError``."""
    if settings.event is not None:
        try:
            build_session(settings.event)
        except ValueError as err:
            raise ConfigError(f"invalid configuration: event: {err}") from err
    return settings


def load_settings(path: str | Path | None = None, **overrides: Any) -> Settings:
    """Settings from a ``.toml`` or ``.json`` file (none: defaults), then ``BRIDGETABLE_DB`` and
    ``BRIDGETABLE_DIRECTOR_TOKEN`` from the environment, then keyword overrides; checked (``check_settings``)."""
    data: dict[str, Any] = {}
    if path is not None:
        p = Path(path)
        try:
            text = p.read_text(encoding="utf-8")
            data = tomllib.loads(text) if p.suffix.lower() == ".toml" else json.loads(text)
        except (OSError, ValueError) as err:
            raise ConfigError(f"cannot read configuration {p}: {err}") from err
        if not isinstance(data, dict):
            raise ConfigError(f"{p}: the configuration is an object")
    if os.environ.get("BRIDGETABLE_DB"):
        data["database"] = os.environ["BRIDGETABLE_DB"]
    if os.environ.get("BRIDGETABLE_DIRECTOR_TOKEN"):
        data["director_token"] = os.environ["BRIDGETABLE_DIRECTOR_TOKEN"]
    for k, v in overrides.items():
        if v is not None:
            data[k] = v
    try:
        settings = Settings.model_validate(data)
    except ValidationError as err:
        raise ConfigError(f"invalid configuration: {err}") from err
    return check_settings(settings)
