import re

import pytest
from django.test import Client

from leaderboard.models import Snapshot
from leaderboard.selectors import cycles_frame, scoring_config
from pages import compare, wording
from scoring import compare_groups
from tests.pages.conftest import ranked_labels


def test_it_reports_the_difference_with_its_bootstrap_interval(demo_snapshot: Snapshot, client: Client) -> None:
    first, third = ranked_labels(demo_snapshot, "modelCombo")[0], ranked_labels(demo_snapshot, "modelCombo")[2]
    expected = compare_groups(cycles_frame(), scoring_config(), view="modelCombo", label_a=first, label_b=third)
    html = client.get("/compare/", {"view": "modelCombo", "a": first, "b": third}).content.decode()
    assert f"{abs(expected.difference):.1f}</span>" in html
    assert expected.ci is not None
    lo, hi = expected.ci
    assert re.search(rf"interval [+−]?{abs(lo):.1f} to [+−]?{abs(hi):.1f}", html)
    assert expected.share_a_better is not None
    assert f"A scored higher than B in {expected.share_a_better * 100:.0f}% of {expected.resamples} resamples" in html


def test_it_says_which_side_is_better_on_each_axis_and_tier(demo_snapshot: Snapshot, client: Client) -> None:
    groups = demo_snapshot.views["modelCombo"]["groups"]
    a, b = groups[0], groups[-1]
    html = client.get("/compare/", {"view": "modelCombo", "a": a["label"], "b": b["label"]}).content.decode()
    tier_row = r"<tr><th scope=\"row\">(\w+) <span class=\"hint\">\d+</span></th>.*?<td>(A|B|even|no comparison)</td>"
    tier_rows = re.findall(tier_row, html, re.S)
    assert [name for name, _ in tier_rows] == list(wording.TIERS)
    for name, better in tier_rows:
        difference = a["tiersAdj"][name] - b["tiersAdj"][name]
        assert better == ("even" if abs(difference) < 0.05 else ("A" if difference > 0 else "B"))
    for row in compare.compare_axes(a, b):
        if row["better"] in ("A", "B"):
            winner, loser = (row["a"], row["b"]) if row["better"] == "A" else (row["b"], row["a"])
            assert (winner > loser) == row["axis"].higher_is_better, row["axis"].key


def test_it_picks_the_top_two_when_none_are_chosen(demo_snapshot: Snapshot, client: Client) -> None:
    first, second = ranked_labels(demo_snapshot, "family")[:2]
    html = client.get("/compare/", {"view": "family"}).content.decode()
    assert f"<option selected>{first}</option>" in html
    assert re.search(rf'<select name="b">.*<option selected>{re.escape(second)}</option>', html, re.S)


def test_it_links_same_builder_and_same_planner_comparisons(demo_snapshot: Snapshot, client: Client) -> None:
    groups = demo_snapshot.views["modelCombo"]["groups"]
    a = next(g for g in groups if g["planner"] == "claude-opus-4.8" and g["builder"] == "claude-opus-4.8")
    html = client.get("/compare/", {"view": "modelCombo", "a": a["label"]}).content.decode()
    quick = html.split('<section class="quick">', 1)[1]
    same_builder = [g["label"] for g in groups if g["builder"] == a["builder"] and g["planner"] != a["planner"]]
    same_planner = [g["label"] for g in groups if g["planner"] == a["planner"] and g["builder"] != a["builder"]]
    assert same_planner, "the demo pool gives opus-4.8 several builders"
    for label in same_builder + same_planner:
        assert f"{a['label']} vs {label}</a>" in quick
    builder_part = quick.split("Same planner, different builder")[0]
    assert all(label in builder_part for label in same_builder)


def test_it_asks_for_two_different_groups_when_both_are_the_same(demo_snapshot: Snapshot, client: Client) -> None:
    label = ranked_labels(demo_snapshot, "model")[0]
    response = client.get("/compare/", {"view": "model", "a": label, "b": label})
    assert response.status_code == 200
    assert "pick two different ones" in response.content.decode()


@pytest.mark.parametrize(
    "params",
    [
        {"view": "modelCombo", "a": "nobody → nothing", "b": "x"},
        {"view": "hmm"},
    ],
)
def test_it_answers_404_for_unknown_groups(demo_snapshot: Snapshot, client: Client, params: dict[str, str]) -> None:
    assert client.get("/compare/", params).status_code == 404


def test_it_fills_a_missing_side_with_the_best_other_group(demo_snapshot: Snapshot, client: Client) -> None:
    first, second = ranked_labels(demo_snapshot, "modelCombo")[:2]
    html = client.get("/compare/", {"view": "modelCombo", "a": first}).content.decode()
    assert re.search(rf'<select name="b">.*<option selected>{re.escape(second)}</option>', html, re.S)
    html = client.get("/compare/", {"view": "modelCombo", "b": first}).content.decode()
    assert re.search(
        rf'<select name="a">.*<option selected>{re.escape(second)}</option>.*<select name="b">', html, re.S
    )
    assert "pick two different ones" not in html
