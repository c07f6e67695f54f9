import datetime as dt
import re

import pytest
from django.test import Client
from django.utils import timezone

from leaderboard import services, words
from leaderboard.models import Snapshot
from leaderboard.services import scoped_document
from tests.cycles.stored import make_contributor, make_cycles
from tests.pages.conftest import ranked_labels


@pytest.mark.parametrize("view", list(words.VIEW_TITLES))
def test_it_renders_every_ranked_group_of_every_view(demo_snapshot: Snapshot, client: Client, view: str) -> None:
    response = client.get("/", {"view": view})
    assert response.status_code == 200
    html = response.content.decode()
    labels = ranked_labels(demo_snapshot, view)
    assert labels
    for label in labels:
        assert f">{label}</a>" in html
    # One interval bar per ranked row, each with a text alternative.
    assert html.count('<svg class="bar"') == len(labels)
    assert html.count("<title>") >= len(labels)


def test_it_heads_the_page_with_the_counts_and_when_they_were_computed(demo_snapshot: Snapshot, client: Client) -> None:
    meta = demo_snapshot.document["meta"]
    html = client.get("/").content.decode()
    assert f"{meta['judged']} judged cycles · {meta['contributors']} contributors" in html
    assert f"{meta['pending']} pending" in html
    assert f"{meta['unshippable']} unshippable" in html
    assert f"snapshot {demo_snapshot.id}" in html


def test_it_marks_demo_data_on_every_page(demo_snapshot: Snapshot, client: Client) -> None:
    label = ranked_labels(demo_snapshot, "modelCombo")[0]
    for path in ("/", "/compare/", "/methodology/", "/contribute/", "/data/"):
        assert "Demo data" in client.get(path).content.decode(), path
    assert "Demo data" in client.get("/pairing/", {"view": "modelCombo", "label": label}).content.decode()


def test_it_shows_no_demo_mark_on_contributed_data(db: None, client: Client) -> None:
    make_cycles(make_contributor(), count=120, seed=3)
    services.recompute_snapshot()
    html = client.get("/").content.decode()
    assert "Demo data" not in html
    assert "claude-opus-4.8 → claude-opus-4.8" in html


def test_it_prints_ranks_caveats_and_shares_in_words(demo_snapshot: Snapshot, client: Client) -> None:
    html = client.get("/", {"view": "modelCombo"}).content.decode()
    groups = demo_snapshot.views["modelCombo"]["groups"]
    flagged = [g for g in groups if g["flags"]]
    assert flagged, "the demo pool should hold at least one row with a caveat"
    for group in flagged:
        for flag in group["flags"]:
            assert words.FLAG_WORDS[flag] in html
    for group in groups:
        assert f"{group['top_share'] * 100:.0f}%" in html
    assert words.RANK_RANGE_WORDS in html


def test_it_prints_each_rank_as_the_range_of_places_its_interval_allows(
    demo_snapshot: Snapshot, client: Client
) -> None:
    groups = demo_snapshot.views["modelCombo"]["groups"]
    html = client.get("/", {"view": "modelCombo"}).content.decode()
    printed = re.findall(r'<td class="rank">(\d+)(?:–(\d+))?</td>', html)
    assert [(int(best), int(worst or best)) for best, worst in printed] == [
        (g["rank"], g["rank_worst"]) for g in groups
    ]
    assert [g["scoreAdj"] for g in groups] == sorted((g["scoreAdj"] for g in groups), reverse=True)
    assert "=" not in "".join(best for best, _ in printed)
    # One contributor claims no place beyond the whole range, and shows no interval.
    alone = [g for g in groups if g["contributors"] == 1]
    assert alone, "the demo pool has a pairing with one contributor"
    for group in alone:
        assert (group["rank"], group["rank_worst"]) == (1, len(groups))
    assert html.count('<span class="ci">no interval</span>') == len(alone)
    assert "n/a–n/a" not in html


def test_it_lists_provisional_groups_below_with_their_counts(demo_snapshot: Snapshot, client: Client) -> None:
    provisional = demo_snapshot.views["modelCombo"]["provisional"]
    assert provisional
    html = client.get("/", {"view": "modelCombo"}).content.decode()
    section = html.split('<section class="provisional">', 1)[1]
    for item in provisional:
        assert f'>{item["label"]}</a> <span class="hint">{item["hjudged"]} judged</span>' in section


def test_it_scopes_the_rankings_to_the_last_30_days(demo_snapshot: Snapshot, client: Client) -> None:
    today = timezone.now().date()
    scoped = scoped_document(since=today - dt.timedelta(days=29), until=today)
    assert scoped is not None
    assert scoped["meta"]["judged"] < demo_snapshot.document["meta"]["judged"]
    html = client.get("/", {"window": "30"}).content.decode()
    assert f"{scoped['meta']['judged']} judged cycles" in html
    assert 'value="30" checked' in html


def test_it_answers_a_malformed_custom_window_with_400_and_a_sentence(demo_snapshot: Snapshot, client: Client) -> None:
    response = client.get("/", {"window": "custom", "since": "2026-02-30"})
    assert response.status_code == 400
    assert "YYYY-MM-DD" in response.content.decode()


def test_it_says_nothing_is_ranked_before_the_first_snapshot(db: None, client: Client) -> None:
    response = client.get("/")
    assert response.status_code == 200
    assert "Nothing is ranked yet" in response.content.decode()


def test_it_answers_404_for_an_unknown_view(demo_snapshot: Snapshot, client: Client) -> None:
    response = client.get("/", {"view": "bogus"})
    assert response.status_code == 404
    assert "Not found" in response.content.decode()
