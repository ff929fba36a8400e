"""Extract the seed's own Chinese wording of the laws the engine cites into service/live/lawtexts/wbf1997-cba1999.json.

The seed texts are the 1999 Chinese Bridge Association edition of the 1997 WBF Laws, in two hard-wrapped
plain-text files (Laws 1-40 and Laws 41-93). Each law is split into its sections (``27``, ``27B``,
``27B1``, ``27B1a``) so that service/live/lawtext.py can quote the part a ruling cites. A heading is taken only
when it is the next one expected (Law N+1..N+3, section A then B, item 1 then 2, (a) then (b)), which keeps
wrapped lines and cross-references ("參閱第26條") out of the structure.

    python bench/extract_seed_laws.py SEED_DIR [-o service/live/lawtexts/wbf1997-cba1999.json]
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = "1997 WBF Laws of Duplicate Contract Bridge, 1999 Chinese Bridge Association edition"
LAW_HEAD = re.compile(r"第(\d+)[條張]：")            # one seed file misprints 第60條 as 第60張
SECTION = re.compile(r"^([A-H])．")
ITEM = re.compile(r"^(\d+)[.．]")
SUBITEM = re.compile(r"^（([a-z])）")
CHAPTER = re.compile(r"^第[一二三四五六七八九十]+(章|部分|節)")
PINYIN = re.compile(r"[\u4e00-\u9fff]\([a-zāáǎàēéěèīíǐìōóǒòūúǔùǖǘǚǜü]+\)")   # a copy with readings inline
SENTENCE_END = "。：；！？）」"
WRAP_WIDTH = 25          # a heading this long without a closing mark was wrapped onto the next line
CITED = re.compile(r"\"(\d{1,2})[A-H]?\d?(?:\([a-z]\)|[a-z])?(?:/[^\"]*)?\"|Law (\d{1,2})[A-H]?")


def cited_laws() -> list[int]:
    """The law numbers the engine and the console cite (table/ sources and service/live/lawtext.py)."""
    found: set[int] = set()
    for path in [*sorted((ROOT / "table").rglob("*.py")), ROOT / "service" / "lawtext.py"]:
        for m in CITED.finditer(path.read_text(encoding="utf-8")):
            n = int(m.group(1) or m.group(2))
            if 1 <= n <= 93:
                found.add(n)
    return sorted(found)


class Parser:
    """Builds {law number: [node, ...]} from the lines of one seed file."""

    def __init__(self) -> None:
        self.laws: dict[int, list[dict[str, object]]] = {}
        self.law = 0
        self.letter = self.item = self.sub = ""
        self.node: dict[str, object] | None = None
        self.heading_wrapped = False

    def _open(self, key: str, depth: int, heading: str, line: str) -> None:
        self.node = {"key": key, "depth": depth, "heading": heading.strip(), "text": ""}
        self.laws[self.law].append(self.node)
        self.heading_wrapped = len(line) >= WRAP_WIDTH and line[-1] not in SENTENCE_END

    def _add_text(self, line: str) -> None:
        if self.node is None:
            return
        if self.heading_wrapped:
            self.heading_wrapped = False
            heading = str(self.node["heading"]) + line
            if len(heading) <= 2 * WRAP_WIDTH:
                self.node["heading"] = heading
                return
            self.node["heading"], self.node["text"] = "", heading    # a section without a heading: it was text
            return
        text = str(self.node["text"])
        joiner = "" if not text or text[-1] not in SENTENCE_END else "\n"
        self.node["text"] = text + joiner + line

    def _law_heading(self, line: str) -> bool:
        for m in LAW_HEAD.finditer(line):
            n = int(m.group(1))
            first = self.law == 0 and m.start() == 0
            if first or (self.law and 0 < n - self.law <= 3):
                self.law, self.letter, self.item, self.sub = n, "", "", ""
                self.laws[n] = []
                rest = line[m.end():]
                inline = re.search(r"[A-H]．", rest)       # "第19條：加倍和再加倍A．加倍"
                if inline and rest[inline.start()] == "A":
                    self._open(str(n), 0, rest[:inline.start()], "")
                    self.feed(rest[inline.start():])
                else:
                    self._open(str(n), 0, rest, "")
                return True
        return False

    def feed(self, line: str) -> None:
        line = line.strip()
        if not line or CHAPTER.match(line) and len(line) < 16:
            return
        if self._law_heading(line) or not self.law:
            return
        m = SECTION.match(line)
        if m and ord(m.group(1)) == (ord(self.letter) + 1 if self.letter else ord("A")):
            self.letter, self.item, self.sub = m.group(1), "", ""
            self._open(f"{self.law}{self.letter}", 1, line[m.end():], line)
            return
        m = ITEM.match(line)
        if m and self.letter and int(m.group(1)) == (int(self.item) + 1 if self.item else 1):
            self.item, self.sub = m.group(1), ""
            self._open(f"{self.law}{self.letter}{self.item}", 2, line[m.end():], line)
            return
        m = SUBITEM.match(line)
        if m and self.item and ord(m.group(1)) == (ord(self.sub) + 1 if self.sub else ord("a")):
            self.sub = m.group(1)
            self._open(f"{self.law}{self.letter}{self.item}{self.sub}", 3, line[m.end():], line)
            return
        self._add_text(line)


def extract(seed_dir: Path) -> dict[int, list[dict[str, object]]]:
    laws: dict[int, list[dict[str, object]]] = {}
    for path in sorted(seed_dir.glob("*.txt")):
        text = path.read_text(encoding="utf-8", errors="replace")
        if PINYIN.search(text) or not re.search(r"^第\d+條：", text, re.M):
            continue                   # a copy with inline readings, or no law headings at all
        parser = Parser()
        for line in text.splitlines():
            parser.feed(line)
        for n, nodes in parser.laws.items():
            laws.setdefault(n, nodes)
    return laws


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("seed_dir", type=Path)
    ap.add_argument("-o", "--output", type=Path, default=ROOT / "service" / "live" / "lawtexts" / "wbf1997-cba1999.json")
    args = ap.parse_args(argv)
    if not args.seed_dir.is_dir():
        print(f"not a directory: {args.seed_dir}", file=sys.stderr)
        return 2
    laws = extract(args.seed_dir)
    wanted = cited_laws()
    missing = [n for n in wanted if n not in laws]
    out = {"edition": "wbf1997-cba1999", "lang": "zh-Hant", "source": SOURCE,
           "note": "The seed's own wording, for the laws the engine cites; made by bench/extract_seed_laws.py.",
           "laws": {str(n): laws[n] for n in wanted if n in laws}}
    args.output.write_text(json.dumps(out, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"{len(out['laws'])} laws written to {args.output}; not found in the seed: {missing or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
