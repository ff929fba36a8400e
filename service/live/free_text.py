"""A player's short free text (a director call's note, an alert's explanation): one line of printable text, its
length limited. Control and format characters (bidi overrides, zero-width joiners used to spoof text) go, runs of
white space become one space; the pages escape what remains when they show it."""
from __future__ import annotations

import unicodedata

from service.errors import Invalid
from table.texts import Text

NOTE_CHARS = 120            # a director call's "other" note
EXPLANATION_CHARS = 160     # an alert's explanation


def one_line(text: object, limit: int, what: str) -> str:
    """``text`` cleaned to one printable line of at most ``limit`` characters (``Invalid`` in words if longer or
    not text); "" when nothing printable is left."""
    if not isinstance(text, str):
        raise Invalid(_refusal(what, limit, None))
    kept = "".join(" " if unicodedata.category(ch) in ("Zs", "Zl", "Zp", "Cc") else ch for ch in text
                   if unicodedata.category(ch) not in ("Cf", "Co", "Cs", "Cn") or ch in "\t\n\r")
    cleaned = " ".join(kept.split())
    if len(cleaned) > limit:
        raise Invalid(_refusal(what, limit, len(cleaned)))
    return cleaned


def _refusal(what: str, limit: int, got: int | None) -> str:
    """Why ``one_line`` refuses a text (``got``: its length; None: not text), keyed for a page where ``what`` is
    a player's note or explanation (table/texts.py)."""
    if what == "the note":
        return (Text("refusal.note_not_text", "the note is text") if got is None else
                Text("refusal.note_too_long", "the note is at most {limit} characters (got {count})", limit=limit,
                     count=got))
    if what == "the explanation":
        return (Text("refusal.explanation_not_text", "the explanation is text") if got is None else
                Text("refusal.explanation_too_long", "the explanation is at most {limit} characters (got {count})",
                     limit=limit, count=got))
    return f"{what} is text" if got is None else f"{what} is at most {limit} characters (got {got})"
