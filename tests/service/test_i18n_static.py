"""The pages' translations, checked without a browser: every key a page's JavaScript or HTML uses (``t()``,
``te()``, ``data-i18n*``) has its traditional-Chinese entry in ``service/web/static/locales/zh-Hant/<prefix>.json``
(a key ``console.table_n`` lives in ``console.json``), every locale file is valid JSON whose keys are all used,
and every page declares its language and the phone viewport."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parents[2] / "service" / "web" / "static"
LOCALE = STATIC / "locales" / "zh-Hant"
# t("page.key", ...) / te("key", ...); the key is the first argument, a string literal.
T_CALL = re.compile(r"""(?<![\w.$])(t|te)\(\s*(["'])([^"'`$]+?)\2\s*[,)]""")
# A key built at run time: t("common.seat." + s, ...) or t(`common.irr.${code}`, ...): the prefix counts as used.
T_PREFIX = re.compile(r"""(?<![\w.$])(?:t|te)\(\s*(?:(["'])([\w.]+)\1\s*\+|`([\w.]+)\$\{)""")
DATA_I18N = re.compile(r"""data-i18n(?:-title|-placeholder|-label)?=(["'])([^"']+)\1""")
TE_PAGE = {"console_event.js": "console_event"}        # te() adds its page's prefix itself
# engine.json: the law engine's sentences (table/texts.py), keyed by the engine, not by a page's t();
# tests/table/test_texts.py checks them against the engine's keys
ENGINE = "engine"


def _sources() -> list[Path]:
    return sorted(p for p in STATIC.iterdir() if p.suffix in (".js", ".html"))


def _code(path: Path) -> str:
    """The file's text without whole-line comments (a comment may show how a key is written)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return "\n".join(line for line in lines if not line.lstrip().startswith("//"))


def _used() -> tuple[dict[str, set[str]], set[str]]:
    """key -> the files that use it; and the prefixes of keys built at run time."""
    keys: dict[str, set[str]] = {}
    prefixes: set[str] = set()
    for path in _sources():
        text = _code(path)
        for fn, _q, key in T_CALL.findall(text):
            if fn == "te":
                page = TE_PAGE.get(path.name)
                assert page, f"{path.name}: te() is only known in {sorted(TE_PAGE)}"
                key = f"{page}.{key}"
            keys.setdefault(key, set()).add(path.name)
        for _q, lit, tmpl in T_PREFIX.findall(text):
            prefixes.add(lit or tmpl)
        for _q, key in DATA_I18N.findall(text):
            keys.setdefault(key, set()).add(path.name)
    return keys, prefixes


def _locales() -> dict[str, dict[str, str]]:
    out = {}
    for path in sorted(LOCALE.glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as err:
            pytest.fail(f"{path.name} is not valid JSON: {err}")
        assert isinstance(data, dict) and all(isinstance(v, str) and v.strip() for v in data.values()), path.name
        out[path.stem] = data
    return out


def test_the_scanner_finds_the_pages_keys() -> None:
    keys, prefixes = _used()
    assert {"console.table_n", "console_event.late", "common.law_n", "index.console"} <= set(keys)
    assert "common.irr." in prefixes and "common.seat." in prefixes
    assert "key" not in keys, "a comment's example is no key"


def test_every_key_used_has_its_chinese_entry() -> None:
    keys, _ = _used()
    locales = _locales()
    missing = []
    for key, files in sorted(keys.items()):
        page = key.split(".")[0]
        if key not in locales.get(page, {}) and key not in locales["common"]:
            missing.append(f"{key} (used in {', '.join(sorted(files))}; expected in zh-Hant/{page}.json)")
    assert not missing, "keys without a zh-Hant entry:\n" + "\n".join(missing)


def test_every_locale_entry_is_used_and_in_its_pages_file() -> None:
    keys, prefixes = _used()
    unused, misplaced = [], []
    for page, data in _locales().items():
        if page == ENGINE:
            continue
        for key in data:
            if not key.startswith(page + "."):
                misplaced.append(f"{page}.json: {key}")
            if key not in keys and not any(key.startswith(p) for p in prefixes):
                unused.append(f"{page}.json: {key}")
    assert not misplaced, "keys in another page's file:\n" + "\n".join(misplaced)
    assert not unused, "locale keys no page uses:\n" + "\n".join(unused)


def test_translations_keep_their_placeholders() -> None:
    """A Chinese string names the same {params} as the English one it replaces (else a number goes missing)."""
    english: dict[str, str] = {}
    for path in _sources():
        for key, text in re.findall(r"""(?<![\w.$])t\(\s*"([^"]+)",\s*"([^"]*)\"""", path.read_text(encoding="utf-8")):
            english.setdefault(key, text)
    wrong = []
    for data in _locales().values():
        for key, zh in data.items():
            if key in english and set(re.findall(r"\{(\w+)\}", english[key])) != set(re.findall(r"\{(\w+)\}", zh)):
                wrong.append(f"{key}: {english[key]!r} vs {zh!r}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("page", sorted(p.name for p in STATIC.glob("*.html")))
def test_every_page_declares_its_language_and_the_viewport(page: str) -> None:
    html = (STATIC / page).read_text(encoding="utf-8")
    assert re.search(r"<html[^>]*\slang=\"[a-zA-Z-]+\"", html), f"{page}: <html> without lang"
    assert re.search(r"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">", html), \
        f"{page}: no viewport meta"
