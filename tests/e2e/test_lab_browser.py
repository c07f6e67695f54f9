"""The lab in headless Chromium: one click from a field pairing to its lab rows; the pages at 1280 px and on a phone."""

from io import StringIO
from urllib.parse import urlencode

import pytest
from django.core.management import call_command

from tests.e2e.conftest import BROWSER_TESTS, DESKTOP, PHONE, SCREENSHOTS, overflowing
from tests.lab.conftest import SHIPPED

pytestmark = BROWSER_TESTS

PAIRING = "claude-opus-4.8 → claude-opus-4.8"


@pytest.fixture
def lab_site(demo_site: str) -> str:
    for path, fmt in SHIPPED:
        call_command("import_lab", str(path), "--format", fmt, stdout=StringIO())
    return demo_site


# Table boxes (matching a selector) that scroll sideways on their own.
SCROLLING_TABLES = """(selector) => [...document.querySelectorAll(selector)]
  .filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.getAttribute('aria-label'))"""


@pytest.mark.parametrize("path", ["/lab/", "/lab/beside/"])
def test_it_shows_every_lab_column_at_1280_px_without_sideways_scroll(lab_site: str, browser, path: str) -> None:  # type: ignore[no-untyped-def]
    page = browser.new_page(viewport=DESKTOP)
    page.goto(f"{lab_site}{path}")
    assert overflowing(page, DESKTOP["width"]) == [], path
    assert page.evaluate(SCROLLING_TABLES, ".table-wrap") == [], path
    costs = page.locator("table.lab-rows thead th.cost")
    assert costs.count() > 0
    for index in range(costs.count()):
        box = costs.nth(index).bounding_box()
        if box is not None:  # a folded table has no box
            assert box["x"] + box["width"] <= DESKTOP["width"], path
    page.screenshot(path=str(SCREENSHOTS / f"{path.strip('/').replace('/', '-')}-desktop.png"), full_page=True)
    page.close()


def test_it_clicks_from_a_field_pairing_to_its_lab_rows(lab_site: str, browser) -> None:  # type: ignore[no-untyped-def]
    page = browser.new_page(viewport=DESKTOP)
    page.goto(f"{lab_site}/pairing/?{urlencode({'view': 'modelCombo', 'label': PAIRING})}")
    field_score = page.locator(".score-num").inner_text()
    page.get_by_role("link", name="In the lab").click()
    page.wait_for_url("**/lab/beside/**")
    assert page.locator("h1").inner_text() == f"{PAIRING}: the lab beside the field"
    assert f"adjusted score {field_score}" in page.locator(".field-score").inner_text()
    lab_rows = page.locator("table.lab-rows tbody tr")
    assert lab_rows.count() == 1
    assert lab_rows.first.locator("th").inner_text().startswith("claude-opus-4.8")
    assert overflowing(page, DESKTOP["width"]) == []
    page.screenshot(path=str(SCREENSHOTS / "lab-beside-desktop.png"), full_page=True)
    page.get_by_role("link", name="The lab").first.click()
    page.wait_for_url("**/lab/")
    assert page.locator("#source-akita h2").inner_text() == "LLM coding benchmark (akitaonrails)"
    page.close()


@pytest.mark.parametrize("path", ["/lab/", "/lab/beside/"])
def test_it_fits_the_lab_on_a_phone_screen(lab_site: str, browser, path: str) -> None:  # type: ignore[no-untyped-def]
    page = browser.new_page(viewport=PHONE, device_scale_factor=2, is_mobile=True)
    page.goto(f"{lab_site}{path}")
    assert overflowing(page, PHONE["width"]) == [], path
    # Lab rows are cards on a phone: none of their tables scrolls sideways.
    assert page.evaluate(SCROLLING_TABLES, ".table-wrap:has(table.lab-rows)") == [], path
    page.screenshot(path=str(SCREENSHOTS / f"{path.strip('/').replace('/', '-')}-phone.png"), full_page=True)
    page.close()
