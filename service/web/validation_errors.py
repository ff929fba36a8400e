"""The 422 for a body or parameter that does not fit the schema: the fields named, what was sent echoed at most
``ECHO`` characters long (never a 5 MB input back, never a value JSON cannot encode: NaN, a lone surrogate); and
pydantic's complaints about a field in keyed words a page translates (``validation_words``)."""
from __future__ import annotations

import math
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import ValidationError

from service.web.hardening import ECHO
from table.texts import Text, translatable

MAX_ERRORS = 20


def _safe(v: Any, depth: int = 0) -> Any:
    """``v`` made small and encodable: long strings cut, lone surrogates replaced, NaN and infinities named."""
    if depth > 4:
        return "..."
    if isinstance(v, str):
        s = v.encode("utf-8", "replace").decode("utf-8")
        return s if len(s) <= ECHO else s[:ECHO] + f"... ({len(s)} characters)"
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    if isinstance(v, (bool, int, float)) or v is None:
        return v
    if isinstance(v, dict):
        items = list(v.items())
        out = {str(_safe(k, depth + 1)): _safe(x, depth + 1) for k, x in items[:MAX_ERRORS]}
        if len(items) > MAX_ERRORS:
            out["..."] = f"{len(items) - MAX_ERRORS} more"
        return out
    if isinstance(v, (list, tuple)):
        return [_safe(x, depth + 1) for x in v[:MAX_ERRORS]] + ([f"... {len(v) - MAX_ERRORS} more"]
                                                                 if len(v) > MAX_ERRORS else [])
    return _safe(repr(v), depth)


async def validation_error_handler(request: Request, err: Exception) -> JSONResponse:
    assert isinstance(err, RequestValidationError)
    errors = []
    for e in err.errors()[:MAX_ERRORS]:
        item = {k: e[k] for k in ("type", "loc", "msg") if k in e}
        if "input" in e:
            item["input"] = e["input"]
        errors.append(_safe(item))
    # the pieces a page words in its language (table/texts.py): which fields did not fit, by their names
    fields = ", ".join(dict.fromkeys(".".join(str(x) for x in e.get("loc", ())[1:]) or str(e.get("loc", ("?",))[0])
                                     for e in err.errors()[:MAX_ERRORS]))
    return JSONResponse({"detail": errors, **translatable(Text("refusal.schema", "these fields do not fit: {fields}",
                                                                fields=fields), "detail")}, status_code=422)


def validation_words(err: ValidationError, limit: int = 8) -> Text:
    """Pydantic's complaints (at most ``limit``), each "field: message" with pydantic's English, keyed where a
    page words it: the field by its dotted name (``field``), a bound, the values a field takes."""
    pieces = [_field_words(".".join(str(x) for x in e["loc"]) or "event", e) for e in err.errors()[:limit]]
    words = pieces[0]
    for piece in pieces[1:]:
        words = words + Text("refusal.field_separator", "; ") + piece
    return words


def _field_words(field: str, e: Any) -> Text:
    ctx = e.get("ctx") or {}
    kind = e["type"]
    keyed: Text | None = None
    if kind == "greater_than_equal":
        keyed = Text("refusal.field_at_least", "{field}: Input should be greater than or equal to {limit}",
                     field=field, limit=ctx.get("ge"))
    elif kind == "less_than_equal":
        keyed = Text("refusal.field_at_most", "{field}: Input should be less than or equal to {limit}", field=field,
                     limit=ctx.get("le"))
    elif kind == "literal_error":
        keyed = Text("refusal.field_one_of", "{field}: Input should be {expected}", field=field,
                     expected=ctx.get("expected"))
    elif kind == "int_parsing":
        keyed = Text("refusal.field_not_a_number", "{field}: Input should be a valid integer, unable to parse string "
                     "as an integer", field=field)
    elif kind == "int_from_float":
        keyed = Text("refusal.field_fraction", "{field}: Input should be a valid integer, got a number with a "
                     "fractional part", field=field)
    elif kind == "int_type":
        keyed = Text("refusal.field_not_an_integer", "{field}: Input should be a valid integer", field=field)
    elif kind == "string_type":
        keyed = Text("refusal.field_not_text", "{field}: Input should be a valid string", field=field)
    elif kind == "missing":
        keyed = Text("refusal.field_missing", "{field}: Field required", field=field)
    elif kind == "extra_forbidden":
        keyed = Text("refusal.field_unknown", "{field}: Extra inputs are not permitted", field=field)
    if keyed is not None and str(keyed) == f"{field}: {e['msg']}":     # pydantic's English, word for word
        return keyed
    return Text("refusal.field_not_valid", "{field}: {message}", field=field, message=e["msg"])
