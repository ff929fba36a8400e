"""Scoring checked against vectors published by independent software.

Source of the vectors: the test suite of the bridge-scorer JavaScript package (github.com/richardschneider/
bridge-scorer, files test/imps.js and test/matchpoints.js). Its games give the score from declarer's side; a
game declared by E or W is written here as minus that score (North-South's side), as bridge-scorer converts it.
"""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from results import imps
from results.movement import mitchell
from results.scoring import Line, butler_board, butler_datum, cross_imps_board, matchpoint_board
from results.session import BoardResult, Session

T = Line.table


def test_imp_scale_bridge_scorer():
    # test/imps.js "is caclulated based on the score difference" and "is negative when difference is negative"
    for diff, expected in ((0, 0), (10, 0), (20, 1), (2240, 19), (3600, 23), (4000, 24), (50000, 24)):
        assert imps(diff) == expected
        assert imps(-diff) == -expected


def test_butler_datum_of_three_scores_is_the_plain_mean():
    # test/imps.js "calcs datum for 3 or less games": 650 (N), 170 (N), 200 (S) -> datum 340
    assert butler_datum([650, 170, 200]) == 340
    scores = butler_board([T(650), T(170), T(200)])
    assert {s.datum for s in scores} == {340}
    assert [s.ns for s in scores] == [imps(650 - 340), imps(170 - 340), imps(200 - 340)] == [7, -5, -4]


def test_butler_datum_and_imps_of_six_scores():
    # test/imps.js "calcs datum for 10 or less games" and "assigns imps based on the datum"
    # (bridge-scorer cites bridgewebs.com/woburnsands "Butler Pairs Scoring"): 650 W, 170 W, 1440 W,
    # -100 E, 170 E, 200 E -> NS -650, -170, -1440, 100, -170, -200; datum -300; IMPs -8 4 -15 9 4 3
    ns = [-650, -170, -1440, 100, -170, -200]
    assert butler_datum(ns) == -300
    scores = butler_board([T(v) for v in ns])
    assert all(s.datum == -300 for s in scores)
    assert [s.ns for s in scores] == [-8, 4, -15, 9, 4, 3]
    assert [s.ew for s in scores] == [8, -4, 15, -9, -4, -3]


def test_butler_through_the_session_with_three_tables():
    # the rule of bridge-scorer's 3-game vector, through the session: NS scores 450, 400 and 170 at three
    # tables -> datum 340 (the plain mean), IMPs +3 (110), +2 (60), -5 (-170)
    mv = mitchell(3, boards_per_round=1)
    s = Session("Butler", "BUTLER", mv, check_boards=False)
    board = 1
    s.add_result(BoardResult(board, 1, 4, score_ns=450))
    s.add_result(BoardResult(board, 2, 5, score_ns=400))
    s.add_result(BoardResult(board, 3, 6, score_ns=170))
    tr = s.traveller(board)
    assert {x.datum for x in tr.scores} == {340}                # (450 + 400 + 170) / 3
    assert [x.ns for x in tr.scores] == [3, 2, -5]


def test_butler_datum_is_rounded_to_ten():
    # rounding the datum keeps every difference a multiple of 10, as the IMP scale's bands assume
    assert butler_datum([100, 130]) == 120                      # 115 -> 120 (an exact 5 away from zero)
    assert butler_datum([-100, -130]) == -120
    assert butler_datum([3990, 0, 0]) == 1330                   # 1330.0
    assert butler_datum([4000, 10, 0]) == 1340                  # 1336.67 -> 1340
    assert [s.ns for s in butler_board([T(100), T(130)])] == [-1, 0]   # differences -20 and +10
    # without rounding, 3995 (the scale's gap between 23 and 24 IMPs) would arise from 4000 and 5
    assert [s.ns for s in butler_board([T(3990), T(0)])] == [imps(3990 - 2000), imps(0 - 2000)]


@given(st.lists(st.integers(-760, 760).map(lambda k: 10 * k), min_size=1, max_size=20))
def test_every_difference_from_the_datum_is_a_multiple_of_ten(scores):
    for s in butler_board([T(v) for v in scores]):
        assert s.datum % 10 == 0
    d = butler_datum(scores)
    assert all((v - d) % 10 == 0 for v in scores)


def test_cross_imps_bridge_scorer():
    # test/imps.js "scores cross imps" (bridge-scorer cites bridge-tips.co.il scoring.pdf):
    # 620, 170, 140, 140, -100 (all by S) -> 10.50, -0.25, -1.25, -1.25, -7.75
    scores = cross_imps_board([T(v) for v in (620, 170, 140, 140, -100)])
    assert [round(s.ns, 2) for s in scores] == [10.5, -0.25, -1.25, -1.25, -7.75]
    assert [round(s.ew, 2) for s in scores] == [-10.5, 0.25, 1.25, 1.25, 7.75]


@pytest.mark.parametrize("ns_scores, mp_ns, mp_ew", [
    # test/matchpoints.js "scores a simple game (no ties)"
    ([400, 430, 150, -50], [4, 6, 2, 0], [2, 0, 4, 6]),
    # "scores a 2-way tie": all by W, so NS -110, -140, -140, -120
    ([-110, -140, -140, -120], [6, 1, 1, 4], [0, 5, 5, 2]),
    # "scores a 3-way tie": all by W: NS 50, -90, -90, -90
    ([50, -90, -90, -90], [6, 2, 2, 2], [0, 4, 4, 4]),
    # "scores a passed in game": 90 (N), passed out, -50 (N), -50 (N)
    ([90, 0, -50, -50], [6, 4, 1, 1], [0, 2, 5, 5]),
])
def test_matchpoints_bridge_scorer(ns_scores, mp_ns, mp_ew):
    scores = matchpoint_board([T(v) for v in ns_scores])
    assert [s.ns for s in scores] == mp_ns
    assert [s.ew for s in scores] == mp_ew
