"""The methodology page opens on its contents, every section reachable by an anchor, and cites no repository paths."""

import re

from django.test import Client

from leaderboard.models import Snapshot
from tests.pages.conftest import page_text


def test_it_opens_on_contents_that_link_every_section(demo_snapshot: Snapshot, client: Client) -> None:
    page = client.get("/methodology/").content.decode()
    contents = re.search(r'<nav class="contents" aria-label="Contents">(.*?)</nav>', page, re.S)
    assert contents is not None
    linked = re.findall(r'<a href="#([a-z-]+)">', contents[1])
    body = page.split("</nav>", 2)[-1]
    sections = re.findall(r"<h2 id=\"([a-z-]+)\">", body)
    assert linked == sections and len(sections) >= 10
    assert not re.search(r"<h2>", body), "every section has an anchor"
    assert page.index('<nav class="contents"') < page.index('<h2 id="cycles">')


def test_it_says_what_not_separated_means_and_names_no_repository_paths(
    demo_snapshot: Snapshot, client: Client
) -> None:
    page = client.get("/methodology/").content.decode()
    assert "not separated when their intervals overlap" in page_text(page)
    assert not re.search(r"<code>[\w/]+\.py</code>", page)
