"""The law engine judged by real recorded bridge (the corpus at BRIDGETABLE_CORPUS): its agreement figures.

Skips without BRIDGETABLE_CORPUS; `.ci/run` sets it so CI exercises the whole corpus.
"""
from __future__ import annotations

from collections import Counter

import pytest

from table.agreement import analyse
from table.replay import replay_paths


def _files(folder, suffix):
    return sorted(f for f in folder.rglob("*") if f.is_file() and f.suffix.lower() == suffix)


@pytest.fixture(scope="module")
def pbn_verdicts(corpus):
    files = _files(corpus / "pbn-corpus", ".pbn")
    assert len(files) == 1394
    return files, list(replay_paths(files, jobs=2))


@pytest.fixture(scope="module")
def lin_verdicts(corpus):
    files = _files(corpus / "lin-vugraph", ".lin")
    return files, list(replay_paths(files))


def test_no_pbn_file_fails_as_a_whole_and_no_engine_error(pbn_verdicts):
    files, verdicts = pbn_verdicts
    per_file = Counter(v["source"] for v in verdicts if v["status"] != "error")
    assert {str(f) for f in files} == set(per_file)          # every file gives readable records
    assert not [v for v in verdicts if v["record"] == -1]      # no reader crash
    assert not [v for v in verdicts if "engine error" in (v["error"] or "")]


def test_pbn_corpus_agreement(pbn_verdicts):
    stats, _ = analyse(pbn_verdicts[1])
    assert stats["records"] > 51000
    assert stats["contract"] / stats["with_deal_and_auction"] >= 0.995
    assert stats["tricks_equal"] / stats["result_comparable"] >= 0.995
    # every record that carries both a Score and its result (Result tag, claim or full play)
    assert stats["score_equal"] / stats["score_scored"] >= 0.99
    # the file's Score where the play stops with neither a claim nor a Result cannot be reproduced:
    # those records stay in the overall figure (see docs/corpus-report.md)
    assert stats["score_equal"] / stats["score_comparable"] >= 0.97


def test_known_bad_pbn_records_are_flagged_not_rejected(pbn_verdicts):
    stats, _ = analyse(pbn_verdicts[1])
    irr = stats["irregularities"]
    assert irr.get("INSUFFICIENT_BID (27)", 0) >= 20
    assert irr.get("INADMISSIBLE_DOUBLE (36)", 0) >= 5
    assert irr.get("REVOKE (61A)", 0) >= 100
    flagged = [v for v in pbn_verdicts[1] if any(i["code"] == "INSUFFICIENT_BID" for i in v["irregularities"])]
    assert all(v["status"] != "error" for v in flagged)
    assert sum(v["contract"] is not None for v in flagged) >= len(flagged) - 2


def test_lin_corpus_agreement(lin_verdicts):
    files, verdicts = lin_verdicts
    assert len(verdicts) == 861
    assert not [v for v in verdicts if v["status"] == "error"]
    stats, _ = analyse(verdicts)
    assert stats["contract"] / stats["with_deal_and_auction"] >= 0.995
    assert stats["irregularities"].get("CALL_AFTER_FINAL_PASS (39A)", 0) >= 1   # 192_19240's extra pass
    with_mc = [v for v in verdicts if v["status"] == "claimed"]
    assert len(with_mc) >= 780
