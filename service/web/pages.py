"""The web pages: plain HTML and JavaScript files in ``static/`` (no build step). ``/docs`` is the API's
documentation drawn from ``/openapi.json`` by ``static/docs.js``: nothing is fetched from the internet, so it
works on a club network without one."""
from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse

STATIC = Path(__file__).parent / "static"
router = APIRouter(include_in_schema=False)


def _page(name: str) -> FileResponse:
    return FileResponse(STATIC / name, media_type="text/html", headers={"Cache-Control": "no-store"})


@router.get("/")
async def index() -> FileResponse:
    return _page("index.html")


@router.get("/console")
async def console() -> FileResponse:
    return _page("console.html")


@router.get("/cards")
async def cards() -> FileResponse:
    """The printable table cards with each seat's QR code (director; ``static/cards.js``)."""
    return _page("cards.html")


@router.get("/seat")
async def seat() -> FileResponse:
    return _page("seat.html")


@router.get("/spectate")
async def spectate() -> FileResponse:
    return _page("spectate.html")


@router.get("/results")
async def results_page() -> FileResponse:
    """Live results: travellers and rankings (``?token=`` a seat token for that table's view)."""
    return _page("results.html")


@router.get("/docs")
async def docs() -> FileResponse:
    """The API documentation (``static/docs.js`` renders ``/openapi.json``)."""
    return _page("docs.html")
