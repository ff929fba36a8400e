"""Whole numbers written as text where a credential or a signed header carries them: one spelling each.

``str.isdigit`` is true for '²', which ``int`` refuses (a 500 where a 401 belonged), and ``int`` reads '٣',
'０１', ' 1' and '01' as numbers: a signed value with several spellings is one credential under many names.
Only ASCII digits without a sign, spaces or leading zeros pass.
"""
from __future__ import annotations

import re

CANONICAL = re.compile(r"0|[1-9][0-9]*")


def canonical_int(text: str, digits: int) -> int | None:
    """``text`` as an int if it is the one spelling of a number of at most ``digits`` digits, else None."""
    if len(text) <= digits and CANONICAL.fullmatch(text):
        return int(text)
    return None
