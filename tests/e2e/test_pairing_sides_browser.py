"""The pairing page's "same builder, different planners" picture in headless Chromium, on a phone and a laptop."""

from collections import Counter
from urllib.parse import urlencode

import pytest

from leaderboard.models import Snapshot
from scoring.shapes import PAIR_ARROW
from tests.e2e.conftest import BROWSER_TESTS, DESKTOP, PHONE, SCREENSHOTS, overflowing

pytestmark = BROWSER_TESTS

VIEWS = ("modelCombo", "modelEffortCombo")

# Every mark and word of the picture, by its right edge, and the picture's own box.
PICTURE = """() => {
  const svg = document.querySelector('#same-builder svg.forest');
  const marks = [...svg.querySelectorAll('text, line, circle, rect')];
  return {
    right: svg.getBoundingClientRect().right,
    marks: Math.max(...marks.map(m => m.getBoundingClientRect().right)),
    left: Math.min(...marks.map(m => m.getBoundingClientRect().left)),
    labels: [...svg.querySelectorAll('text.forest-label')].map(t => t.textContent),
    broken: [...document.querySelectorAll('.side-sentence .side-name')]
      .filter(e => e.getClientRects().length > 1).map(e => e.textContent),
  };
}"""


@pytest.fixture
def crowded(demo_site: str) -> dict[str, object]:
    """The site, and in each view the pairing whose builder has the most planners ranked with it."""
    views = Snapshot.objects.latest("id").views
    chosen: dict[str, tuple[str, list[str]]] = {}
    for view in VIEWS:
        labels = [group["label"] for group in views[view]["groups"]]
        builder, _ = Counter(label.split(PAIR_ARROW)[1] for label in labels).most_common(1)[0]
        planners = [label.split(PAIR_ARROW)[0] for label in labels if label.split(PAIR_ARROW)[1] == builder]
        chosen[view] = (f"{planners[-1]}{PAIR_ARROW}{builder}", planners)
    return {"url": demo_site, "chosen": chosen}


@pytest.mark.parametrize("view", VIEWS)
@pytest.mark.parametrize(("viewport", "name"), [(PHONE, "phone"), (DESKTOP, "desktop")])
def test_the_same_builder_picture_fits_without_sideways_scrolling(
    crowded: dict[str, object], browser, view: str, viewport: dict[str, int], name: str
) -> None:  # type: ignore[no-untyped-def]
    label, planners = crowded["chosen"][view]  # type: ignore[index]
    assert len(planners) > 1, "the demo pool has a builder with several planners"
    page = browser.new_page(viewport=viewport, device_scale_factor=2, is_mobile=viewport is PHONE)
    page.goto(f"{crowded['url']}/pairing/?{urlencode({'view': view, 'label': label})}")
    found = page.evaluate(PICTURE)
    width = viewport["width"]
    assert found["labels"] == planners  # one row per planner ranked with the builder, best first
    assert found["broken"] == []  # no model name split across lines in the sentences
    assert found["left"] >= 0 and found["marks"] <= found["right"] + 1 <= width + 1
    assert overflowing(page, width) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.locator("#same-builder").screenshot(path=str(SCREENSHOTS / f"same-builder-{view}-{name}.png"))
    page.screenshot(path=str(SCREENSHOTS / f"pairing-sides-{view}-{name}.png"), full_page=True)
    page.close()
