"""The first screen answers: the ranking starts on it, on a phone and on a laptop, before any chart or form."""

import pytest

from tests.e2e.conftest import BROWSER_TESTS, SCREENSHOTS

pytestmark = BROWSER_TESTS

PHONE_SCREEN = {"width": 390, "height": 844}
LAPTOP_SCREEN = {"width": 1280, "height": 800}
# Where the table must have started on a laptop: well inside the 800 px screen, with room for rows below.
LAPTOP_TABLE_TOP = 700

# The top of the rankings' first row, of its third row's bottom, and of the first chart, in page pixels.
FIRST_SCREEN = """() => {
  const top = e => e ? e.getBoundingClientRect().top + window.scrollY : null;
  const bottom = e => e ? e.getBoundingClientRect().bottom + window.scrollY : null;
  const rows = document.querySelectorAll('table.rankings tbody tr');
  return {
    firstRow: top(rows[0]),
    thirdRowBottom: bottom(rows[2]),
    verdictBottom: bottom(document.querySelector('.verdict')),
    forest: top(document.querySelector('svg.forest')),
    form: top(document.querySelector('form.window')),
  };
}"""


@pytest.fixture
def site(demo_site: str) -> str:
    return demo_site


def first_screen(browser, site: str, screen: dict[str, int], **phone: object) -> dict[str, float]:  # type: ignore[no-untyped-def]
    page = browser.new_page(viewport=screen, **phone)
    page.goto(f"{site}/")
    found = page.evaluate(FIRST_SCREEN)
    page.screenshot(path=str(SCREENSHOTS / f"first-screen-{screen['width']}.png"))
    page.close()
    return dict(found)


def test_a_phone_opens_on_the_verdict_and_the_first_three_ranked_rows(site: str, browser) -> None:  # type: ignore[no-untyped-def]
    found = first_screen(browser, site, PHONE_SCREEN, device_scale_factor=2, is_mobile=True)
    assert found["verdictBottom"] < found["firstRow"]
    assert found["thirdRowBottom"] <= PHONE_SCREEN["height"], found
    # The explanations and controls come after the ranking, not before it.
    assert found["forest"] > found["firstRow"] and found["form"] > found["firstRow"]


def test_a_laptop_opens_with_the_table_on_the_first_screen(site: str, browser) -> None:  # type: ignore[no-untyped-def]
    found = first_screen(browser, site, LAPTOP_SCREEN)
    assert found["firstRow"] < LAPTOP_TABLE_TOP, found
    assert found["forest"] > found["firstRow"]
