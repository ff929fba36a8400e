"""Law 77 scoring table: test vectors plus properties (Law 78 is results's: tests/results/test_law78.py)."""
import pytest
from hypothesis import given
from hypothesis import strategies as st

from table.board import Vulnerability
from table.scoring import Contract, parse_contract, score, score_ns

# --- Law 77 cumulative undertrick table, rows: (vulnerable, risk) -------------------
UNDERTRICKS = {
    (False, ""): [50, 100, 150, 200, 250, 300, 350, 400, 450, 500, 550, 600, 650],
    (False, "X"): [100, 300, 500, 800, 1100, 1400, 1700, 2000, 2300, 2600, 2900, 3200, 3500],
    (False, "XX"): [200, 600, 1000, 1600, 2200, 2800, 3400, 4000, 4600, 5200, 5800, 6400, 7000],
    (True, ""): [100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1100, 1200, 1300],
    (True, "X"): [200, 500, 800, 1100, 1400, 1700, 2000, 2300, 2600, 2900, 3200, 3500, 3800],
    (True, "XX"): [400, 1000, 1600, 2200, 2800, 3400, 4000, 4600, 5200, 5800, 6400, 7000, 7600],
}


@pytest.mark.parametrize("vul,risk,down", [(v, r, d) for (v, r) in UNDERTRICKS for d in range(1, 14)])
def test_undertrick_table(vul, risk, down):
    # 7NT down 13 (0 tricks) reaches every row's last column.
    assert score(Contract(7, "NT", risk), vul, 13 - down) == -UNDERTRICKS[vul, risk][down - 1]


VECTORS = [  # (contract, vulnerable, tricks, declarer score) from the digest
    ("4S", False, 10, 420), ("3NT", True, 10, 630), ("3NT", False, 9, 400), ("1NT", False, 7, 90),
    ("2S", False, 9, 140), ("1NTX", False, 6, -100), ("2HX", False, 8, 470), ("2HX", True, 8, 670),
    ("2CX", False, 8, 180), ("3DX", False, 9, 470), ("1CXX", False, 7, 230), ("1NTXX", False, 7, 560),
    ("1NTXX", True, 7, 760), ("5DX", True, 12, 950), ("4HXX", True, 11, 1480), ("6S", False, 12, 980),
    ("7NT", True, 13, 2220), ("7CXX", True, 13, 2660), ("4SX", False, 7, -500), ("3NTXX", True, 5, -2200),
]


@pytest.mark.parametrize("text,vul,tricks,expected", VECTORS)
def test_digest_vectors(text, vul, tricks, expected):
    assert score(parse_contract(text), vul, tricks) == expected


def test_doubled_major_is_60_per_trick_not_seed_misprint():
    # 2SX made: 120 trick points = game. With the seed's misprinted 40 it would be 80, a partscore.
    assert score(Contract(2, "S", "X"), False, 8) == 120 + 300 + 50


def test_passed_out_scores_zero():
    assert score(None, True, 0) == 0 and score_ns(None, Vulnerability.ALL, 0) == 0
    assert score(parse_contract("Pass"), False, 7) == 0


def test_score_ns_sides_and_vulnerability():
    c = Contract(4, "S", "", "E")
    assert score_ns(c, Vulnerability.EW, 10) == -620          # E vulnerable, NS lose 620
    assert score_ns(c, Vulnerability.NS, 10) == -420          # NS vulnerability is irrelevant to E
    assert score_ns(Contract(4, "S", "", "S"), Vulnerability.NS, 9) == -100
    assert score_ns(Contract(3, "NT", "", "N"), Vulnerability.NONE, 9) == 400
    with pytest.raises(ValueError, match="declarer"):
        score_ns(Contract(4, "S"), Vulnerability.NONE, 10)


def test_bad_tricks_rejected():
    with pytest.raises(ValueError):
        score(Contract(1, "C"), False, 14)


# --- parsing ----------------------------------------------------------------------------------
@pytest.mark.parametrize("text,expected", [
    ("4SX", "4SX"), ("3NXX", "3NTXX"), ("4S*", "4SX"), ("4S**", "4SXX"), ("3nt x", "3NTX"),
    ("1h", "1H"), (" 7 NT XX ", "7NTXX"), ("6c*", "6CX"), ("3N", "3NT"),
])
def test_parse_contract(text, expected):
    assert str(parse_contract(text)) == expected


@pytest.mark.parametrize("text", ["Pass", "PASS", "pass", "P", "AP"])
def test_parse_passed_out(text):
    assert parse_contract(text) is None


@pytest.mark.parametrize("text", ["", "8S", "0NT", "4", "4Z", "4SXXX", "4S***", "X", "4NTT", "S4"])
def test_parse_rejects(text):
    with pytest.raises(ValueError, match="not a contract"):
        parse_contract(text)


def test_parse_declarer_and_validation():
    assert parse_contract("4SX", "W") == Contract(4, "S", "X", "W")
    for bad in [(0, "S"), (8, "S"), (1, "N"), (1, "S", "XXX"), (1, "S", "", "Q")]:
        with pytest.raises(ValueError):
            Contract(*bad)


# --- Law 77 properties ------------------------------------------------------------------------
contracts = st.builds(Contract, st.integers(1, 7), st.sampled_from(["C", "D", "H", "S", "NT"]),
                      st.sampled_from(["", "X", "XX"]), st.sampled_from(["N", "E", "S", "W", None]))
tricks_st = st.integers(0, 13)


@given(contracts)
def test_str_parse_round_trip(c):
    assert parse_contract(str(c), c.declarer) == c


@given(contracts, st.booleans(), tricks_st)
def test_sign_and_multiple_of_ten(c, vul, tricks):
    s = score(c, vul, tricks)
    assert s % 10 == 0
    assert (s > 0) if tricks >= c.level + 6 else (s < 0)


@given(contracts, st.booleans(), st.integers(0, 12))
def test_monotonic_in_tricks(c, vul, tricks):
    assert score(c, vul, tricks + 1) >= score(c, vul, tricks)


@given(contracts, tricks_st)
def test_vulnerability_raises_stakes(c, tricks):
    nv, v = score(c, False, tricks), score(c, True, tricks)
    if tricks >= c.level + 6:
        assert v >= nv
    else:
        assert -v >= -nv                          # undertricks cost at least as much vulnerable


@given(st.integers(1, 7), st.sampled_from(["C", "D", "H", "S", "NT"]), st.booleans(), tricks_st)
def test_doubling_raises_stakes(level, strain, vul, tricks):
    plain, dbl, rdbl = (score(Contract(level, strain, r), vul, tricks) for r in ("", "X", "XX"))
    if tricks >= level + 6:
        assert plain <= dbl <= rdbl
    else:
        assert plain >= dbl >= rdbl               # penalties grow with each double


@given(contracts, st.sampled_from(list(Vulnerability)), tricks_st)
def test_score_ns_antisymmetric(c, vulnerability, tricks):
    if c.declarer is None:
        return
    partner = {"N": "S", "S": "N", "E": "W", "W": "E"}[c.declarer]
    lho = {"N": "E", "E": "S", "S": "W", "W": "N"}[c.declarer]
    base = score_ns(c, vulnerability, tricks)
    assert score_ns(Contract(c.level, c.strain, c.risk, partner), vulnerability, tricks) == base
    # The same contract played by the other side, vulnerability swapped accordingly, flips the sign.
    swap = {Vulnerability.NS: Vulnerability.EW, Vulnerability.EW: Vulnerability.NS}.get(vulnerability, vulnerability)
    assert score_ns(Contract(c.level, c.strain, c.risk, lho), swap, tricks) == -base


def test_bad_input_raises_the_domain_errors() -> None:
    """Each refusal is a ``BridgeError`` of its module (and still a ``ValueError`` for callers that know only it)."""
    from table.board import BoardError, parse_vulnerability
    from table.dealgen import DealGenerationError, generate
    from table.errors import BridgeError
    from table.scoring import ScoringError, parse_contract

    for call, err in [(lambda: parse_contract("8S"), ScoringError),
                      (lambda: parse_vulnerability("sideways"), BoardError),
                      (lambda: generate(0), DealGenerationError)]:
        with pytest.raises(err) as info:
            call()
        assert isinstance(info.value, BridgeError) and isinstance(info.value, ValueError)
