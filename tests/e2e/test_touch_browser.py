"""Phone rules a thumb and an eye need: tap targets 44 px tall, form text 16 px (iOS zooms in on less), and
chart text no smaller than 11 px as drawn on a 390 px screen."""

import pytest

from tests.e2e.conftest import BROWSER_TESTS, PHONE

pytestmark = BROWSER_TESTS

# Apple's and WCAG 2.5.5's smallest comfortable target, and the size below which iOS zooms a form in.
TAP_HEIGHT = 44
FORM_TEXT = 16
CHART_TEXT = 11

# Each target's height, by a name a failure can be read by.
HEIGHTS = """(selector) => [...document.querySelectorAll(selector)]
  .filter(e => e.getClientRects().length)
  .map(e => [e.outerHTML.slice(0, 60), e.getBoundingClientRect().height])"""
FORM_FONTS = """() => [...document.querySelectorAll('input:not([type=hidden]), select, button, textarea')]
  .filter(e => e.getClientRects().length)
  .map(e => [e.outerHTML.slice(0, 60), parseFloat(getComputedStyle(e).fontSize)])"""
# Every SVG text's size as drawn: its font size times the chart's scale on screen.
CHART_FONTS = """() => [...document.querySelectorAll('svg text')]
  .filter(t => t.getClientRects().length && t.textContent.trim())
  .map(t => [t.textContent.slice(0, 30), parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a])"""


@pytest.fixture
def site(demo_site: str) -> str:
    return demo_site


def phone_page(browser, url: str):  # type: ignore[no-untyped-def]
    page = browser.new_page(viewport=PHONE, device_scale_factor=2, is_mobile=True)
    page.goto(url)
    return page


def too_short(page, selector: str) -> list[tuple[str, float]]:  # type: ignore[no-untyped-def]
    found = page.evaluate(HEIGHTS, selector)
    assert found, selector
    return [(what, height) for what, height in found if height < TAP_HEIGHT]


def small(found: list[tuple[str, float]], least: float) -> list[tuple[str, float]]:
    return [(what, size) for what, size in found if size < least - 0.01]


def test_the_front_pages_controls_are_big_enough_to_tap(site: str, browser) -> None:  # type: ignore[no-untyped-def]
    page = phone_page(browser, f"{site}/")
    assert too_short(page, "form.window label:has(input[type=radio])") == []
    assert too_short(page, "nav.sorts a") == []
    assert too_short(page, "form.window button") == []
    assert small(page.evaluate(FORM_FONTS), FORM_TEXT) == []
    page.close()


def test_the_compare_pickers_are_big_enough_to_tap_and_read(site: str, browser) -> None:  # type: ignore[no-untyped-def]
    page = phone_page(browser, f"{site}/compare/")
    assert too_short(page, "form.pickers select") == []
    assert too_short(page, "form.pickers button") == []
    assert small(page.evaluate(FORM_FONTS), FORM_TEXT) == []
    page.close()


def test_chart_text_is_readable_on_a_phone(site: str, browser) -> None:  # type: ignore[no-untyped-def]
    page = phone_page(browser, f"{site}/")
    assert small(page.evaluate(CHART_FONTS), CHART_TEXT) == []
    page.locator("table.rankings th.label a").first.click()
    page.wait_for_url("**/pairing/**")
    drawn = page.evaluate(CHART_FONTS)
    assert drawn
    assert small(drawn, CHART_TEXT) == [], small(drawn, CHART_TEXT)
    page.get_by_role("link", name="Compare with another").click()
    page.wait_for_url("**/compare/**")
    assert small(page.evaluate(CHART_FONTS), CHART_TEXT) == []
    page.close()
