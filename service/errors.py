"""The service's errors: one root, ``ServiceError``, and a subclass per kind of refusal.

They say what went wrong, not how to answer it: ``service/app.py`` maps each kind to an HTTP status in one
exception handler. ``extra`` holds further fields of the answer (e.g. the irregularities prevent mode refused).
"""
from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    """A request or event the service refuses; nothing changed."""

    def __init__(self, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.extra = extra


class NotFound(ServiceError):
    """No such table, board, target or event."""


class Invalid(ServiceError):
    """A malformed request: an event, an adjustment or a value that does not parse."""


class Conflict(ServiceError):
    """The request is well formed but cannot apply to the table or the club as they stand."""


class Prevented(Conflict):
    """A device in prevent mode refuses an event that would flag irregularities it can prevent (Law 80E)."""

    def __init__(self, message: str, codes: list[str]) -> None:
        super().__init__(message, prevented=codes)
        self.codes = codes


class Superseded(Conflict):
    """A conditional event whose condition no longer holds: the table's board changed since the caller looked
    (a robot's next board over the one the director has just put on the table)."""


class Unauthenticated(ServiceError):
    """No valid token: the caller must say who he is."""


class Forbidden(ServiceError):
    """The caller is known but this is not his to do or to see."""


class TooMany(ServiceError):
    """The caller has done this too often for now (``service/live/limits.py``); ``retry_after`` seconds to wait."""

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class Unavailable(ServiceError):
    """The service cannot do it now (the journal could not store a row)."""


class ConfigError(ServiceError, ValueError):
    """A configuration that cannot be read or does not describe a club."""
