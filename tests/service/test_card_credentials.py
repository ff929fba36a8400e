"""Table cards over real HTTP: a card's code signs a seat in again and again during the session, always for the
table's current round (round-bound seat tokens stay as they are); every redemption is journalled; the
director's revocation ends the card and the cards page shows a new code; a forged or other-table code is
refused. Also the club's default language (GET anyone, POST director, journalled, survives a restart)."""
from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import httpx
from service_harness import ServiceThread

from service.api.cards import qr_svg

CONFIG = {"regulation": {"spectators": {"delay_s": 0}},
          "tables": [{"id": "1"}, {"id": "2"}, {"id": "3"}],
          "event": {"name": "Card night", "movement": {"kind": "mitchell", "tables": 3, "boards_per_round": 2}}}


def card_code(link: str) -> str:
    assert "/seat#card=" in link, link            # the code rides in the fragment, never sent to a server
    return link.split("#card=", 1)[1]


def redeem(c: httpx.Client, code: str) -> httpx.Response:
    return c.post("/api/signin/card", json={"code": code})


def test_a_card_signs_in_for_the_current_round_again_and_again(tmp_path: Path) -> None:
    with ServiceThread(tmp_path, CONFIG) as srv, srv.client(srv.token) as d, srv.client() as anon:
        cards = d.get("/api/tables/1/cards")
        assert cards.status_code == 200 and cards.headers["cache-control"] == "no-store"
        body = cards.json()
        assert body["table"] == "1" and body["event"] == "Card night"
        link = body["seats"]["E"]["link"]
        assert link.startswith(srv.base + "/seat#card=") and body["seats"]["E"]["svg"].startswith("<svg")
        code = card_code(link)
        first = redeem(anon, code)
        assert first.status_code == 200 and first.headers["cache-control"] == "no-store"
        tok1 = first.json()
        assert (tok1["table"], tok1["seat"], tok1["round"], tok1["pair"]) == ("1", "E", 1, 4)
        again = redeem(anon, code)                                  # reusable: a second tablet, a reload
        assert again.status_code == 200 and again.json()["token"] == tok1["token"]
        with srv.client(tok1["token"]) as east:
            assert east.get("/api/whoami").json() == {"role": "seat", "table": "1", "seat": "E"}
        # the round changes: the round-1 token ends, the same card gives the round-2 token
        assert d.post("/api/event/round", json={"round": 2}).status_code == 200
        with srv.client(tok1["token"]) as east:
            r = east.get("/api/whoami")
            assert r.status_code == 401 and "round 1" in r.json()["detail"]
        renewed = redeem(anon, code)
        assert renewed.status_code == 200
        tok2 = renewed.json()
        assert tok2["round"] == 2 and tok2["token"] != tok1["token"] and tok2["pair"] == 6   # Mitchell: EW moved
        with srv.client(tok2["token"]) as east:
            assert east.get("/api/whoami").json()["seat"] == "E"
        # forged, truncated, of another kind or table: refused
        assert redeem(anon, code[:-4] + ("0000" if not code.endswith("0000") else "1111")).status_code == 401
        assert redeem(anon, code.replace("card.1.E.", "card.2.E.")).status_code == 401
        assert redeem(anon, tok2["token"]).status_code == 401                       # a token is not a card
        assert redeem(anon, "card.1.E.2.0." + code.rsplit(".", 1)[1]).status_code == 401  # round-bound: no
        assert redeem(anon, "").status_code == 422
        # the director revokes the seat: the card and its token end, the cards page shows a new code
        assert d.post("/api/tables/1/revoke", params={"seat": "E"}).status_code == 200
        r = redeem(anon, code)
        assert r.status_code == 401 and "revoked" in r.json()["detail"]
        with srv.client(tok2["token"]) as east:
            assert east.get("/api/whoami").status_code == 401
        new = d.get("/api/tables/1/cards").json()["seats"]["E"]
        assert new["generation"] == 1 and card_code(new["link"]) != code
        assert redeem(anon, card_code(new["link"])).status_code == 200
        # the other seats' cards are untouched; only the director sees cards
        assert redeem(anon, card_code(body["seats"]["N"]["link"])).status_code == 200
        assert anon.get("/api/cards").status_code == 401
        with srv.client(tok2["token"]) as stale:
            assert stale.get("/api/cards").status_code == 401
        every = d.get("/api/cards").json()
        assert [c["table"] for c in every] == ["1", "2", "3"]
        # asked again (the cards page reloaded), the same codes are not drawn again (~5 ms each, in the event loop)
        made = qr_svg.cache_info().misses
        assert d.get("/api/cards").json() == every
        assert qr_svg.cache_info().misses == made
        # survives a restart: the revocation still holds, the new card still works
        srv.stop()
        srv.start()
        assert redeem(anon, code).status_code == 401
        assert redeem(anon, card_code(new["link"])).json()["round"] == 2
    with sqlite3.connect(srv.database) as db:
        rows = [json.loads(b) for (b,) in db.execute("SELECT body FROM journal WHERE table_id='_club' AND kind='card'")]
    assert len(rows) == 6, rows                       # one row per redemption, never the code itself
    assert all(code not in json.dumps(r) for r in rows)
    assert [r["round"] for r in rows if r["seat"] == "E"] == [1, 1, 2, 2, 2]


def test_the_clubs_default_language(tmp_path: Path) -> None:
    with ServiceThread(tmp_path, CONFIG) as srv, srv.client(srv.token) as d, srv.client() as anon:
        assert anon.get("/api/language").json()["language"] is None          # each browser its own
        assert anon.post("/api/language", json={"language": "zh-Hant"}).status_code == 401
        seat = d.get("/api/tables/1/tokens").json()["N"]["token"]
        with srv.client(seat) as north:
            assert north.post("/api/language", json={"language": "zh-Hant"}).status_code == 403
        assert d.post("/api/language", json={"language": "fr"}).status_code == 422
        r = d.post("/api/language", json={"language": "zh-Hant"})
        assert r.status_code == 200 and r.json()["language"] == "zh-Hant"
        assert anon.get("/api/language").json()["language"] == "zh-Hant"
        srv.stop()
        srv.start()
        assert anon.get("/api/language").json()["language"] == "zh-Hant"
        assert d.post("/api/language", json={"language": None}).json()["language"] is None
        assert anon.get("/api/language").json()["language"] is None
