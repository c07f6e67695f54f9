"""The pairing page's "same builder, different planners" picture and sentence, on pools recomputed for real.

One builder has two planners with very different ship rates from many contributors (its planners are
separated); another has two planners that ship alike from three contributors (not separated yet).
"""

import re
from typing import Any

import pytest
from django.test import Client

from leaderboard import recompute
from leaderboard.models import Snapshot
from pages import pairing_sides
from scoring.shapes import PAIR_ARROW
from tests.cycles.stored import make_contributor, make_cycles
from tests.pages.conftest import page_text

CLEAR_BUILDER, STRONG, WEAK = "grok-4.6", "claude-opus-4.8", "claude-sonnet-4.6"
UNSURE_BUILDER, FIRST, SECOND, WAITING = "claude-opus-5", "claude-fable-5", "muse-spark-1.3", "grok-4.6"
MANY, FEW = 12, 3


@pytest.fixture
def sides_snapshot(db: None) -> Snapshot:
    offset = 0

    def add(contributor: Any, planner: str, builder: str, *, count: int, ship_rate: float, seed: int) -> None:
        nonlocal offset
        pairing = ((planner, builder),)
        make_cycles(contributor, count=count, pairings=pairing, ship_rate=ship_rate, seed=seed, key_offset=offset)
        offset += count

    for i in range(MANY):
        contributor = make_contributor()
        add(contributor, STRONG, CLEAR_BUILDER, count=12, ship_rate=0.97, seed=100 + i)
        add(contributor, WEAK, CLEAR_BUILDER, count=12, ship_rate=0.03, seed=200 + i)
    for i in range(FEW):
        contributor = make_contributor()
        add(contributor, FIRST, UNSURE_BUILDER, count=8, ship_rate=0.6, seed=300 + i)
        add(contributor, SECOND, UNSURE_BUILDER, count=8, ship_rate=0.6, seed=400 + i)
    add(make_contributor(), WAITING, UNSURE_BUILDER, count=4, ship_rate=0.6, seed=500)  # too few to rank
    published = recompute.publish()
    assert published is not None
    return Snapshot.objects.get(id=published.id)


def pairing_page(client: Client, planner: str, builder: str) -> str:
    response = client.get("/pairing/", {"view": "modelCombo", "label": f"{planner}{PAIR_ARROW}{builder}"})
    assert response.status_code == 200
    return response.content.decode()


def panel(page: str, key: str) -> str:
    found = re.search(rf'<section class="side-panel" id="{key}">(.*?)</section>', page, re.S)
    assert found is not None, key
    return found.group(1)


def with_builder(snapshot: Snapshot, builder: str) -> list[dict[str, Any]]:
    """The published groups of the builder, in the document's order (best scoreAdj first)."""
    return [g for g in snapshot.views["modelCombo"]["groups"] if g["label"].endswith(f"{PAIR_ARROW}{builder}")]


def assert_one_row_per_group(svg: str, groups: list[dict[str, Any]], current: str) -> None:
    """The picture's rows are the published groups of that builder, labelled by planner, with their numbers."""
    labels = re.findall(r'<text x="0" y="\d+" class="forest-label( current)?">([^<]+)</text>', svg)
    assert [name for _, name in labels] == [g["label"].split(PAIR_ARROW)[0] for g in groups]
    assert [bool(mark) for mark, _ in labels] == [g["label"] == current for g in groups]
    assert svg.count('class="forest-current"') == 1
    desc = re.search(r'<desc id="same-builder-desc">([^<]+)</desc>', svg)
    assert desc is not None and '<title id="same-builder-title">' in svg and 'role="img"' in svg
    for group in groups:
        lo, hi = group["ci"]
        value = f"{group['scoreAdj']:.1f} · {lo:.0f}–{hi:.0f}"
        assert f'class="forest-value">{value}</text>' in svg


def test_it_says_the_planner_matters_when_one_planners_interval_lies_above_the_others(
    sides_snapshot: Snapshot, client: Client
) -> None:
    groups = with_builder(sides_snapshot, CLEAR_BUILDER)
    assert len(groups) == 2
    best, worst = groups
    assert best["label"].startswith(STRONG) and best["ci"][0] > worst["ci"][1]  # the pool is what it says
    page = pairing_page(client, WEAK, CLEAR_BUILDER)
    same_builder = panel(page, "same-builder")
    assert "Same builder, different planners" in same_builder
    sentence = page_text(same_builder)
    assert f"With builder {CLEAR_BUILDER}, the choice of planner clearly matters" in sentence
    lo, hi = best["ci"]
    strong = f"planner {STRONG} (score {best['scoreAdj']:.1f}, interval {lo:.0f}–{hi:.0f}, {MANY} contributors)"
    assert f"{strong} is surely ahead of planner {WEAK}" in sentence
    for name in (CLEAR_BUILDER, STRONG, WEAK):  # each name kept whole on a line
        assert f'<span class="side-name">{name}</span>' in same_builder
    svg = re.search(r'<svg class="forest".*?</svg>', same_builder, re.S)
    assert svg is not None
    assert_one_row_per_group(svg.group(0), groups, current=worst["label"])


def test_it_says_plainly_when_the_planners_are_not_separated_yet(sides_snapshot: Snapshot, client: Client) -> None:
    groups = with_builder(sides_snapshot, UNSURE_BUILDER)
    assert len(groups) == 2
    first, second = groups
    assert first["ci"][0] <= second["ci"][1]  # overlapping, as published
    page = pairing_page(client, FIRST, UNSURE_BUILDER)
    same_builder = panel(page, "same-builder")
    sentence = page_text(same_builder)
    assert f"With builder {UNSURE_BUILDER}, the 2 planners are not separated yet: no planner's interval" in sentence
    counts = ", ".join(f"{g['contributors']} contributors for {g['label'].split(PAIR_ARROW)[0]}" for g in groups)
    assert f"({counts})" in sentence and f"{FEW} contributors" in sentence
    assert "clearly matters" not in sentence
    provisional = [p["label"] for p in sides_snapshot.views["modelCombo"]["provisional"]]
    assert f"{WAITING}{PAIR_ARROW}{UNSURE_BUILDER}" in provisional
    assert "1 more planner with this builder is provisional" in sentence
    svg = re.search(r'<svg class="forest".*?</svg>', same_builder, re.S)
    assert svg is not None
    assert_one_row_per_group(svg.group(0), groups, current=f"{FIRST}{PAIR_ARROW}{UNSURE_BUILDER}")


def test_it_shows_the_mirror_same_planner_with_each_builder(sides_snapshot: Snapshot, client: Client) -> None:
    page = pairing_page(client, STRONG, CLEAR_BUILDER)
    same_planner = panel(page, "same-planner")
    builders = [g for g in sides_snapshot.views["modelCombo"]["groups"] if g["label"].startswith(STRONG + PAIR_ARROW)]
    assert len(builders) == 1  # the strong planner only ever planned for one builder here
    assert "Same planner, different builders" in same_planner
    assert f"Only one builder is ranked with planner {STRONG} so far" in page_text(same_planner)
    assert "<svg" not in same_planner  # one row is no picture
    # The two panels' charts on one page keep their ids apart.
    assert page.count('id="same-builder-title"') == 1 and 'id="same-planner-title"' not in page


def rows_of(*rows: tuple[str, float, tuple[float, float] | None, int]) -> list[dict[str, Any]]:
    """Rows as the panel reads them (label by the varied side, score, interval, contributors), best first."""
    return [
        {"label": name, "score_adj": score, "lo": ci and ci[0], "hi": ci and ci[1], "contributors": n}
        for name, score, ci, n in rows
    ]


def test_a_planner_without_an_interval_is_apart_from_no_one() -> None:
    # One contributor: no interval, so however far apart the scores, nothing is claimed.
    rows = rows_of(("a", 80.0, (75.0, 85.0), 20), ("b", 20.0, None, 1))
    separated, sentence = pairing_sides.panel_sentence(rows, kept="builder", name="x")
    assert not separated
    assert "not separated yet" in sentence and "20 contributors for a, 1 contributor for b" in sentence


def test_it_counts_the_pairs_apart_and_gives_the_contributors_range_past_three_rows() -> None:
    rows = rows_of(
        ("a", 80.0, (75.0, 85.0), 20), ("b", 60.0, (55.0, 70.0), 9), ("c", 50.0, (40.0, 58.0), 4), ("d", 45.0, None, 1)
    )
    separated, sentence = pairing_sides.panel_sentence(rows, kept="planner", name="x")
    assert separated
    assert sentence.startswith("With planner x, the choice of builder clearly matters: builder a (score 80.0")
    assert "is surely ahead of builder c (score 50.0, interval 40–58, 4 contributors)" in sentence
    # a over b and a over c; d, without an interval, is apart from no one.
    assert "2 of the 6 pairs of builders are separated this way." in sentence
    overlapping = rows_of(*((name, 50.0, (40.0, 60.0), n) for name, n in (("a", 3), ("b", 5), ("c", 7), ("d", 4))))
    separated, sentence = pairing_sides.panel_sentence(overlapping, kept="builder", name="x")
    assert not separated and "(3 to 7 contributors each)" in sentence
