"""Phone rules on every page at 390 px, on the demo pool and on a pool with a planted leader: no text under
11 px as drawn (SVG text included), no box wider than the screen (tables included, though they could scroll
in their own box), the matrix as a list of filled cells; and the planted leader named alone."""

from dataclasses import dataclass
from urllib.parse import urlencode

import pytest

from core import page_cache
from leaderboard import recompute
from leaderboard.models import Snapshot
from tests.e2e.conftest import BROWSER_TESTS, PHONE, SCREENSHOTS
from tests.pages.leader_pool import LABEL_LEADER, store_planted_leader_pool

pytestmark = BROWSER_TESTS

SMALLEST_TEXT = 11

# Every element holding text of its own that a reader sees, with its size as drawn (SVG text times its chart's
# scale); text in a box clipped to a pixel (a table's header hidden on a phone, a screen reader's words) is unseen.
UNSEEN = """const unseen = e => { for (; e && e !== document.body; e = e.parentElement) {
    const box = e.getBoundingClientRect(); if (box.width <= 1 || box.height <= 1) return true; } return false; };"""
SMALL_TEXT = (
    """(least) => {
  """
    + UNSEEN
    + """
  return [...document.body.querySelectorAll('*')]
    .filter(e => e.getClientRects().length && [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim()))
    .filter(e => !e.closest('title, desc, script, style') && !unseen(e))
    .map(e => {
      const scale = e instanceof SVGElement ? e.getScreenCTM().a : 1;
      const size = parseFloat(getComputedStyle(e).fontSize) * scale;
      return [e.tagName.toLowerCase() + ': ' + e.textContent.trim().slice(0, 30), size];
    })
    .filter(([, size]) => size < least - 0.01);
}"""
)
# Every box that passes the screen's right edge or scrolls sideways inside itself (but the tabs' row, which
# wraps, and code, which breaks anywhere).
WIDE = (
    """(width) => {
  """
    + UNSEEN
    + """
  return [...document.body.querySelectorAll('*')]
  .filter(e => e.getClientRects().length && !unseen(e))
  .filter(e => e.getBoundingClientRect().right > width + 1
    || (e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== 'visible'))
  .map(e => e.tagName.toLowerCase() + (typeof e.className === 'string' && e.className ? '.' + e.className : '')
    + (e.getAttribute('aria-label') ? ' (' + e.getAttribute('aria-label') + ')' : '')
    + ' right ' + Math.round(e.getBoundingClientRect().right) + ' px, ' + e.scrollWidth + ' px wide');
}"""
)


def publish_planted_leader() -> str:
    page_cache.forget_process_copies()
    store_planted_leader_pool()
    assert recompute.publish() is not None
    return LABEL_LEADER


@dataclass(frozen=True)
class Site:
    """A live server's address and what its snapshot holds, read before the browser starts (its loop must not
    share a thread with the ORM)."""

    url: str
    paths: list[str]
    matrix_cells: int  # ranked and provisional pairings of modelCombo: the matrix's filled cells


@pytest.fixture(params=["demo", "planted leader"])
def site(request: pytest.FixtureRequest, transactional_db: None, live_server) -> Site:  # type: ignore[no-untyped-def]
    """The live server with the demo pool (tests/demo_pool.py) or the planted leader's published and committed."""
    if request.param == "demo":
        request.getfixturevalue("demo_snapshot")
    else:
        publish_planted_leader()
    pairings = Snapshot.objects.latest("id").views["modelCombo"]
    ranked = [group["label"] for group in pairings["groups"]]
    return Site(str(live_server.url), paths(ranked), len(ranked) + len(pairings["provisional"]))


@pytest.fixture
def leader_site(transactional_db: None, live_server) -> str:  # type: ignore[no-untyped-def]
    publish_planted_leader()
    return str(live_server.url)


def paths(ranked: list[str]) -> list[str]:
    """Every kind of page, with a ranked pairing's page and the first two ranked pairings compared."""
    first, second = ranked[:2]
    return [
        "/",
        "/?view=family",
        "/?sort=odds",
        "/?window=30",
        "/pairing/?" + urlencode({"view": "modelCombo", "label": first}),
        "/compare/?" + urlencode({"view": "modelCombo", "a": first, "b": second}),
        "/matrix/?view=modelCombo",
        "/matrix/?view=modelEffortCombo",
        "/methodology/",
        "/methodology/changes/",
        "/glossary/",
        "/contribute/",
        "/data/",
        "/lab/",
        "/lab/beside/",
    ]


def test_every_page_keeps_the_phone_rules(site: Site, browser) -> None:  # type: ignore[no-untyped-def]
    page = browser.new_page(viewport=PHONE, device_scale_factor=2, is_mobile=True)
    broken = {}
    for path in site.paths:
        response = page.goto(f"{site.url}{path}")
        assert response is not None and response.status == 200, (path, page.content()[-1500:])
        small = page.evaluate(SMALL_TEXT, SMALLEST_TEXT)
        wide = page.evaluate(WIDE, PHONE["width"])
        if page.evaluate("document.documentElement.scrollWidth") > PHONE["width"]:
            wide.append("html")
        if small or wide:
            broken[path] = {"small": small[:5], "wide": wide[:5]}
    page.close()
    assert broken == {}


def test_the_matrix_on_a_phone_lists_only_filled_cells_and_the_grid_stays_on_a_laptop(site: Site, browser) -> None:  # type: ignore[no-untyped-def]
    filled = site.matrix_cells
    phone = browser.new_page(viewport=PHONE, device_scale_factor=2, is_mobile=True)
    phone.goto(f"{site.url}/matrix/?view=modelCombo")
    assert not phone.locator("table.matrix").is_visible()
    items = phone.locator(".matrix-list ul.m-builders li")
    assert items.count() == filled
    assert all(item.is_visible() for item in items.all())
    first = items.nth(0).locator("a")
    assert first.bounding_box()["height"] >= 44  # type: ignore[index]
    phone.screenshot(path=str(SCREENSHOTS / "matrix-phone-list.png"), full_page=True)
    phone.close()
    laptop = browser.new_page(viewport={"width": 1280, "height": 900})
    laptop.goto(f"{site.url}/matrix/?view=modelCombo")
    assert laptop.locator("table.matrix").is_visible()
    assert not laptop.locator(".matrix-list").is_visible()
    assert laptop.locator("table.matrix td.cell").count() == filled
    laptop.close()


def test_the_planted_leader_is_named_alone_on_a_phones_first_screen(leader_site: str, browser) -> None:  # type: ignore[no-untyped-def]
    page = browser.new_page(viewport=PHONE, device_scale_factor=2, is_mobile=True)
    page.goto(f"{leader_site}/")
    verdict = page.locator(".verdict")
    said = verdict.inner_text()
    assert said.startswith(f"First by score: {LABEL_LEADER} (score ")
    assert "surely ahead of them all" in said
    others = [label for label in page.locator("table.rankings th.label a").all_inner_texts() if label != LABEL_LEADER]
    assert others and not any(other in said for other in others)
    assert verdict.bounding_box()["y"] + verdict.bounding_box()["height"] <= PHONE["height"]  # type: ignore[index]
    first_row = page.locator("table.rankings tbody tr").nth(0)
    assert first_row.locator("th.label a").inner_text() == LABEL_LEADER
    assert first_row.locator("td.rank").inner_text() == "1"
    page.screenshot(path=str(SCREENSHOTS / "planted-leader-phone.png"))
    page.close()
