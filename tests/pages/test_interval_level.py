"""Every page that shows an interval states its level from the method's one constant, not from its own text."""

import re
from pathlib import Path

from django.test import Client

from leaderboard.models import Snapshot
from pages.wording import INTERVAL_PERCENT
from scoring.shapes import INTERVAL_LEVEL
from tests.pages.conftest import interval_pages

REPO = Path(__file__).resolve().parents[2]
STATED_LEVEL = re.compile(r"(\d+)% intervals?\b")


def test_it_states_the_methods_level_on_every_page_with_intervals(client: Client, demo_snapshot: Snapshot) -> None:
    assert round(100 * INTERVAL_LEVEL) == INTERVAL_PERCENT
    for path, params in interval_pages(demo_snapshot):
        stated = {int(level) for level in STATED_LEVEL.findall(client.get(path, params).content.decode())}
        assert stated == {INTERVAL_PERCENT}, path


def test_it_writes_no_level_of_its_own_in_a_template_or_a_page_module() -> None:
    # The pages say the level through `interval_percent` / INTERVAL_PERCENT only, so changing the method's
    # constant changes every sentence.
    modules = [path for app in ("core", "pages", "leaderboard", "lab") for path in REPO.glob(f"{app}/*.py")]
    sources = [*REPO.glob("templates/**/*.html"), *modules]
    written = [str(path.relative_to(REPO)) for path in sources if STATED_LEVEL.search(path.read_text())]
    assert written == []
