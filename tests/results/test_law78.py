"""Law 78: the IMP scale (78B), matchpoints (78A) and Neuberg factoring (a regulation under 78D), each with its
one implementation in results/scoring.py."""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from results import IMP_UPPER, Line, ResultsError, imps, matchpoint_board, neuberg


def matchpoints(scores: list[int]) -> list[float]:
    """North-South matchpoints of plain table results, unfactored (every line plays the same board)."""
    return [s.ns for s in matchpoint_board([Line.table(x) for x in scores], factor=False)]


# --- Law 78B IMPs -----------------------------------------------------------------------------
def test_imp_table_boundaries() -> None:
    low = 0
    for n, high in enumerate(IMP_UPPER):
        for d in (low, high):
            assert imps(d) == n and imps(-d) == -n
        low = high + 10
    assert imps(4000) == 24 and imps(-4000) == -24 and imps(9990) == 24
    # spot checks from the table itself
    assert (imps(20), imps(370), imps(420), imps(430), imps(1500), imps(3990)) == (1, 9, 9, 10, 17, 23)


# --- Law 78A matchpoints ----------------------------------------------------------------------
def test_matchpoints_examples() -> None:
    assert matchpoints([420, 450, 420, -50, 170]) == [5.0, 8.0, 5.0, 0.0, 2.0]
    assert matchpoints([100, 100, 100]) == [2.0, 2.0, 2.0]
    assert matchpoints([0]) == [0.0]
    assert matchpoints([]) == []


def test_percent_and_neuberg() -> None:
    five = matchpoint_board([Line.table(x) for x in (420, 450, 400, -50, 170)], factor=False)
    assert five[1].ns_percent == 100.0 and five[2].ns_percent == 50.0    # 8 and 4 of a top of 8
    assert matchpoint_board([Line.table(0)], factor=False)[0].ns_percent is None   # a lone result has no top
    assert neuberg(6, 4, 4) == 6                 # full board: unchanged
    assert neuberg(6, 4, 6) == pytest.approx(9.5)  # (6+1)*6/4 - 1
    assert neuberg(0, 1, 5) == 4                 # lone result factors to the average of top 8
    with pytest.raises(ResultsError):
        neuberg(0, 5, 4)


@given(st.lists(st.integers(-100, 100).map(lambda x: x * 10), min_size=1, max_size=30))
def test_matchpoints_properties(scores: list[int]) -> None:
    mps = matchpoints(scores)
    n = len(scores)
    assert sum(mps) == n * (n - 1)               # every comparison hands out exactly 2 units
    for i, s in enumerate(scores):
        brute = sum(2 if s > t else 1 if s == t else 0 for j, t in enumerate(scores) if j != i)
        assert mps[i] == brute
