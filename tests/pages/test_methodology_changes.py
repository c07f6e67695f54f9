"""The methodology changelog page: docs/CHANGELOG.md as the site shows it, newest first, every character escaped."""

import re
from pathlib import Path

import pytest
from django.test import Client

from leaderboard.models import Snapshot
from pages import changelog
from pages.changelog import render_markdown
from tests.pages.conftest import page_text

CHANGELOG = Path(__file__).resolve().parents[2] / "docs" / "CHANGELOG.md"


def dated_headings(text: str) -> list[str]:
    return re.findall(r"^## (\d{4}-\d{2}-\d{2})$", text, flags=re.M)


def newest_entry(text: str) -> str:
    """The first entry under the newest date, as a reader reads it (Markdown marks dropped)."""
    section = text.split(f"## {dated_headings(text)[0]}\n", 1)[1]
    first = section.split("\n- ", 1)[0].removeprefix("\n- ").removeprefix("- ")
    return " ".join(re.sub(r"\*\*|`", "", first).split())


def test_the_changelog_is_dated_newest_first() -> None:
    dates = dated_headings(CHANGELOG.read_text(encoding="utf-8"))
    assert dates and dates == sorted(dates, reverse=True) and len(set(dates)) == len(dates)


def test_the_page_shows_the_newest_entry_first(demo_snapshot: Snapshot, client: Client) -> None:
    text = CHANGELOG.read_text(encoding="utf-8")
    response = client.get("/methodology/changes/")
    assert response.status_code == 200
    page = response.content.decode()
    newest = dated_headings(text)[0]
    assert f'<h2 id="{newest}">{newest}</h2>' in page
    shown = page_text(page)
    assert newest_entry(text) in shown
    assert shown.index(newest) < min(shown.index(date) for date in dated_headings(text)[1:])


def test_the_methodology_page_links_its_changelog(demo_snapshot: Snapshot, client: Client) -> None:
    page = client.get("/methodology/").content.decode()
    assert 'href="/methodology/changes/"' in page


def test_the_page_escapes_what_the_file_says(
    demo_snapshot: Snapshot, client: Client, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    written = tmp_path / "CHANGELOG.md"
    written.write_text(
        "# Changes\n\n## 2031-01-02\n\n- **Bold <b>claim</b>** and `<script>alert(1)</script>`\n"
        '  with [a link](javascript:void) and <img src=x onerror="alert(2)">\n',
        encoding="utf-8",
    )
    monkeypatch.setattr(changelog, "CHANGELOG_FILE", written)
    page = client.get("/methodology/changes/").content.decode()
    assert "<script>alert" not in page and "<img" not in page and "<b>claim" not in page
    assert "javascript:" not in page  # the link's words stay, its address does not
    assert "<code>&lt;script&gt;alert(1)&lt;/script&gt;</code>" in page
    assert "<strong>Bold &lt;b&gt;claim&lt;/b&gt;</strong>" in page
    assert "with a link and &lt;img src=x onerror=&quot;alert(2)&quot;&gt;" in page


def test_the_markdown_subset() -> None:
    html = render_markdown(
        "# Title\n\nA paragraph\nover two lines & more.\n\n"
        "- one [site](/data/) and [spec](spec/scoring.md)\n  going on\n- two `a < b`\n"
    )
    assert html == (
        '<h1 id="title">Title</h1>\n'
        "<p>A paragraph over two lines &amp; more.</p>\n"
        '<ul>\n<li>one <a href="/data/">site</a> and spec going on</li>\n<li>two <code>a &lt; b</code></li>\n</ul>'
    )
