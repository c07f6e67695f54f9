"""The compare page in headless Chromium: its sentence and its axis table fit a phone and a laptop."""

import pytest

from tests.e2e.conftest import BROWSER_TESTS, DESKTOP, PHONE, SCREENSHOTS, overflowing

pytestmark = BROWSER_TESTS

# The axis table's box, whether it scrolls inside itself, and every cell's right edge.
AXIS_TABLE = """() => {
  const wrap = document.querySelector('table.axes-compared').closest('.table-wrap');
  const cells = [...document.querySelectorAll('table.axes-compared td, table.axes-compared th')];
  return {
    scrolls: wrap.scrollWidth > wrap.clientWidth + 1,
    right: Math.max(...cells.map(c => c.getBoundingClientRect().right)),
    sentence: document.querySelector('#switch').getBoundingClientRect().right,
  };
}"""


@pytest.fixture
def site(demo_site: str) -> str:
    return demo_site


@pytest.mark.parametrize(("viewport", "name"), [(PHONE, "phone"), (DESKTOP, "desktop")])
def test_the_comparison_fits_without_sideways_scrolling(
    site: str, browser, viewport: dict[str, int], name: str
) -> None:  # type: ignore[no-untyped-def]
    page = browser.new_page(viewport=viewport, is_mobile=viewport is PHONE)
    # Families: the demo's first and last family differ clearly on several axes.
    page.goto(f"{site}/compare/?view=family")
    options = page.locator("select[name=b] option").all_inner_texts()
    page.select_option("select[name=b]", label=options[-1])
    page.get_by_role("button", name="Compare").click()
    page.wait_for_url("**/compare/**b=**")
    assert page.locator("#switch").inner_text().startswith("Switching from A")
    found = page.evaluate(AXIS_TABLE)
    width = viewport["width"]
    assert not found["scrolls"], "the axis table fits its box: no column hidden to the right"
    assert found["right"] <= width and found["sentence"] <= width
    assert overflowing(page, width) == []
    page.screenshot(path=str(SCREENSHOTS / f"compare-axes-{name}.png"), full_page=True)
    page.close()


# The tier table's box on a phone: whether it scrolls (a column cut off to the right) and how wide it is.
TIER_TABLE = """() => {
  const wrap = document.querySelector('table.tiers-compared').closest('.table-wrap');
  return { scrolls: wrap.scrollWidth > wrap.clientWidth + 1, box: wrap.clientWidth, table: wrap.scrollWidth };
}"""


def test_the_tier_table_fits_its_box_on_a_phone(site: str, browser) -> None:  # type: ignore[no-untyped-def]
    page = browser.new_page(viewport=PHONE, device_scale_factor=2, is_mobile=True)
    page.goto(f"{site}/compare/?view=modelCombo")
    found = page.evaluate(TIER_TABLE)
    assert not found["scrolls"], found
    sentence = page.locator("#switch").inner_text()
    assert "tie" not in sentence.split() and "tie (" not in sentence
    page.close()
