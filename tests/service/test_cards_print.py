"""The printed table cards, checked as a picture: headless Chromium prints /cards to an A4 PDF, pypdfium2
renders it; every page is A4, two cards a page, every QR code and card inside the printable area, each QR's
modules in the picture equal segno's matrix of the seat's link (the link the page prints under it), and the
cards page fits a phone and a tablet. Pictures: tests/artifacts/cards-a4-page1.png, cards-screen-<size>.png."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
import segno
from headless import ARTIFACTS, browser_session, wait_until
from service_harness import ServiceThread

CONFIG = {"tables": [{"id": "1"}, {"id": "2"}, {"id": "3"}],
          "event": {"name": "Card night", "movement": {"kind": "mitchell", "tables": 3, "boards_per_round": 2}}}
A4_PT = (595.3, 841.9)                       # 210 x 297 mm in PDF points
MARGIN_PT = 12 / 25.4 * 72                   # @page margin: 12mm
DPI = 200
SIZES = {"phone": (390, 844), "tablet": (820, 1180)}


def qr_squares(page: object) -> list[tuple[float, float, float, float]]:
    """The QR symbols' white squares (quiet zone included) on a PDF page: (left, bottom, right, top) in points."""
    out = []
    for obj in page.get_objects(max_depth=5):         # type: ignore[attr-defined]
        if obj.type != 2:                             # FPDF_PAGEOBJ_PATH
            continue
        left, bottom, right, top = obj.get_bounds()
        if 90 < right - left < 140 and abs((right - left) - (top - bottom)) < 0.5:
            out.append((left, bottom, right, top))
    return sorted(out, key=lambda b: (-round(b[3]), b[0]))        # reading order: top to bottom, left to right


def modules_in_picture(img: object, square: tuple[float, float, float, float], n: int) -> list[list[bool]]:
    """Sample the rendered picture at the centre of each of the n x n modules of a QR square (True: dark)."""
    left, _bottom, right, top = square
    step = (right - left) / n
    scale = DPI / 72
    gray = img.convert("L")                           # type: ignore[attr-defined]
    return [[gray.getpixel((int((left + (c + 0.5) * step) * scale), int((A4_PT[1] - top + (r + 0.5) * step) * scale)))
             < 128 for c in range(n)] for r in range(n)]


@pytest.mark.slow
def test_the_table_cards_print_on_a4_with_readable_qr_codes(tmp_path: Path) -> None:
    pdfium = pytest.importorskip("pypdfium2")
    with ServiceThread(tmp_path, CONFIG) as srv, srv.client(srv.token) as d, browser_session() as browser:
        cards = d.get("/api/cards").json()
        links = [c["seats"][s]["link"] for c in cards for s in "NESW"]
        for size, (w, h) in SIZES.items():
            page = browser.new_page(viewport={"width": w, "height": h})
            page.goto(f"{srv.base}/cards#token={srv.token}")
            wait_until(page, "document.body.dataset.loaded === '3'")
            assert page.evaluate("location.hash") == "", "the token leaves the address bar"
            assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), size
            page.screenshot(path=str(ARTIFACTS / f"cards-screen-{size}.png"))
            if size == "tablet":
                pdf_bytes = page.pdf(format="A4", print_background=True, prefer_css_page_size=True)
            page.close()
    pdf = pdfium.PdfDocument(pdf_bytes)
    assert len(pdf) == 2, "three cards: two on the first page, one on the second"
    found: list[tuple[int, tuple[float, float, float, float], object]] = []
    for i in range(len(pdf)):
        page = pdf[i]
        w, h = page.get_size()
        assert abs(w - A4_PT[0]) < 1.5 and abs(h - A4_PT[1]) < 1.5, (w, h)
        text = re.sub(r"\s+", "", page.get_textpage().get_text_range())
        tables = [c for c in cards if f"Table{c['table']}" in text]
        assert len(tables) == (2 if i == 0 else 1)
        for c in tables:                                # every link printed in full under its code
            assert all(c["seats"][s]["link"] in text for s in "NESW")
        for obj in page.get_objects(max_depth=5):       # nothing outside the printable area (a border's half-width)
            left, bottom, right, top = obj.get_bounds()
            assert left > MARGIN_PT - 2 and right < w - MARGIN_PT + 2, (i, obj.get_bounds())
            assert bottom > MARGIN_PT - 2 and top < h - MARGIN_PT + 2, (i, obj.get_bounds())
        img = page.render(scale=DPI / 72).to_pil()
        if i == 0:
            img.save(ARTIFACTS / "cards-a4-page1.png")
        found += [(i, sq, img) for sq in qr_squares(page)]
    assert len(found) == len(links) == 12
    for (_i, square, img), link in zip(found, links):
        qr = segno.make(link, error="m", micro=False)
        matrix = [[bool(v) for v in row] for row in qr.matrix_iter(scale=1, border=4)]
        seen = modules_in_picture(img, square, len(matrix))
        wrong = sum(a != b for ra, rb in zip(seen, matrix) for a, b in zip(ra, rb))
        assert wrong == 0, f"{wrong} of {len(matrix) ** 2} modules differ for {link}"
        assert (square[2] - square[0]) / len(matrix) * 25.4 / 72 >= 0.7, "a module of at least 0.7 mm"
