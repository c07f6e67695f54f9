import datetime as dt
import re

import pytest
from django.test import Client

from leaderboard import recompute
from leaderboard.models import GroupScore, Snapshot
from pages import charts, presenters, wording
from tests.cycles.stored import make_contributor, make_cycles
from tests.pages.conftest import page_text, ranked_labels


@pytest.mark.parametrize("view", list(wording.VIEW_TITLES))
def test_it_renders_every_ranked_group(demo_snapshot: Snapshot, client: Client, view: str) -> None:
    for group in demo_snapshot.views[view]["groups"]:
        response = client.get("/pairing/", {"view": view, "label": group["label"]})
        assert response.status_code == 200, group["label"]
        html = response.content.decode()
        assert f"{group['scoreAdj']:.1f}" in html
        if group["ci"] is None:  # one contributor: no interval, and the whole range of places
            assert group["contributors"] == 1 and "no interval (one contributor)" in html
        else:
            assert f"{group['ci'][0]:.1f} to {group['ci'][1]:.1f}" in html


def test_it_draws_the_ten_axes_with_a_text_alternative(demo_snapshot: Snapshot, client: Client) -> None:
    group = demo_snapshot.views["modelCombo"]["groups"][0]
    html = client.get("/pairing/", {"view": "modelCombo", "label": group["label"]}).content.decode()
    strip = re.search(r'<svg class="strip".*?</svg>', html, re.S)
    assert strip is not None
    svg = strip.group(0)
    assert 'role="img"' in svg and "<title" in svg and "<desc" in svg
    for axis in wording.AXES:
        assert f"{axis.name}: raw" in svg
        assert f">{axis.name}</text>" in svg
    # The group's family colour (its swatch by the title) colours its marks: one hollow raw and one solid
    # adjusted mark per axis with a value.
    found = re.search(r'<h1><svg class="swatch"[^>]*><rect width="1" height="1" fill="([^"]+)"', html)
    assert found is not None and found.group(1) in charts.OKABE_ITO
    colour = found.group(1)
    assert svg.count(f'fill="{colour}"') == sum(1 for v in group["adj"].values() if v is not None)
    for axis in wording.AXES:
        assert f"{group['ev'][axis.key]}</td>" in html


def test_it_places_adjusted_values_where_the_scorer_scores_them(demo_snapshot: Snapshot) -> None:
    """The strip's positions are the scorer's: averaging them per tier gives tiersAdj back."""
    for view in wording.VIEW_TITLES:
        view_doc = demo_snapshot.views[view]
        for group in view_doc["groups"]:
            rows = presenters.axis_rows(group, view_doc)
            for tier in wording.TIERS:
                placed = [r["adj_position"] for r in rows if r["axis"].tier == tier and r["adj_position"] is not None]
                if tier in group["imputed"]:
                    assert not placed
                    continue
                assert 100 * sum(placed) / len(placed) == pytest.approx(group["tiersAdj"][tier], abs=1e-9)


def test_it_draws_the_score_by_day_once_three_snapshots_differ(
    demo_snapshot: Snapshot, client: Client, django_capture_on_commit_callbacks
) -> None:
    label = ranked_labels(demo_snapshot, "modelCombo")[0]
    url = {"view": "modelCombo", "label": label}
    days_back = 3
    for count in range(2):  # one snapshot a day, each with a few more cycles of another pairing
        page = client.get("/pairing/", url).content.decode()
        shown = page_text(page)
        assert '<svg class="spark"' not in page
        assert f"{count + 1} day{'s' if count else ''} of snapshots so far" in shown
        assert "the chart appears once 3 snapshots give this group different scores" in shown
        newest = Snapshot.objects.latest("id")
        Snapshot.objects.filter(id=newest.id).update(created_at=newest.created_at - dt.timedelta(days=days_back))
        days_back -= 1
        make_cycles(make_contributor(demo=True), count=30 + 10 * count, pairings=(("gpt-7", "gpt-7"),), seed=5 + count)
        with django_capture_on_commit_callbacks(execute=True):  # the publish retires the cached pages
            recompute.publish()
    scores = {
        f"{score:.1f}"
        for score in GroupScore.objects.filter(view="modelCombo", label=label).values_list("score_adj", flat=True)
    }
    assert len(scores) == 3  # the pool moved, and the group's score with it
    html = client.get("/pairing/", url).content.decode()
    spark = re.search(r'<svg class="spark".*?</svg>', html, re.S)
    assert spark is not None
    assert "over 3 days" in spark.group(0)
    points = re.search(r'<polyline points="([^"]+)"', spark.group(0))
    assert points is not None and len(points.group(1).split()) == 3
    assert "Not drawn yet" not in html


def test_it_leaves_out_a_score_history_that_never_moved() -> None:
    """Three snapshots with one printed score are a flat line: a sentence says why nothing is drawn."""
    moment = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
    flat = [charts.HistoryPoint(i, moment + dt.timedelta(days=i), 51.02 + i / 1000, 40.0, 60.0) for i in range(3)]
    assert charts.history_scores(flat) == 1
    assert charts.history_words(flat).startswith("Not drawn yet: 3 days of snapshots so far, with one score")
    moving = [charts.HistoryPoint(i, moment + dt.timedelta(days=i), 50.0 + i, 40.0, 60.0) for i in range(3)]
    assert charts.history_words(moving) == ""


def test_it_shows_a_provisional_group_with_raw_values_only(demo_snapshot: Snapshot, client: Client) -> None:
    item = demo_snapshot.views["modelCombo"]["provisional"][0]
    response = client.get("/pairing/", {"view": "modelCombo", "label": item["label"]})
    assert response.status_code == 200
    html = response.content.decode()
    assert "Provisional" in html and f"{item['hjudged']} judged cycle" in page_text(html)
    assert '<svg class="strip"' not in html


@pytest.mark.parametrize(
    "params",
    [
        {"view": "modelCombo", "label": "nobody → nothing"},
        {"view": "modelCombo"},
        {"view": "nonsense", "label": "claude-opus-4.8 → claude-opus-4.8"},
        {"view": "model", "label": "claude-opus-4.8 → claude-opus-4.8"},
    ],
)
def test_it_answers_404_for_an_unknown_group(demo_snapshot: Snapshot, client: Client, params: dict[str, str]) -> None:
    response = client.get("/pairing/", params)
    assert response.status_code == 404
    assert "Not found" in response.content.decode()


def test_it_gives_the_range_of_places_the_intervals_allow(demo_snapshot: Snapshot, client: Client) -> None:
    groups = demo_snapshot.views["modelCombo"]["groups"]
    for group in groups:
        html = client.get("/pairing/", {"view": "modelCombo", "label": group["label"]}).content.decode()
        best, worst = group["rank"], group["rank_worst"]
        if (best, worst) == (1, len(groups)):  # every place: separated from none
            assert f"Not separated from the other {len(groups) - 1} pairings" in html
            continue
        places = str(best) if best == worst else f"{best}–{worst}"
        assert f"Rank {places} of {len(groups)} in pairings." in html
        assert wording.RANK_RANGE_WORDS in html
