"""The engine's sentences for people (an irregularity's detail, a rectification option's text) as data a page can
translate: a :class:`Text` *is* its English sentence (a ``str``: logs, the journal, the API's ``text`` and
``detail`` are unchanged) and also carries a stable ``key`` and the ``params`` it was filled with. The pages look
the key up in their locale (``service/web/static/locales/<lang>/engine.json``, ``engine.<key>``) and fill the
same ``{name}`` placeholders, wording a seat, suit, card or call parameter in the page's language (docs/service.md,
"Language").

A parameter's name says what it holds, so a page can word it: ``seat``/``seat2``/``offender``/``partner``/
``leader``/``declarer``/``dummy``/``claimer`` a seat letter (``seat_name``/``seat2_name``: the same, which the
English names in full, "North"); ``suit`` a suit letter (S H D C; the English names the suit; ``one_suit`` the same
in the singular: "a spade"); ``suits`` suit letters joined by "/"; ``card``/``cards`` card codes ("SA", several
separated by spaces); ``call``/``call2`` a call ("1NT", "Pass", "X"); ``side``/``side2`` a side (NS, EW); ``option``
a rectification option's code (``options``: several, joined by ", "; ``chooser``: whose choice an option is, a seat
letter or declarer, defenders, director); ``code`` an irregularity's code; ``disposition`` how one was disposed of;
``kind`` an event's type; ``vulnerability`` a board's (None, NS, EW, All); ``card_name`` a card code the English
names in words ("ace of spades"); ``pocket``/``pocket2`` a dealing machine's pocket, a seat letter ("North pocket";
empty: "reject tray"); ``decision``/``choices`` a dealing machine's decision(s) (continue, redeal, skip, abort;
several joined by ", "); ``credential`` the English name of a sign-in credential (a refusal's parameters);
``field``/``fields`` a request's field(s) by dotted name ("movement.tables"); ``expected`` the values a field takes,
as pydantic quotes them ("'skip' or 'relay'"); anything else is shown as it is (a law number, a count, ``message``:
pydantic's own words)."""
from __future__ import annotations

from typing import Any

SUIT_WORDS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}   # a suit parameter in English
SEAT_WORDS = {"N": "North", "E": "East", "S": "South", "W": "West"}          # a ``seat_name`` in English
RANK_WORDS = {"A": "ace", "K": "king", "Q": "queen", "J": "jack", "T": "10"}


def card_words(card: str) -> str:
    """A card in English words (a ``card_name`` parameter): ``"HT"`` -> ``"10 of hearts"``."""
    return f"{RANK_WORDS.get(card[1], card[1])} of {SUIT_WORDS[card[0]]}"


def _english(name: str, value: str) -> str:
    """A parameter as the English sentence writes it (see the module docstring)."""
    if name.startswith("suit"):
        return SUIT_WORDS.get(value, value)
    if name == "one_suit":
        return SUIT_WORDS.get(value, "s")[:-1]
    if name.startswith("card") and name.endswith("_name"):
        return card_words(value) if len(value) == 2 and value[0] in SUIT_WORDS else value
    if name.startswith("pocket"):
        return f"{SEAT_WORDS[value]} pocket" if value in SEAT_WORDS else "reject tray"
    return SEAT_WORDS.get(value, value) if name.endswith("_name") else value


class Text(str):
    """An English sentence with the key and parameters that translate it (see the module docstring). Texts
    joined with ``+`` (a detail the engine extends: ``irr.detail += Text(...)``) stay a Text whose ``parts`` are
    the pieces, each translated on its own; a plain ``str`` piece stays English."""

    key: str
    template: str
    params: dict[str, str]
    parts: tuple[str, ...]

    def __new__(cls, key: str, english: str, page: str | None = None, **params: Any) -> Text:
        """``page``: the English a page shows when the recorded English is written for a program (a reader of
        the journal parses ``tricks_transferred=1``; a player reads "1 trick transferred")."""
        fields = {k: str(v) for k, v in params.items()}
        english_fields = {k: _english(k, v) for k, v in fields.items()}
        return _rebuild(english.format(**english_fields), key, fields, (), page or english)

    def __reduce__(self) -> tuple[Any, ...]:          # copies and pickles keep the key and parameters
        return (_rebuild, (str(self), self.key, self.params, self.parts, self.template))

    def pieces(self) -> tuple[str, ...]:
        return self.parts or (self,)

    def __add__(self, other: str) -> Text:
        return _joined(self, other)

    def __radd__(self, other: str) -> Text:
        return _joined(other, self)


def _rebuild(english: str, key: str, params: dict[str, str], parts: tuple[str, ...], template: str = "") -> Text:
    self = str.__new__(Text, english)
    self.key, self.params, self.parts, self.template = key, params, parts, template
    return self


def _joined(a: str, b: str) -> Text:
    parts = tuple(p for x in (a, b) for p in (x.pieces() if isinstance(x, Text) else (x,)) if p)
    return _rebuild(str.__add__(str(a), str(b)), "", {}, parts)


def translatable(value: str, field: str) -> dict[str, Any]:
    """``<field>_parts`` for a dict entry holding ``value`` when it is a :class:`Text`: each piece's English
    ``text`` and, where it has one, its ``key``, English ``template`` and ``params`` (a page joins the pieces it
    worded: in English from the template, so a card reads "♠10" and a seat "West", never "ST" or "W")."""
    if not isinstance(value, Text):
        return {}
    return {f"{field}_parts": [{"text": str(p), "key": p.key, "template": p.template, "params": dict(p.params)}
                               if isinstance(p, Text) and p.key else {"text": str(p)} for p in value.pieces()]}
