"""The results package's exceptions: one tree, rooted in :class:`ResultsError`.

``ResultsError`` is a :class:`table.errors.BridgeError` (the bridge domain's one root) and a ``ValueError``
(callers that only know the built-in keep working). Nothing here knows about HTTP: the service maps these
to its responses.
"""
from __future__ import annotations

from table.errors import BridgeError


class ResultsError(BridgeError, ValueError):
    """Bad input to the results code (a malformed movement, an unknown pair, a bad score table)."""


class MovementError(ResultsError):
    """A movement that is not valid: a pair meeting a board twice, two pairs in one seat, a bad file."""


class ResultEntryError(ResultsError):
    """A board result that cannot be entered (wrong board for the table and round, unknown pair)."""


class ScoreTableError(ResultsError):
    """A PBN ScoreTable / TotalScoreTable section that cannot be read; the message says where."""
