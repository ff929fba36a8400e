"""Property-based fuzzing of the API: schemathesis generates requests from /openapi.json (no 5xx, ever),
hypothesis throws random table events at a table in play (no 5xx; a refused event changes nothing and is refused
in keyed words a page translates), and every route with a body gets lone surrogates in its string fields under one,
two or a text Content-Type (refused, nothing reaches the journal, which acknowledges afterwards)."""
from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from service_harness import PLAIN_HTTP, ServerProcess, raw_request
from thoroughness import runs

from service.sim.dealing import deal_for

CONFIG = {"tables": [{"id": "F"}, {"id": "G"}], "regulation": {"spectators": {"delay_s": 0}}}
# How long a request may take here: these tests are about what the service answers, not how fast (POST
# /api/event/clock, a journalled request, took more than schemathesis's default 10 s once in a whole CI run at
# load ~40); bench/slow_clients.py and docs/PERFORMANCE.md measure the speed on a quiet machine.
ANSWER_S = 60


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

    # one keep-alive session for the ~2,400 requests, as a client program holds one (a new connection each time
    # cost both sides more than the request); no proxy settings read from the environment at each request
    # tests/thoroughness.py: 40 examples an operation in CI, 15 in make test
    with requests.Session() as session:
        session.trust_env = False
        for op in operations:
            @settings(max_examples=runs(40, 15), deadline=None, suppress_health_check=list(HealthCheck), database=None)
            @given(case=op.as_strategy())
            def run(case: Any) -> None:
                n = next(turn)
                if case.path_parameters and "table_id" in case.path_parameters and n % 2 == 0:
                    case.path_parameters["table_id"] = "F"          # reach a real table half of the time
                headers = {} if n % 3 == 2 else {"Authorization": f"Bearer {server.token}"}
                case.call_and_validate(base_url=server.base, session=session, headers=headers,
                                       checks=[not_a_server_error], timeout=ANSWER_S)

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


@pytest.fixture(scope="module")
def director_client(server: ServerProcess) -> Iterator[httpx.Client]:
    """The director's client, one connection kept for all the examples."""
    with httpx.Client(base_url=server.base, headers={"Authorization": f"Bearer {server.token}"}, verify=PLAIN_HTTP,
                      timeout=ANSWER_S) as d:
        yield d


@settings(max_examples=runs(300, 100), deadline=None, suppress_health_check=list(HealthCheck))
@given(events=st.lists(EVENTS, min_size=1, max_size=6))
def test_random_events_on_a_live_table(director_client: httpx.Client, events: list[dict[str, Any]]) -> None:
    d = director_client
    for ev in events:
        before = d.get("/api/tables/G").json()
        r = d.post("/api/tables/G/events", json=ev)
        assert r.status_code < 500, (ev, r.text)
        if r.status_code != 200:
            assert r.status_code in (409, 422), (ev, r.status_code, r.text)
            # a refusal a page can word in its language (issue 24): every piece with words in it is keyed
            parts = r.json().get("detail_parts") or []
            assert parts and all(p.get("key") or not re.search("[A-Za-z]{2}", p["text"]) for p in parts), \
                (ev, r.json())
            after = d.get("/api/tables/G").json()
            for k in ("devices", "updated"):
                before.pop(k, None)
                after.pop(k, None)
            assert after == before, f"a refused event changed the table: {ev}"
        else:
            assert r.json()["seq"] == before["seq"] + 1


# Hostile JSON written by hand (json.dumps would refuse most of it): NaN and infinities, lone surrogates (escaped
# and raw), numbers past a double, deep nesting, long strings, where the schema wants ints, strings and objects.
HOSTILE = st.one_of(
    st.sampled_from(["NaN", "Infinity", "-Infinity", '"\\ud800"', '"\\udfff\\ud800"', '"\ud800"', "1e400",
                     "-0", "true", "null", '"9"', "[]", "{}", '"' + "x" * 70_000 + '"', "[" * 300 + "]" * 300,
                     '{"a":' * 50 + "1" + "}" * 50, "123456789012345678901234567890"]),
    st.integers().map(str), st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.text(max_size=20).map(lambda t: '"' + t.replace("\\", "").replace('"', "") + '"'))
TARGETS = st.sampled_from([
    ("/api/tables/G/events", ["type", "board", "seat", "call", "card", "tricks", "source", "cards"], '"call"'),
    ("/api/tables/G/rulings", ["code", "option", "tricks"], None),
    ("/api/tables/G/boards/1/adjustment", ["kind", "ns", "ew", "tricks", "contract", "note"], '"assigned"'),
    ("/api/signin", ["code"], None),
    ("/api/event/round", ["round", "tables"], None),
])


@settings(max_examples=runs(150, 50), deadline=None, suppress_health_check=list(HealthCheck))
@given(target=TARGETS, picks=st.lists(st.tuples(st.integers(0, 7), HOSTILE), min_size=1, max_size=4),
       director=st.booleans())
def test_hostile_json_is_refused_without_a_5xx(server: ServerProcess, target: tuple[str, list[str], str | None],
                                              picks: list[tuple[int, str]], director: bool) -> None:
    path, fields, first = target
    members = {fields[i % len(fields)]: v for i, v in picks}
    if first is not None and fields[0] not in members:
        members[fields[0]] = first
    body = "{" + ",".join(f'"{k}":{v}' for k, v in members.items()) + "}"
    headers = {"Content-Type": "application/json"}
    if director:
        headers["Authorization"] = f"Bearer {server.token}"
    r = httpx.post(server.base + path, content=body.encode("utf-8", "surrogatepass"), headers=headers, timeout=ANSWER_S,
                   verify=PLAIN_HTTP)
    assert r.status_code < 500, (path, body[:200], r.status_code, r.text[:300])
    assert len(r.content) < 20_000, (path, len(r.content))     # a refusal does not echo 70 kB back


def test_fuzz_server_still_healthy(server: ServerProcess, tmp_path: Path) -> None:
    assert httpx.get(server.base + "/api/health").status_code == 200
    assert server.proc is not None
    status = Path(f"/proc/{server.proc.pid}/status").read_text()
    rss_kb = int(next(line for line in status.splitlines() if line.startswith("VmRSS:")).split()[1])
    assert rss_kb < 400_000, f"the server holds {rss_kb} kB after the fuzzing"
    log = server.log_path.read_text()
    assert "Traceback" not in log or "the engine failed" in log


# ---------------------------------------------------------------------------------------------- hostile framing
SURROGATE = "@@surrogate@@"          # stands for a lone surrogate, written into the JSON text as an escape


def _resolve(spec: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def _sample(spec: dict[str, Any], schema: dict[str, Any]) -> Any:
    """A plain value of ``schema`` (its example when it has one)."""
    schema = _resolve(spec, schema)
    if schema.get("examples"):
        return schema["examples"][0]
    kinds = [_resolve(spec, s).get("type") for s in schema.get("anyOf", [])] or [schema.get("type")]
    if "object" in kinds:
        return {k: _sample(spec, v) for k, v in schema.get("properties", {}).items()}
    values = {"string": "x", "integer": 1, "number": 1, "boolean": True, "array": []}
    return next((values[k] for k in kinds if k in values), "x")


def _string_fields(spec: dict[str, Any], schema: dict[str, Any], sample: Any) -> list[str]:
    """The body's string fields: those its schema types as strings, and those its example fills with text."""
    schema = _resolve(spec, schema)
    out = []
    for name, prop in schema.get("properties", {}).items():
        kinds = {_resolve(spec, s).get("type") for s in prop.get("anyOf", [])} | {_resolve(spec, prop).get("type")}
        if "string" in kinds:
            out.append(name)
    if isinstance(sample, dict):
        out += [k for k, v in sample.items() if isinstance(v, str) and k not in out]
    return out or ["name"]


def _operations(spec: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """Every operation of the schema that takes a body: method, path (parameters filled in), body schema."""
    out = []
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            body = op.get("requestBody", {}).get("content", {}).get("application/json")
            if body is None:
                continue
            for p in op.get("parameters", []):
                if p["in"] == "path":
                    value = "1" if _resolve(spec, p.get("schema", {})).get("type") == "integer" else "F"
                    path = path.replace("{" + p["name"] + "}", value)
            out.append((method.upper(), path, body["schema"]))
    return out


def test_every_body_route_refuses_hostile_framing_and_text(server: ServerProcess) -> None:
    """Every route with a body, from the live /openapi.json: each string field holding a lone surrogate, sent
    with one Content-Type, with two (JSON then text, text then JSON), and as text alone. Never a 5xx, the two
    headers always 400, nothing reaches the journal, and the journal acknowledges afterwards."""
    spec = httpx.get(server.base + "/openapi.json").json()
    operations = _operations(spec)
    assert len(operations) >= 16, [p for _, p, _ in operations]
    auth = ("Authorization", f"Bearer {server.token}")
    json_type, text_type = ("Content-Type", "application/json"), ("Content-Type", "text/plain")
    sent = 0
    for method, path, schema in operations:
        sample = _sample(spec, schema)
        fields = _string_fields(spec, schema, sample)
        bodies = []
        for chosen in [[f] for f in fields] + [fields]:
            body = dict(sample) if isinstance(sample, dict) else {}
            body.update({f: SURROGATE for f in chosen})
            bodies.append(json.dumps(body).replace(f'"{SURROGATE}"', '"a\\ud800"').encode())
        for body in bodies:
            for who in ([auth], []):
                size = ("Content-Length", str(len(body)))
                for ctypes, expected in (([json_type], {422}), ([json_type, text_type], {400}),
                                         ([text_type, json_type], {400}), ([text_type], {415})):
                    status, answer = raw_request(server.port, method, path, [*who, size, *ctypes], body, 10)
                    assert status in expected, (method, path, ctypes, body[:120], status, answer[:300])
                    sent += 1
    assert sent > 200
    with server.client(server.token) as d:
        r = d.post("/api/tables/F/director")
        assert r.status_code == 200, r.text
        assert any(c["id"] == r.json()["id"] for c in d.get("/api/director-calls").json())
        health = d.get("/api/health").json()
        assert health["status"] == "ok" and health["journal_failure"] is None
    assert "journal row refused" not in server.log_path.read_text()      # the guard stopped every one of them
