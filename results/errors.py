"""The results package's exceptions: one tree, rooted in :class:`ResultsError` (a ``ValueError``)."""
from __future__ import annotations


class ResultsError(ValueError):
    """Bad input to the results code (a malformed movement, an unknown pair, a bad score table)."""


class MovementError(ResultsError):
    """A movement that is not valid: a pair meeting a board twice, two pairs in one seat, a bad file."""


class ResultEntryError(ResultsError):
    """A board result that cannot be entered (wrong board for the table and round, unknown pair)."""


class ScoreTableError(ResultsError):
    """A PBN ScoreTable / TotalScoreTable section that cannot be read; the message says where."""
