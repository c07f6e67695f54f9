"""Headless Chromium for the browser tests: Debian's chromium package (never a downloaded browser).

Screenshots land in tests/screenshots/ for a person to look at.
"""

from collections.abc import Iterator
from pathlib import Path

import pytest

from leaderboard.models import Snapshot

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

# Every test module here: `pytestmark = BROWSER_TESTS`.
BROWSER_TESTS = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not CHROMIUM.exists(), reason="needs Chromium at /usr/bin/chromium: apt-get install chromium (.ci/run does)"
    ),
]

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


def matrix_from_the_front_page(browser, site: str, lens: str = ""):  # type: ignore[no-untyped-def]
    """A desktop page that opened the front page (under `lens`, a query such as "harness=codex") and followed
    its link to the planner × builder matrix, which keeps the lens."""
    page = browser.new_page(viewport=DESKTOP)
    page.goto(f"{site}/" + (f"?{lens}" if lens else ""))
    page.get_by_role("link", name="Planner × builder matrix").click()
    page.wait_for_url("**/matrix/?view=modelCombo" + (f"&{lens}" if lens else ""))
    return page


@pytest.fixture
def demo_site(transactional_db: None, live_server, demo_snapshot: Snapshot) -> str:  # type: ignore[no-untyped-def]
    """The live server's address, with the demo pool published (tests/demo_pool.py) and committed, so the
    server's threads read it; its commit retires the pages held over.

    Name it before `browser`: Playwright's loop must not share a thread with the ORM, so everything is
    stored before the browser starts."""
    return str(live_server.url)


@pytest.fixture
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    SCREENSHOTS.mkdir(exist_ok=True)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()
