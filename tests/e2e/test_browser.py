"""Drive the leaderboard in headless Chromium: click through to a pairing and a comparison.

Uses Debian's chromium package (never a downloaded browser). Screenshots land in
tests/screenshots/ for a person to look at.
"""

from collections.abc import Iterator
from pathlib import Path

import pytest

from leaderboard import caching, demo

CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOTS = Path(__file__).resolve().parents[1] / "screenshots"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not CHROMIUM.exists(), reason="needs Chromium at /usr/bin/chromium: apt-get install chromium (.ci/run does)"
    ),
]


@pytest.fixture
def site(transactional_db: None, live_server) -> str:  # type: ignore[no-untyped-def]
    # The pool is stored before the browser starts: Playwright's loop must not share a thread with the ORM.
    caching.forget_local_pages()
    demo.load_demo(count=1500)
    return str(live_server.url)


@pytest.fixture
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    SCREENSHOTS.mkdir(exist_ok=True)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


# Elements wider than the screen, outside the boxes that scroll on their own (tables, tabs).
OVERFLOWING = """(width) => [...document.body.querySelectorAll('*')]
  .filter(e => !e.closest('.table-wrap, .tabs') && e.getBoundingClientRect().right > width + 1)
  .map(e => e.tagName.toLowerCase() + (e.className && typeof e.className === 'string' ? '.' + e.className : ''))"""


def overflowing(page, width: int) -> list[str]:  # type: ignore[no-untyped-def]
    """What sticks out past a screen `width` px wide (a phone browser would zoom the page out)."""
    found = page.evaluate(OVERFLOWING, width)
    if page.evaluate("document.documentElement.scrollWidth") > width + 1:
        found.append("html")
    return list(found)


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
    assert page.locator("svg.spark polyline").count() == 1
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
    assert "two-proportion z-test" in page.locator(".rates").inner_text()
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


@pytest.mark.parametrize("path", ["/", "/pairing/", "/compare/", "/methodology/", "/contribute/", "/data/"])
def test_it_fits_a_phone_screen_without_sideways_scrolling(site: str, browser, path: str) -> None:  # type: ignore[no-untyped-def]
    page = browser.new_page(viewport=PHONE, device_scale_factor=2, is_mobile=True)
    if path == "/pairing/":
        page.goto(f"{site}/")
        page.locator("table.rankings th.label a").first.click()
        page.wait_for_url("**/pairing/**")
    else:
        page.goto(f"{site}{path}")
    assert overflowing(page, PHONE["width"]) == [], path
    name = path.strip("/") or "leaderboard"
    page.screenshot(path=str(SCREENSHOTS / f"{name}-phone.png"), full_page=True)
    page.close()
