"""Property-based fuzzing of the API: schemathesis generates requests from /openapi.json (no 5xx, ever), and
hypothesis throws random table events at a table in play (no 5xx; a refused event changes nothing)."""
from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error

from service.dealing import deal_for
from service.testing import ServerProcess

CONFIG = {"tables": [{"id": "F"}, {"id": "G"}], "regulation": {"spectators": {"delay_s": 0}}}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServerProcess(tmp_path_factory.mktemp("fuzz"), CONFIG) as srv:
        with srv.client(srv.token) as d:
            for t in ("F", "G"):
                d.post(f"/api/tables/{t}/events", json={"type": "board", "board": 1, "deal": deal_for(5, 1).to_pbn()})
                for seat, call in (("N", "1S"), ("E", "Pass")):
                    d.post(f"/api/tables/{t}/events", json={"type": "call", "seat": seat, "call": call})
        yield srv


def test_api_never_fails_with_5xx(server: ServerProcess) -> None:
    """Every operation of /openapi.json, with schemathesis-generated requests (as the director, as nobody)."""
    schema = schemathesis.openapi.from_url(server.base + "/openapi.json")
    turn = itertools.count()
    operations = [r.ok() for r in schema.get_all_operations()]      # type: ignore[union-attr]  # Err: fails here
    assert len(operations) >= 12

    for op in operations:
        @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), database=None)
        @given(case=op.as_strategy())
        def run(case: Any) -> None:
            n = next(turn)
            if case.path_parameters and "table_id" in case.path_parameters and n % 2 == 0:
                case.path_parameters["table_id"] = "F"          # reach a real table half of the time
            headers = {} if n % 3 == 2 else {"Authorization": f"Bearer {server.token}"}
            case.call_and_validate(base_url=server.base, headers=headers, checks=[not_a_server_error])

        run()


SEAT = st.sampled_from(["N", "E", "S", "W", "n", "x", ""])
CARD = st.one_of(st.sampled_from(["SA", "HT", "D2", "C9", "S10", "h4"]), st.text(max_size=4))
CALL = st.one_of(st.sampled_from(["Pass", "X", "XX", "1C", "1NT", "2S", "7NT", "8C"]), st.text(max_size=5))
EVENTS = st.one_of(
    st.fixed_dictionaries({"type": st.just("call"), "seat": SEAT, "call": CALL}, optional={"alert": st.booleans()}),
    st.fixed_dictionaries({"type": st.just("card"), "seat": SEAT, "card": CARD}),
    st.fixed_dictionaries({"type": st.just("claim"), "seat": SEAT, "tricks": st.integers(-2, 15)}),
    st.fixed_dictionaries({"type": st.just("claim_response"), "seat": SEAT, "accept": st.booleans()}),
    st.fixed_dictionaries({"type": st.just("exposed"), "seat": SEAT, "cards": st.lists(CARD, max_size=3)},
                          optional={"deliberate": st.booleans()}),
    st.fixed_dictionaries({"type": st.just("ruling"), "code": st.sampled_from(
        ["INSUFFICIENT_BID", "REVOKE", "CLAIM_DISPUTED", "OPENING_LEAD_OUT_OF_TURN", "X"]),
        "option": st.sampled_from(["accept", "refuse", "correct", "rule", "spread", "64B4", "?"])},
        optional={"tricks": st.integers(0, 13)}),
    st.fixed_dictionaries({"type": st.just("hand"), "seat": SEAT, "cards": st.lists(CARD, max_size=14)}),
    st.fixed_dictionaries({"type": st.just("contract"), "contract": st.sampled_from(["4S", "3NTX", "Pass", "9Q"]),
                           "declarer": SEAT}),
    st.fixed_dictionaries({"type": st.just("board"), "board": st.integers(-1, 40)},
                          optional={"deal": st.one_of(st.just(deal_for(5, 2).to_pbn()), st.text(max_size=20))}),
)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(events=st.lists(EVENTS, min_size=1, max_size=6))
def test_random_events_on_a_live_table(server: ServerProcess, events: list[dict[str, Any]]) -> None:
    with httpx.Client(base_url=server.base, headers={"Authorization": f"Bearer {server.token}"}, timeout=10) as d:
        for ev in events:
            before = d.get("/api/tables/G").json()
            r = d.post("/api/tables/G/events", json=ev)
            assert r.status_code < 500, (ev, r.text)
            if r.status_code != 200:
                assert r.status_code in (409, 422), (ev, r.status_code, r.text)
                after = d.get("/api/tables/G").json()
                for k in ("devices", "updated"):
                    before.pop(k, None)
                    after.pop(k, None)
                assert after == before, f"a refused event changed the table: {ev}"
            else:
                assert r.json()["seq"] == before["seq"] + 1


def test_fuzz_server_still_healthy(server: ServerProcess, tmp_path: Path) -> None:
    assert httpx.get(server.base + "/api/health").status_code == 200
    log = server.log_path.read_text()
    assert "Traceback" not in log or "the engine failed" in log
