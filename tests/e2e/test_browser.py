"""Drive the leaderboard in headless Chromium: click through to a pairing and a comparison."""

import datetime as dt

import pytest

from tests.e2e.conftest import (
    BROWSER_TESTS,
    DESKTOP,
    PHONE,
    SCREENSHOTS,
    matrix_from_the_front_page,
    overflowing,
)

pytestmark = BROWSER_TESTS


@pytest.fixture
def site(demo_site: str) -> str:
    return demo_site


def test_it_clicks_from_the_leaderboard_to_a_pairing_and_a_comparison(site: str, browser) -> None:  # type: ignore[no-untyped-def]
    page = browser.new_page(viewport=DESKTOP)
    page.goto(f"{site}/")
    assert page.locator(".demo").inner_text().startswith("Demo data")
    rows = page.locator("table.rankings tbody tr")
    assert rows.count() >= 10
    assert overflowing(page, DESKTOP["width"]) == []
    page.screenshot(path=str(SCREENSHOTS / "leaderboard-desktop.png"), full_page=True)

    first_label = rows.nth(0).locator("th.label a").inner_text()
    rows.nth(0).locator("th.label a").click()
    page.wait_for_url("**/pairing/**")
    assert page.locator("h1").inner_text().strip() == first_label
    assert page.locator("svg.strip circle").count() >= 10
    # One snapshot so far: a sentence in place of a chart of one dot.
    assert page.locator("svg.spark").count() == 0
    assert "Not drawn yet" in page.locator(".history-note").inner_text()
    shipping = page.locator(".shipping-detail").inner_text()
    assert "(raw)" in shipping and "Adjusted:" in shipping
    page.screenshot(path=str(SCREENSHOTS / "pairing-desktop.png"), full_page=True)

    page.get_by_role("link", name="Compare with another").click()
    page.wait_for_url("**/compare/**")
    second_label = rows_label = page.locator("select[name=b] option").nth(2).inner_text()
    page.select_option("select[name=b]", label=rows_label)
    page.get_by_role("button", name="Compare").click()
    page.wait_for_url("**/compare/**b=**")
    sides = page.locator(".side h2 a").all_inner_texts()
    assert sides == [first_label, second_label]
    assert "A − B =" in page.locator(".difference").inner_text()
    assert "Raw ship rates" in page.locator(".rates").inner_text()
    assert page.locator("table.compare tbody tr").count() == 10 + 6
    page.screenshot(path=str(SCREENSHOTS / "compare-desktop.png"), full_page=True)

    # A quick link keeps A and changes one side.
    quick = page.locator(".quick a")
    if quick.count():
        quick.first.click()
        page.wait_for_url("**/compare/**")
        assert page.locator(".side h2 a").first.inner_text() == first_label
    page.close()


def test_it_switches_views_and_windows(site: str, browser) -> None:  # type: ignore[no-untyped-def]
    page = browser.new_page(viewport=DESKTOP)
    page.goto(f"{site}/")
    page.locator(".tabs").get_by_role("link", name="Families").click()
    page.wait_for_url("**view=family**")
    assert page.locator(".tabs a.current").inner_text() == "Families"
    # Choosing a preset window submits at once (the little script); the view is kept.
    page.get_by_label("30 days").check()
    page.wait_for_url("**window=30**")
    assert "view=family" in page.url
    assert page.locator("table.rankings, p:has-text('No group has')").count() >= 1
    page.close()


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/pairing/",
        "/compare/",
        "/methodology/",
        "/contribute/",
        "/data/",
        "/matrix/?view=modelCombo",
        "/glossary/",
    ],
)
def test_it_fits_a_phone_screen_without_sideways_scrolling(site: str, browser, path: str) -> None:  # type: ignore[no-untyped-def]
    page = browser.new_page(viewport=PHONE, device_scale_factor=2, is_mobile=True)
    if path == "/pairing/":
        page.goto(f"{site}/")
        page.locator("table.rankings th.label a").first.click()
        page.wait_for_url("**/pairing/**")
    else:
        page.goto(f"{site}{path}")
    assert overflowing(page, PHONE["width"]) == [], path
    name = path.split("?")[0].strip("/") or "leaderboard"
    page.screenshot(path=str(SCREENSHOTS / f"{name}-phone.png"), full_page=True)
    page.close()


# Where each ranked name, score and tab sits, and whether any name breaks across lines.
CARD_BOXES = """() => {
  const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.right, r.width > 0 && r.height > 0]; };
  const rows = [...document.querySelectorAll('table.rankings tbody tr')];
  return {
    names: rows.map(r => box(r.querySelector('th.label'))),
    scores: rows.map(r => box(r.querySelector('.score-num'))),
    tabs: [...document.querySelectorAll('.tabs a')].map(box),
    broken: [...document.querySelectorAll('.side-name, .nowrap')]
      .filter(e => e.getClientRects().length > 1).map(e => e.textContent),
    tiersShown: [...document.querySelectorAll('table.rankings td.tier')].filter(e => e.getClientRects().length).length,
    wrapScrolls: [...document.querySelectorAll('.table-wrap')].some(w => w.scrollWidth > w.clientWidth + 1),
  };
}"""


def test_it_lists_the_ranking_as_cards_that_fit_a_phone(site: str, browser) -> None:  # type: ignore[no-untyped-def]
    page = browser.new_page(viewport=PHONE, device_scale_factor=2, is_mobile=True)
    page.goto(f"{site}/")
    width = PHONE["width"]
    found = page.evaluate(CARD_BOXES)
    assert len(found["names"]) >= 10
    for kind in ("names", "scores", "tabs"):
        for left, right, shown in found[kind]:
            assert shown and left >= 0 and right <= width, (kind, left, right)
    assert found["broken"] == []  # a model name never wraps at its hyphens
    assert found["tiersShown"] == 0  # a card shows name, score, rank, rates and contributors, not the six tiers
    assert not found["wrapScrolls"] and page.evaluate("document.documentElement.scrollWidth") <= width
    assert overflowing(page, width) == []
    page.screenshot(path=str(SCREENSHOTS / "leaderboard-cards-phone.png"), full_page=True)
    # The last tab is reachable by a tap, and its view's cards fit too.
    last = page.locator(".tabs a").last
    name = last.inner_text()
    last.click()
    page.wait_for_url("**view=modelEffort**")
    assert page.locator(".tabs a.current").inner_text() == name
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.close()


def test_it_submits_a_custom_window_twice(site: str, browser) -> None:  # type: ignore[no-untyped-def]
    page = browser.new_page(viewport=DESKTOP)
    page.goto(f"{site}/")
    today = dt.datetime.now(dt.UTC).date()
    since, until = (today - dt.timedelta(days=40)).isoformat(), today.isoformat()
    page.get_by_label("Custom").check()
    page.fill("input[name=since]", since)
    page.fill("input[name=until]", until)
    page.get_by_role("button", name="Show").click()
    page.wait_for_url("**window=custom**")
    for _ in range(2):
        assert page.locator(".error").count() == 0, page.locator(".error").all_inner_texts()
        assert page.input_value("input[name=since]") == since
        assert page.input_value("input[name=until]") == until
        assert f"since={since}" in page.url and f"until={until}" in page.url
        assert page.locator("table.rankings, p:has-text('No group has')").count() >= 1
        # Pressing Show again sends the same days back, as the fields show them.
        with page.expect_navigation():
            page.get_by_role("button", name="Show").click()
    page.close()


def test_it_clicks_from_the_matrix_to_a_pairing(site: str, browser) -> None:  # type: ignore[no-untyped-def]
    page = matrix_from_the_front_page(browser, site)
    cells = page.locator("table.matrix td.cell a")
    assert cells.count() >= 10
    assert page.locator("table.matrix td.empty").count() >= 1
    assert overflowing(page, DESKTOP["width"]) == []
    page.screenshot(path=str(SCREENSHOTS / "matrix-desktop.png"), full_page=True)
    # A cell's accessible name is its pairing; one click opens that pairing's page.
    ranked = page.locator("table.matrix td.cell:not(.provisional-cell) a").first
    label = ranked.get_attribute("aria-label").split(":", 1)[0]
    score = ranked.locator(".m-score").inner_text()
    ranked.click()
    page.wait_for_url("**/pairing/**")
    assert page.locator("h1").inner_text().strip() == label
    assert page.locator(".big .score-num").inner_text() == score
    page.goto(f"{site}/glossary/")
    page.screenshot(path=str(SCREENSHOTS / "glossary-desktop.png"), full_page=True)
    page.goto(f"{site}/methodology/")
    # Its tables take the page's width: at 1280 px none has to scroll in its box.
    assert page.evaluate(WRAPS_THAT_SCROLL) == []
    page.close()


# The table boxes whose content is wider than the box (they scroll inside it), by their label.
WRAPS_THAT_SCROLL = """() => [...document.querySelectorAll('.table-wrap')]
  .filter(w => w.scrollWidth > w.clientWidth + 1).map(w => w.getAttribute('aria-label'))"""


# Wide enough for the grid (600 px up), too narrow for all of its columns.
TABLET = {"width": 700, "height": 900}


def test_the_matrix_scrolls_in_its_own_box_where_the_grid_is_shown(site: str, browser) -> None:  # type: ignore[no-untyped-def]
    page = browser.new_page(viewport=TABLET)
    page.goto(f"{site}/matrix/?view=modelCombo")
    wrap = page.locator(".matrix-wrap")
    assert page.evaluate(WRAPS_THAT_SCROLL) == [wrap.get_attribute("aria-label")]  # the matrix, not the page
    assert page.evaluate("document.documentElement.scrollWidth") <= TABLET["width"]
    planner = page.locator("table.matrix th.planner").first
    before = planner.bounding_box()
    wrap.evaluate("w => { w.scrollLeft = w.scrollWidth; }")
    after = planner.bounding_box()
    assert before is not None and after is not None and abs(after["x"] - before["x"]) < 1  # the planners stay put
    page.screenshot(path=str(SCREENSHOTS / "matrix-tablet-scrolled.png"), full_page=True)
    page.close()


def test_the_matrix_is_a_list_on_a_phone_and_the_pairing_tables_fit(site: str, browser) -> None:  # type: ignore[no-untyped-def]
    page = browser.new_page(viewport=PHONE, device_scale_factor=2, is_mobile=True)
    width = PHONE["width"]
    page.goto(f"{site}/matrix/?view=modelCombo")
    assert page.evaluate(WRAPS_THAT_SCROLL) == []  # nothing scrolls sideways: no grid, a list per planner
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert overflowing(page, width) == []
    page.screenshot(path=str(SCREENSHOTS / "matrix-phone.png"), full_page=True)
    page.locator(".matrix-list ul.m-builders a").first.click()
    page.wait_for_url("**/pairing/**")
    # The ten axes and the tiers fit the screen: neither the page nor their boxes scroll sideways.
    assert page.evaluate(WRAPS_THAT_SCROLL) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert overflowing(page, width) == []
    assert page.locator("table.axes .tier-col").first.is_hidden()
    assert page.locator("table.axes .tier-in-hint").first.is_visible()
    page.screenshot(path=str(SCREENSHOTS / "pairing-from-matrix-phone.png"), full_page=True)
    page.close()
