"""Scoring across the field: matchpoints and Neuberg (78A), cross-IMPs, Butler and teams IMPs (78B),
adjusted scores (Law 12C, 86, 88), fouled boards (Law 87), and the session's incremental ranking."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from results.errors import MovementError, ResultEntryError, ResultsError, ScoreTableError
from results.movement import howell, mitchell, teams_match
from results.scoring import (
    Artificial,
    Line,
    artificial_session_percent,
    award_from_percent,
    award_imps,
    award_percent,
    butler_board,
    butler_datum,
    cross_imps_board,
    matchpoint_board,
    parse_award,
    percent_of_field,
    percent_to_imps,
    round_datum,
    team_board_imps,
    wbf_vp,
)
from results.session import BoardResult, Entrant, Session, Traveller, Update
from table.errors import BridgeError

T = Line.table


def _traveller(s: Session, board: int) -> Traveller:
    tr = s.traveller(board)
    assert tr is not None, f"board {board} has no results"
    return tr


def test_matchpoints_law_78a() -> None:
    s = matchpoint_board([T(100), T(200), T(200), T(-50)])
    assert [x.ns for x in s] == [2.0, 5.0, 5.0, 0.0]       # 2 per score beaten, 1 per tie
    assert [x.ew for x in s] == [4.0, 1.0, 1.0, 6.0]
    assert all(x.top == 6.0 for x in s) and s[1].ns_percent == pytest.approx(83.3333, abs=1e-3)


def test_neuberg_for_artificial_scores() -> None:
    lines = [T(100), T(200), T(300), T(400), T(500), Line(art_ns=Artificial.PLUS, art_ew=Artificial.MINUS)]
    s = matchpoint_board(lines)
    top = 10.0                                        # 6 results on the board
    assert all(x.top == top for x in s)
    assert s[4].ns == pytest.approx((8 + 1) * 6 / 5 - 1)        # 9.8
    assert s[0].ns == pytest.approx((0 + 1) * 6 / 5 - 1)        # 0.2
    assert (s[5].ns, s[5].ew) == (6.0, 4.0)                    # 60 % / 40 % of the top
    # factoring keeps the total: the five scored lines share 5/6 of ... each pair of lines sums to the top
    assert all(x.ns + x.ew == pytest.approx(top) for x in s[:5])
    # a board played fewer times than the movement says: factor to n_max
    s2 = matchpoint_board([T(100), T(200)], n_max=4)
    assert s2[1].ns == pytest.approx((2 + 1) * 4 / 2 - 1) and s2[1].top == 6.0
    # without factoring, the board's own top
    assert matchpoint_board([T(100), T(200), Line(art_ns=Artificial.AVERAGE, art_ew=Artificial.AVERAGE)],
                            factor=False)[1].ns == 2.0


def test_law_12c1_awards_in_each_unit() -> None:
    """One table per unit: 60/50/40 % of the top (12C1), +3/0/-3 IMPs (86A); an explicit value as it is."""
    assert [award_percent(a) for a in Artificial] == [60.0, 50.0, 40.0]
    assert [award_imps(a) for a in Artificial] == [3.0, 0.0, -3.0]
    assert award_percent(55.0) == 55.0 and award_imps(-1.5) == -1.5
    assert parse_award("A=") is parse_award("A") is Artificial.AVERAGE
    for bad in ("nan", "inf", "-inf"):
        with pytest.raises(ResultsError):
            parse_award(bad)
    # a director's percentage in the session's unit
    assert award_from_percent(60, imps=True) is Artificial.PLUS
    assert award_from_percent(40.0, imps=False) is Artificial.MINUS
    assert award_from_percent(55, imps=False) == 55.0 and award_from_percent(55, imps=True) == 1.5
    assert [percent_to_imps(p) for p in (0, 45, 50, 60, 70, 100)] == [-15.0, -1.5, 0.0, 3.0, 6.0, 15.0]
    assert percent_to_imps(33.3) == -5.01
    for out_of_range in (-0.1, 100.5, float("nan")):
        with pytest.raises(ResultsError):
            award_from_percent(out_of_range, imps=True)


def test_one_root_for_the_results_errors() -> None:
    for err in (MovementError, ResultEntryError, ScoreTableError):
        assert issubclass(err, ResultsError)
    assert issubclass(ResultsError, BridgeError) and issubclass(ResultsError, ValueError)
    with pytest.raises(ResultsError):
        Line()                                                     # neither a score nor awards
    with pytest.raises(ResultsError):
        Line(art_ns=Artificial.PLUS)                               # one side's award only
    with pytest.raises(ResultsError):
        _ = Line(art_ns=Artificial.PLUS, art_ew=Artificial.MINUS).views


def test_artificial_awards_and_explicit_values() -> None:
    assert parse_award("A+") is Artificial.PLUS and parse_award("ave-") is Artificial.MINUS
    assert parse_award("55") == 55.0
    with pytest.raises(ResultsError):
        parse_award("plenty")
    s = matchpoint_board([T(0), T(10), Line(art_ns=55.0, art_ew=Artificial.AVERAGE)])
    assert s[2].ns == pytest.approx(2.2) and s[2].ew == pytest.approx(2.0)
    imp = cross_imps_board([T(420), T(-50), Line(art_ns=Artificial.PLUS, art_ew=Artificial.AVERAGE)])
    assert (imp[2].ns, imp[2].ew) == (3.0, 0.0)                  # Law 86A: +3, and 0 for average
    assert imp[0].ns == 10.0                                      # the artificial line is not compared with


def test_split_assigned_score_law_12c2() -> None:
    # NS assigned +420 (judged on it), EW assigned as if NS made +400: the two need not balance
    lines = [Line(420, 400), T(420), T(400), T(450)]
    s = matchpoint_board(lines)
    assert s[0].ns == 3.0 and s[0].ew == 5.0 and s[0].top == 6.0 and s[0].ns + s[0].ew > s[0].top
    assert s[1].ns == 3.5                       # half a tie and half a win against the split line
    x = cross_imps_board(lines)
    assert x[0].ns == pytest.approx((0 + 1 - 1) / 3) and x[0].ew == pytest.approx((1 + 0 + 2) / 3)


def test_fouled_board_groups_law_87() -> None:
    # four tables played the board as dealt (group "a"), two played a fouled form ("b")
    lines = [T(100, "a"), T(140, "a"), T(140, "a"), T(-100, "a"), T(620, "b"), T(650, "b")]
    s = matchpoint_board(lines)
    assert all(x.top == 10.0 for x in s)
    # group b: 650 beat 620 -> raw 2 of 2, factored to 6 results: (2 + 1) * 6 / 2 - 1 = 8
    assert s[5].ns == pytest.approx(8.0) and s[4].ns == pytest.approx(2.0)
    # group a is compared within itself only: 620/650 do not count against it
    assert s[1].ns == pytest.approx(((5 + 1) * 6 / 4) - 1)
    # cross-IMPs and Butler too are per group
    x = cross_imps_board(lines)
    assert x[5].ns == pytest.approx(1.0)
    b = butler_board(lines)
    assert b[4].datum == 640 and b[0].datum == 120


def test_cross_imps() -> None:
    s = cross_imps_board([T(420), T(450), T(-50)])
    assert s[0].ns == pytest.approx((-1 + 10) / 2) and s[2].ns == pytest.approx((-10 - 11) / 2)
    assert sum(x.ns for x in s) == pytest.approx(0.0)
    assert [x.ns for x in cross_imps_board([T(420), T(450), T(-50)], average=False)] == [9.0, 12.0, -21.0]


def test_butler_datum_convention() -> None:
    assert round_datum(933.33) == 930 and round_datum(445) == 450 and round_datum(-445) == -450
    # Cap Gemini 1998 round 1 board 1: eight results, datum 930 (920/940 trimmed mean 933.3)
    sc = [920, 940, 940, 940, 990, 920, 920, 940]
    assert butler_datum(sc) == 930
    assert [x.ns for x in butler_board([T(v) for v in sc])] == [0, 0, 0, 0, 2, 0, 0, 0]
    assert butler_datum([100, 200, 600]) == 300                 # three scores: no trimming
    assert butler_datum([100, 200, 300, 1000]) == 250


def test_teams_imps_and_vp() -> None:
    assert team_board_imps(620, -100) == 12 and team_board_imps(-100, 620) == -12
    assert wbf_vp(0, 16) == (10.0, 10.0)
    w, lose = wbf_vp(25, 16)
    assert w + lose == pytest.approx(20.0) and w > 15 and wbf_vp(-25, 16) == (lose, w)
    assert wbf_vp(200, 16) == (20.0, 0.0)
    prev = 10.0
    for m in range(1, 80):
        assert wbf_vp(m, 12)[0] >= prev
        prev = wbf_vp(m, 12)[0]


def _session(scoring: str = "MP", seed: int = 1, shift: int = 0) -> Session:
    mv = mitchell(5, boards_per_round=2)
    s = Session("t", scoring, mv)
    rnd = random.Random(seed)
    for sit in mv.sittings:
        for b in sit.boards:
            s.add_result(BoardResult(b, *sit.pairs, score_ns=rnd.choice(range(-800, 1500, 10)) + shift))
    return s


def test_session_incremental_equals_batch_and_notifies() -> None:
    mv = mitchell(5)
    s = Session("club", "MP", mv)
    seen: list[Update] = []
    s.subscribe(seen.append)
    rnd = random.Random(7)
    results = [BoardResult.played(b, *sit.pairs, rnd.choice(["4S", "3NT", "2H", "PASS"]), "S", rnd.randint(6, 12))
               for sit in mv.sittings for b in sit.boards]
    rnd.shuffle(results)
    for r in results:
        s.add_result(r)
    assert len(seen) == len(results) and seen[-1].revision == s.revision == len(results)
    assert all(u.provisional for u in seen)
    batch = Session("club", "MP", mv)
    batch.add_results(sorted(results, key=lambda r: r.key))
    assert [(r.entrant, round(r.score, 9)) for r in s.ranking()] == \
        [(r.entrant, round(r.score, 9)) for r in batch.ranking()]
    # a correction replaces the result and rescored only that board
    r0 = results[0]
    up = s.add_result(BoardResult(r0.board, r0.ns, r0.ew, score_ns=2220))
    tr = _traveller(s, r0.board)
    assert up.action == "replaced" and tr.results[[x.key for x in tr.results].index(r0.key)].score_ns == 2220
    s.remove_result(r0.board, r0.ns, r0.ew)
    assert len(_traveller(s, r0.board).results) == 4
    assert s.publish().provisional is False
    # the wrong-board check: the movement says where each board is
    sit = mv.at(1, 1)
    assert s.expected_boards(1, 1) == sit.boards
    with pytest.raises(ResultEntryError):
        s.add_result(BoardResult(sit.boards[0] + 2, *sit.pairs, score_ns=0))
    with pytest.raises(ResultEntryError):
        s.add_result(BoardResult(sit.boards[0], *sit.pairs, table=2, score_ns=0))


def test_law_88_average_plus_is_at_least_session_percentage() -> None:
    mv = howell(6)
    s = Session("h", "MP", mv)
    for sit in mv.sittings:
        for b in sit.boards:
            if sit.ns == 6 or sit.ew == 6:
                score = 2000 if sit.ns == 6 else -2000            # pair 6 tops every board it plays
            else:
                score = 0
            s.add_result(BoardResult(b, *sit.pairs, score_ns=score))
    sit = next(x for x in mv.sittings if 6 in (x.ns, x.ew))
    b = sit.boards[0]
    awards = (Artificial.PLUS, Artificial.MINUS) if sit.ns == 6 else (Artificial.MINUS, Artificial.PLUS)
    s.add_result(BoardResult(b, *sit.pairs, artificial=awards))
    row = next(r for r in s.ranking() if r.entrant == 6)
    assert row.place == 1 and row.score == pytest.approx(100.0)     # not pulled down to 60 % on that board
    s88 = Session("h", "MP", mv, law88=False)
    s88.add_results(x for x in s.section().results.values())
    assert next(r for r in s88.ranking() if r.entrant == 6).score < 100.0


def test_two_field_mitchell_ranks_ns_and_ew_apart() -> None:
    s = _session()
    fields = {r.field for r in s.ranking()}
    assert fields == {"NS", "EW"}
    assert sorted(r.place for r in s.ranking() if r.field == "NS")[0] == 1


def test_teams_match_session() -> None:
    mv = teams_match(range(1, 5))
    s = Session("m", "IMP", mv, vp=True, entrants=[Entrant(1, team_name="Lions"), Entrant(2, team_name="Tigers")])
    s.add_result(BoardResult.played(1, 1, 2, "4S", "N", 10))      # open: 420 to Lions NS
    s.add_result(BoardResult.played(1, 2, 1, "2S", "S", 9))       # closed: Tigers NS +140
    s.add_result(BoardResult(2, 1, 2, artificial=(Artificial.PLUS, Artificial.MINUS)))
    s.add_result(BoardResult.played(2, 2, 1, "3NT", "N", 9))
    s.add_result(BoardResult.played(3, 1, 2, "1NT", "N", 7, group="a"))
    s.add_result(BoardResult.played(3, 2, 1, "1NT", "N", 8, group="b"))   # fouled: rooms differ -> 0
    m = s.matches()[0]
    assert m["boards_scored"] == 3
    assert m["imps"] == 7 + 3 + 0 and m["opponent_imps"] == 0          # IMPs won by each team
    assert m["vp"] == wbf_vp(10, 4)[0]                                  # the margin counts each board once
    ranking = s.ranking()
    assert ranking[0].display == "Lions" and ranking[0].score == m["vp"] > 10
    ko = Session("ko", "IMP", mv, knockout=True)
    ko.add_result(BoardResult(1, 1, 2, assigned=(420, 400)))      # split: Lions judged on 420, Tigers on 400
    ko.add_result(BoardResult(1, 2, 1, score_ns=-420))
    tr = _traveller(ko, 1)
    line = tr.scores[tr.results.index(next(r for r in tr.results if r.ns == 1))]
    assert line.ns == -line.ew                                     # Law 86B: averaged, balancing
    with pytest.raises(ResultsError):
        Session("bad", "IMP", mitchell(3))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-300, 300).map(lambda x: x * 10), min_size=1, max_size=30))
def test_matchpoints_sum_to_n_times_n_minus_1(scores: list[int]) -> None:
    s = matchpoint_board([T(v) for v in scores])
    n = len(scores)
    assert sum(x.ns for x in s) == pytest.approx(n * (n - 1))
    assert all(x.ns + x.ew == pytest.approx(x.top) for x in s)
    x = cross_imps_board([T(v) for v in scores])
    assert sum(y.ns for y in x) == pytest.approx(0.0, abs=1e-9)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(-150, 150).map(lambda c: c * 10),
       st.sampled_from(["MP", "XIMP", "BUTLER"]))
def test_ranking_invariant_under_adding_a_constant(seed: int, shift: int, scoring: str) -> None:
    a = _session(scoring, seed)
    b = _session(scoring, seed, shift)
    assert [(r.field, r.entrant, r.place) for r in a.ranking()] == [(r.field, r.entrant, r.place) for r in b.ranking()]


def test_percent_of_field() -> None:
    assert percent_of_field(307, 155) == pytest.approx(99.35, abs=0.01)
    with pytest.raises(ResultsError):
        percent_of_field(0, 0)


def _top_and_bottom_session(laws: str | None,
                            skip: tuple[int, int] | None = None) -> tuple[Session, tuple[int, int]]:
    """howell(6): pair 6 tops every board it plays, pair 5 is bottom on every other board it plays; the
    board of their own meeting is ``(board, sitting)``; ``skip`` leaves that result out."""
    mv = howell(6)
    s = Session("h", "MP", mv, laws=laws)
    meeting = next(x for x in mv.sittings if {x.ns, x.ew} == {5, 6})
    for sit in mv.sittings:
        for b in sit.boards:
            if skip == (b, sit.round) and sit is meeting:
                continue
            if 6 in (sit.ns, sit.ew):
                score = 2000 if sit.ns == 6 else -2000
            elif 5 in (sit.ns, sit.ew):
                score = -2000 if sit.ns == 5 else 2000
            else:
                score = 0
            s.add_result(BoardResult(b, *sit.pairs, score_ns=score))
    return s, (meeting.boards[0], meeting.round)


@pytest.mark.parametrize("laws", [None, "1997", "2017", "wbf2017"])
def test_session_percentage_rule_by_edition(laws: str | None) -> None:
    """Law 88 (1997) and 12C2(c) (2017): the non-offending pair keeps a session percentage above 60 %; the
    offending pair's average minus is 40 % (1997) or its own lower session percentage (2017)."""
    s, (board, rnd) = _top_and_bottom_session(laws)
    other, _ = _top_and_bottom_session(laws, skip=(board, rnd))
    own = {r.entrant: r.score for r in other.ranking()}
    assert own[6] == pytest.approx(100.0) and own[5] < 40.0
    sit = next(x for x in s.section().movement.sittings if x.round == rnd and {x.ns, x.ew} == {5, 6})
    awards = (Artificial.PLUS, Artificial.MINUS) if sit.ns == 6 else (Artificial.MINUS, Artificial.PLUS)
    s.add_result(BoardResult(board, *sit.pairs, artificial=awards))
    got = {r.entrant: r.score for r in s.ranking()}
    assert got[6] == pytest.approx(100.0)                               # both editions: at least its own
    if laws in ("2017", "wbf2017"):
        assert got[5] == pytest.approx(own[5])                          # 12C2(c): its own lower percentage
    else:
        assert got[5] > own[5] + 0.1                                    # 1997: average minus is 40 %
    assert s.laws == ("2017" if laws in ("2017", "wbf2017") else "1997")
    with pytest.raises(ValueError, match="unknown law edition"):
        Session("h", "MP", howell(6), laws="2007")


@pytest.mark.parametrize(("laws", "ew"), [("1997", 40.0), ("2017", 35.0)])
def test_d15_session_percentages(laws: str, ew: float) -> None:
    """D15: NS not at fault with 65 % on the other boards, EW at fault with 35 %."""
    assert artificial_session_percent(False, 65.0, laws) == 65.0
    assert artificial_session_percent(True, 35.0, laws) == ew
