"""The page tests' helpers: the pages' paths, a page read as text (the published demo pool: tests/demo_pool.py)."""

import html
import re

from django.utils import timezone

from leaderboard.models import Snapshot


def ranked_labels(snapshot: Snapshot, view: str) -> list[str]:
    return [group["label"] for group in snapshot.views[view]["groups"]]


def interval_pages(snapshot: Snapshot) -> list[tuple[str, dict[str, str]]]:
    """The pages that print intervals: the front page, the top pairing's, the top two compared, the methodology."""
    first, second = ranked_labels(snapshot, "modelCombo")[:2]
    return [
        ("/", {}),
        ("/pairing/", {"view": "modelCombo", "label": first}),
        ("/compare/", {"view": "modelCombo", "a": first, "b": second}),
        ("/methodology/", {}),
    ]


def page_paths(snapshot: Snapshot) -> list[tuple[str, dict[str, str]]]:
    """Every public page and rankings download, with the parameters that choose a view, window or group."""
    first, second = ranked_labels(snapshot, "modelCombo")[:2]
    today = timezone.now().date()
    return [
        ("/", {}),
        ("/", {"view": "family"}),
        ("/", {"window": "90"}),
        ("/", {"sort": "shipr"}),
        ("/", {"window": "custom", "since": str(today.replace(day=1)), "until": str(today)}),
        ("/pairing/", {"view": "modelCombo", "label": first}),
        ("/matrix/", {"view": "modelCombo"}),
        ("/matrix/", {"view": "famCombo", "window": "90"}),
        ("/compare/", {"view": "modelCombo", "a": first, "b": second}),
        ("/compare/", {}),
        ("/methodology/", {}),
        ("/methodology/changes/", {}),
        ("/glossary/", {}),
        ("/contribute/", {}),
        ("/data/", {}),
        ("/data/rankings.csv", {"view": "model"}),
    ]


def row_labels(page: str) -> list[str]:
    """The group names of the rankings table, in the printed order, as a reader sees them (tags dropped)."""
    cells = re.findall(r'<th scope="row" class="label">.*?<a href="[^"]*">(.*?)</a>', page, flags=re.S)
    return [html.unescape(re.sub(r"<[^>]+>", "", cell)) for cell in cells]


def page_text(page: str) -> str:
    """The page as a reader reads it: tags dropped, entities unescaped, runs of white space as one space."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", page)).split())
