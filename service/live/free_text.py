"""A player's short free text (a director call's note, an alert's explanation): one line of printable text, its
length limited. Control and format characters (bidi overrides, zero-width joiners used to spoof text) go, runs of
white space become one space; the pages escape what remains when they show it."""
from __future__ import annotations

import unicodedata

from service.errors import Invalid

NOTE_CHARS = 120            # a director call's "other" note
EXPLANATION_CHARS = 160     # an alert's explanation


def one_line(text: object, limit: int, what: str) -> str:
    """``text`` cleaned to one printable line of at most ``limit`` characters (``Invalid`` in words if longer or
    not text); "" when nothing printable is left."""
    if not isinstance(text, str):
        raise Invalid(f"{what} is text")
    kept = "".join(" " if unicodedata.category(ch) in ("Zs", "Zl", "Zp", "Cc") else ch for ch in text
                   if unicodedata.category(ch) not in ("Cf", "Co", "Cs", "Cn") or ch in "\t\n\r")
    cleaned = " ".join(kept.split())
    if len(cleaned) > limit:
        raise Invalid(f"{what} is at most {limit} characters (got {len(cleaned)})")
    return cleaned
