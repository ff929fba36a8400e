"""Hand-record files (every format), deal generation, and the `bridgetable deal` file commands."""
from __future__ import annotations

import os
import re
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table.board import Vulnerability
from table.cards import ALL_CARDS, Seat
from table.dealgen import HashDRBG, generate, random_deal, source
from table.handrecords import (
    FORMATS,
    HandRecordBoard,
    HandRecordError,
    format_for,
    read_bytes,
    read_hand_records,
    to_bytes,
    write_hand_records,
)

ROOT = Path(__file__).resolve().parents[2]


def _data_dir() -> Path | None:
    """shared/data: BRIDGETABLE_CORPUS, else the sibling folder of a checkout (``../shared/data``)."""
    for cand in (os.environ.get("BRIDGETABLE_CORPUS"), ROOT.parent / "shared" / "data"):
        if cand and (Path(cand) / "dealing-formats").is_dir():
            return Path(cand) / "dealing-formats"
    return None


DATA = _data_dir()
needs_data = pytest.mark.skipif(DATA is None, reason="shared/data/dealing-formats not found (set BRIDGETABLE_CORPUS)")
SAMPLES = sorted(p.name for p in DATA.iterdir() if p.suffix != ".md") if DATA else []
# the reference: board 1 of the set as every file holds it
BOARD1 = "N:65.A53.JT7.AK762 AK87.QT4.AK98.95 JT9.982.Q532.Q83 Q432.KJ76.64.JT4"


@pytest.fixture(scope="module")
def reference() -> list[HandRecordBoard]:
    if DATA is None:
        pytest.skip("shared/data/dealing-formats not found")
    return read_hand_records(DATA / "test.pbn")


# ------------------------------------------------------------------------------------------ (a) the 16 deals

@needs_data
def test_the_sample_set_covers_every_format():
    suffixes = {Path(n).suffix for n in SAMPLES}
    assert suffixes == {m.SUFFIXES[0] for m in FORMATS.values()}


@needs_data
@pytest.mark.parametrize("name", SAMPLES)
def test_sixteen_deals_read_identically_from_every_format(name, reference):
    boards = read_hand_records(DATA / name)
    assert [b.board for b in boards] == list(range(1, 17))
    assert boards == reference
    assert boards[0].deal.to_pbn() == BOARD1
    assert all(b.standard_markings for b in boards)


@needs_data
@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_every_written_format_reads_back_identically(fmt, reference, tmp_path):
    path = tmp_path / f"out{FORMATS[fmt].SUFFIXES[0]}"
    write_hand_records(reference, path)
    assert read_hand_records(path) == reference
    generated = generate(32, seed=fmt)
    write_hand_records(generated, path)
    assert read_hand_records(path) == generated


@needs_data
@pytest.mark.parametrize("fmt", ["BRI", "DGE", "DUP", "BER", "RZD", "CDS", "BHG", "CSV", "DLM"])
def test_binary_writers_reproduce_the_sample_files_byte_for_byte(fmt, reference):
    ours = to_bytes(reference, fmt)
    theirs = (DATA / f"test{FORMATS[fmt].SUFFIXES[0]}").read_bytes()
    if fmt == "DLM":                          # only the free-text headline differs
        ours, theirs = (re.sub(rb"Headline=[^\r\n]*", b"Headline=", x) for x in (ours, theirs))
    assert ours == theirs


def test_round_trip_without_the_sample_files():
    boards = generate(16, seed="round-trip")
    for fmt in FORMATS:
        assert read_bytes(to_bytes(boards, fmt), fmt) == boards, fmt


def test_explicit_formats_keep_numbers_and_markings():
    deal = random_deal(HashDRBG(1))
    odd = [HandRecordBoard(5, deal, Seat.S, Vulnerability.ALL), HandRecordBoard.of(40, deal)]
    for fmt in ("PBN", "CSV", "LIN"):
        assert read_bytes(to_bytes(odd, fmt), fmt) == odd, fmt


# ------------------------------------------------------------------------------------------ refusals and errors

def test_positional_writers_refuse_what_they_cannot_carry(tmp_path):
    later = generate(4, seed=1, first=17)
    for fmt in ("BRI", "DGE", "BER", "RZD"):
        with pytest.raises(HandRecordError, match="by position.*17-20"):
            to_bytes(later, fmt)
    assert read_bytes(to_bytes(later, "DUP"), "DUP") == later          # DUP and DLM carry the first number
    assert read_bytes(to_bytes(later, "DLM"), "DLM") == later
    gap = generate(3, seed=2)[:1] + generate(3, seed=2, first=3)[1:]
    with pytest.raises(HandRecordError, match="consecutive"):
        to_bytes(gap, "DUP")
    assert read_bytes(to_bytes(gap, "CDS"), "CDS") == gap              # CDS and BHG number each board
    assert read_bytes(to_bytes(gap, "BHG"), "BHG") == gap
    marked = [HandRecordBoard(1, gap[0].deal, Seat.S, Vulnerability.ALL)]
    with pytest.raises(HandRecordError, match="board 1: dealer S / vulnerability All.*Law 2"):
        to_bytes(marked, "DUP")
    with pytest.raises(HandRecordError, match="up to 99"):
        to_bytes(generate(2, seed=3, first=99), "DLM")
    with pytest.raises(HandRecordError, match="unknown hand-record format '.xyz'"):
        write_hand_records(gap, tmp_path / "x.xyz")
    a, b = generate(1, seed=4)[0], generate(1, seed=5)[0]
    with pytest.raises(HandRecordError, match="board 1: appears twice with different deals"):
        to_bytes([a, HandRecordBoard.of(1, b.deal)], "PBN")


def _sample(fmt: str) -> bytes:
    return to_bytes(generate(16, seed="sample"), fmt)


MALFORMED = [
    ("DUP", lambda d: d[:-10], r"board 16: truncated"),
    ("DUP", lambda d: d[:80] + b"9" + d[81:], r"board 1: .*(disagree|not a valid deal)"),
    ("DUP", lambda d: d[:146] + b"\0" * 10 + d[156:], r"no DUP header"),
    ("DUP", lambda d: d[:147] + b"R" + d[148:], r"reversed"),
    ("DLM", lambda d: re.sub(rb"Board 03=(.)", lambda m: b"Board 03=" + (b"c" if m.group(1) == b"b" else b"b"), d),
     r"board 3: checksum .* damaged line"),
    ("DLM", lambda d: d.replace(b"Checksum=17", b"Checksum=16"), r"header checksum"),
    ("DLM", lambda d: re.sub(rb"(Board 02=[a-p]{26})[0-9]", lambda m: m.group(1) + b"\xb2", d),
     r"board 2: .* not 26 letters a-p"),
    ("DLM", lambda d: d.replace(b"[Document]", b"[Doc]"), r"not a DLM file"),
    ("DLM", lambda d: re.sub(rb"Duplicates 05=0\r\nBoard 05=[^\r]*\r\n", b"", d), r"board 5: missing"),
    ("BRI", lambda d: d[:128] + b"99" + d[130:], r"board 2: card number 99"),
    ("BRI", lambda d: d[:128 * 3 + 40], r"board 4: truncated"),
    ("BRI", lambda d: d[:2] + d[4:6] + d[4:], r"board 1: .*(twice|card number)"),
    ("DGE", lambda d: d[:128 * 2 + 5] + b"X" + d[128 * 2 + 6:], r"board 3: byte 0x58"),
    ("BER", lambda d: d[:60] + b"5" + d[61:], r"board 2: '5' is not an owner digit"),
    ("BER", lambda d: d[:52 * 16 - 3], r"board 16: truncated"),
    ("BER", lambda d: b"1" * 52 + d[52:], r"board 1: not a valid deal"),
    ("RZD", lambda d: b"\x05" + d[1:], r"announces 5 boards"),
    ("RZD", lambda d: d[:-1], r"truncated"),
    ("CDS", lambda d: d[:-1], r"truncated"),
    ("CDS", lambda d: b"\0" + d[1:], r"board number 0"),
    ("BHG", lambda d: d.replace(d.split(b"\r\n")[2], d.split(b"\r\n")[2][:40]), r"board 2: line 3 has 40"),
    ("CSV", lambda d: d.replace(b'"1","N/-"', b'"1"'), r"row 1 has 17 fields"),
    ("CSV", lambda d: d.replace(b'"2","E/NS"', b'"2","Q/NS"'), r"board 2: .*dealer/vulnerability"),
    ("CSV", lambda d: d.replace(b'"3","S/EW"', b'"x","S/EW"'), r"row 3: board number 'x'"),
    ("PBN", lambda d: re.sub(rb'\[Deal "[^"]*"\]\n', b"", d, count=1), r"board 1: has no usable Deal tag$"),
    ("PBN", lambda d: d.replace(b'[Board "2"]', b'[Board "1"]'), r"board 1: appears twice"),
    ("PBN", lambda d: re.sub(rb'(\[Deal "[NESW]:)[^ ]*', rb"\1AKQJT98765432...", d, count=1),
     r"board 1: has no usable Deal tag \(.*bad Deal.*in both"),
    ("LIN", lambda d: d.replace(b"md|", b"mx|"), r"board 1: the md tag does not give a complete deal"),
]


@pytest.mark.parametrize("fmt,mutate,message", MALFORMED, ids=[f"{m[0]}-{i}" for i, m in enumerate(MALFORMED)])
def test_malformed_files_get_clear_errors(fmt, mutate, message):
    data = mutate(_sample(fmt))
    with pytest.raises(HandRecordError) as err:
        read_bytes(data, fmt, source="set.x")
    assert str(err.value).startswith("set.x")
    assert re.search(message, str(err.value)), str(err.value)


def test_unreadable_file_and_unknown_suffix(tmp_path):
    with pytest.raises(HandRecordError, match="cannot read the file"):
        read_hand_records(tmp_path / "none.pbn")
    with pytest.raises(HandRecordError, match=r"unknown hand-record format '\(no suffix\)'"):
        format_for("boards")
    assert format_for("SET.DUP") is FORMATS["DUP"]


# ------------------------------------------------------------------------------------------ fuzzing

READERS = sorted(FORMATS)


@pytest.mark.parametrize("fmt", READERS)
@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.binary(max_size=600))
def test_fuzz_random_bytes_only_hand_record_errors(fmt, data):
    try:
        boards = read_bytes(data, fmt, "fuzz")
    except HandRecordError:
        return
    assert all(isinstance(b, HandRecordBoard) and len(b.deal.owner) == 52 for b in boards)


@pytest.mark.parametrize("fmt", READERS)
@settings(max_examples=150, deadline=None)
@given(edits=st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255), st.sampled_from("rid")), max_size=6),
       cut=st.integers(0, 10_000))
def test_fuzz_damaged_files_only_hand_record_errors(fmt, edits, cut):
    data = bytearray(_sample(fmt))
    for pos, byte, op in edits:
        pos %= max(1, len(data))
        if op == "r":
            data[pos] = byte
        elif op == "i":
            data.insert(pos, byte)
        elif data:
            del data[pos]
    if cut % 3 == 0:
        data = data[:cut % (len(data) + 1)]
    try:
        boards = read_bytes(bytes(data), fmt, "fuzz")
    except HandRecordError:
        return
    assert all(len(b.deal.owner) == 52 for b in boards)


# ------------------------------------------------------------------------------------------ generation

def test_seeded_generation_is_reproducible_and_secure_by_default():
    assert generate(8, seed=42) == generate(8, seed=42)
    assert generate(8, seed=42) != generate(8, seed=43)
    assert generate(4, seed="club night") == generate(4, seed="club night")
    import secrets
    assert isinstance(source(), secrets.SystemRandom)
    assert isinstance(source(7), HashDRBG)
    a, b = generate(4), generate(4)
    assert a != b                                   # 4 boards from the OS CSPRNG: never equal in practice
    boards = generate(20, seed=1, first=9)
    assert [x.board for x in boards] == list(range(9, 29))
    assert all(x.standard_markings for x in boards)
    # a pinned value: the DRBG is SHA-256 counter mode, the same on every platform and Python version
    assert generate(1, seed=2024)[0].deal.to_pbn() == _PINNED


_PINNED = "N:A65.A.KJ932.8765 Q.J87632.8.AKQT4 KJT9842.Q95.4.93 73.KT4.AQT765.J2"


def test_hash_drbg_randrange_is_unbiased_enough():
    rng = HashDRBG("bias")
    counts = Counter(rng.randrange(3) for _ in range(30_000))
    assert set(counts) == {0, 1, 2}
    for v in counts.values():
        assert abs(v - 10_000) < 500                  # > 7 standard deviations would be needed to fail
    assert all(0 <= rng.randrange(52) < 52 for _ in range(1000))
    with pytest.raises(ValueError):
        rng.randrange(0)


def test_deals_are_uniform_over_seats():
    """Each card goes to each seat a quarter of the time; chi-square over 52 x 4 cells, 4000 deals."""
    rng = HashDRBG("uniform")
    counts = Counter()
    n = 4000
    for _ in range(n):
        d = random_deal(rng)
        counts.update((c, s) for c, s in d.owner.items())
    expected = n / 4
    chi2 = sum((counts[(c, s)] - expected) ** 2 / expected for c in ALL_CARDS for s in Seat)
    assert chi2 < 240            # 156 degrees of freedom: mean 156, sd ~17.7; 240 is beyond 4.7 sd


# ------------------------------------------------------------------------------------------ command line

def test_cli_generate_convert(tmp_path):
    from bridgetable.cli import main
    r = CliRunner()
    out = r.invoke(main, ["deal", "generate", "16", str(tmp_path / "s.pbn"), "--seed", "9"])
    assert out.exit_code == 0, out.output
    assert "predictable" in out.output
    out = r.invoke(main, ["deal", "convert", str(tmp_path / "s.pbn"), str(tmp_path / "s.dup")])
    assert out.exit_code == 0, out.output
    assert read_hand_records(tmp_path / "s.dup") == generate(16, seed=9)
    out = r.invoke(main, ["deal", "generate", "4", str(tmp_path / "x.bri"), "--first", "5"])
    assert out.exit_code == 1 and "consecutive from board 1" in out.output
    (tmp_path / "bad.dup").write_bytes(b"\0" * 100)
    out = r.invoke(main, ["deal", "convert", str(tmp_path / "bad.dup"), str(tmp_path / "x.pbn")])
    assert out.exit_code == 1 and "bad.dup: too short" in out.output


@needs_data
def test_cli_sheets_show_double_dummy_and_par(tmp_path):
    """The par of each board equals the OptimumScore its sample PBN file records."""
    from bridgetable.cli import main
    pbn = (DATA / "test.pbn").read_text()
    optimum = {int(b): int(s) for b, s in re.findall(r'\[Board "(\d+)"\].*?\[OptimumScore "NS (-?\d+)"\]', pbn, re.S)}
    subset = [b for b in read_hand_records(DATA / "test.pbn") if b.board <= 2]
    write_hand_records(subset, tmp_path / "two.pbn")
    out = CliRunner().invoke(main, ["deal", "sheets", str(tmp_path / "two.pbn"), str(tmp_path / "s.html")])
    assert out.exit_code == 0, out.output
    page = (tmp_path / "s.html").read_text()
    assert page.count("<section class=board>") == 2
    for b in subset:
        assert f"<h2>Board {b.board}</h2>" in page
        assert f"Par: NS {optimum[b.board]:+d}" in page
    # board 1: East-West make 10 tricks in spades, North-South 6 in notrump (the sample's own table)
    from table.handrecords.sheets import analyse
    a = analyse(subset[0])
    assert a.tricks[("E", "S")] == 10 and a.tricks[("N", "NT")] == 6 and a.par_score == -420
