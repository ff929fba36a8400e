"""The one exception root of the bridge domain.

Irregularities are data (``table.irregularity``), never exceptions: an exception from ``table`` means input
that cannot be read (a malformed card, call, event, record or hand-record file) or a request the state does
not allow (a ruling nobody is waiting for). Each module's error subclasses ``BridgeError``, and most also
subclass ``ValueError`` so that callers which only know the built-in keep working.
"""
from __future__ import annotations


class BridgeError(Exception):
    """Root of every error the ``table`` package raises."""
