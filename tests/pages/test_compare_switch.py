"""The compare page answers "should I switch": one sentence from the numbers, per-axis intervals from the stored
resamples, differences inside their interval greyed and clear ones shaded by their size."""

import html as html_module
import math
import re
from itertools import combinations

import pytest
from django.test import Client

from leaderboard.models import Snapshot
from leaderboard.published import AXIS_SAMPLES_KEY
from leaderboard.selectors import cycles_frame, scoring_config
from pages import compare
from pages.compare import compared
from pages.wording import AXES
from scoring import Comparison, compare_groups
from scoring.compare_axes import AxisDifference, switch_summary
from scoring.shapes import GroupRow
from tests.pages.shapes import group_row
from tests.scoring.brute_force import compare_axes_of_groups

NAME = {axis.key: axis.name for axis in AXES}


def _text(page: str) -> str:
    return html_module.unescape(re.sub(r"<[^>]+>", "", page))


def _sentence(page: str) -> str:
    found = re.search(r'<p class="verdict switch" id="switch">(.*?)</p>', page, re.S)
    assert found, "the compare page opens with its sentence"
    return " ".join(_text(found.group(1)).split())


def _axis_rows(page: str) -> dict[str, tuple[str, str]]:
    """axis title -> (the row's class, the row's cells as text)."""
    table = page.split('class="compare axes-compared"', 1)[1].split("</table>", 1)[0]
    rows = {}
    for classes, body in re.findall(r'<tr class="([^"]*)">(.*?)</tr>', table, re.S):
        title = _text(re.search(r'<th scope="row">(.*?)<span', body, re.S).group(1)).strip()  # type: ignore[union-attr]
        rows[title] = (classes, body)
    return rows


def _pairs(snapshot: Snapshot, view: str) -> list[tuple[GroupRow, GroupRow]]:
    groups: list[GroupRow] = snapshot.views[view]["groups"]
    return list(combinations(groups, 2))


def _pair_with(snapshot: Snapshot, view: str, *, clear: bool) -> tuple[GroupRow, GroupRow]:
    for a, b in _pairs(snapshot, view):
        summary = switch_summary(compared(snapshot.id, view, a, b)[1])
        if bool(summary.clear) == clear and summary.with_interval:
            return a, b
    pytest.fail(f"the demo pool has no {view} pair {'with' if clear else 'without'} a clear axis")


def _get(client: Client, view: str, a: GroupRow, b: GroupRow) -> str:
    response = client.get("/compare/", {"view": view, "a": a["label"], "b": b["label"]})
    assert response.status_code == 200
    return response.content.decode()


def test_the_sentence_names_the_clear_axes_with_their_size_and_the_score(
    demo_snapshot: Snapshot, client: Client
) -> None:
    a, b = _pair_with(demo_snapshot, "family", clear=True)
    page = _get(client, "family", a, b)
    sentence = _sentence(page)
    comparison = compare_groups(cycles_frame(), scoring_config(), view="family", label_a=a["label"], label_b=b["label"])
    assert comparison.ci is not None
    tie = comparison.ci[0] <= 0 <= comparison.ci[1]
    assert ("not separated on the score" in sentence) == tie, sentence
    assert "tie" not in sentence
    if not tie:
        assert f"{'A' if comparison.ci[0] > 0 else 'B'} scores higher" in sentence
    summary = switch_summary(compared(demo_snapshot.id, "family", a, b)[1])
    for difference in summary.clear[: compare.NAMED_IN_SENTENCE]:
        low, high = difference.factor_interval or (0.0, 0.0)
        assert difference.factor is not None
        named = f"{difference.better} {compare._CLAIMS[difference.axis]}: {compare.times(difference.factor)}"
        assert named in sentence, sentence
        assert f"interval {compare.times(low)}–{compare.times(high)}" in sentence


def test_a_pair_without_clear_axes_says_so(demo_snapshot: Snapshot, client: Client) -> None:
    a, b = _pair_with(demo_snapshot, "modelCombo", clear=False)
    page = _get(client, "modelCombo", a, b)
    assert "no axis differs clearly" in _sentence(page)
    assert all(classes == "unclear" and "win" not in body for classes, body in _axis_rows(page).values())


def test_the_table_greys_what_is_within_its_interval_and_shades_the_rest_by_size(
    demo_snapshot: Snapshot, client: Client
) -> None:
    a, b = _pair_with(demo_snapshot, "family", clear=True)
    differences = compared(demo_snapshot.id, "family", a, b)[1]
    rows = _axis_rows(_get(client, "family", a, b))
    assert len(rows) == len(AXES)
    for difference in differences:
        classes, body = rows[NAME[difference.axis]]
        if difference.clear:
            assert difference.factor is not None
            band = compare.size_band(difference.factor)
            assert classes == f"clear {band}"
            assert f'class="win win-{band}"' in body
        else:
            assert classes == "unclear" and "win" not in body
        if difference.ci is None:
            assert "no interval:" in _text(body)


def test_the_stored_axis_samples_give_the_fresh_bootstrap(demo_snapshot: Snapshot) -> None:
    frame, config = cycles_frame(), scoring_config()
    for view in ("modelCombo", "family"):
        for a, b in _pairs(demo_snapshot, view)[:3]:
            stored, kept = compared(demo_snapshot.id, view, a, b)[1:]
            fresh = compare_axes_of_groups(frame, config, view=view, label_a=a["label"], label_b=b["label"])
            assert kept
            for s, f in zip(stored, fresh, strict=True):
                assert s.axis == f.axis and s.advantage == pytest.approx(f.advantage)
                assert (s.ci is None) == (f.ci is None), s.axis
                if s.ci is not None and f.ci is not None:
                    assert s.ci == pytest.approx(f.ci, abs=1e-6), s.axis
                assert s.contributors == f.contributors


def test_an_older_snapshot_without_axis_samples_says_so_plainly(demo_snapshot: Snapshot, client: Client) -> None:
    samples = Snapshot.objects.get(id=demo_snapshot.id).samples
    del samples[AXIS_SAMPLES_KEY]
    Snapshot.objects.filter(id=demo_snapshot.id).update(samples=samples)
    a, b = demo_snapshot.views["family"]["groups"][:2]
    page = _get(client, "family", a, b)
    sentence = _sentence(page)
    assert "no per-axis resamples" in sentence and "no axis difference is claimed" in sentence
    assert re.search(r"(not separated on the score|scores higher|settles nothing)", sentence)
    for classes, body in _axis_rows(page).values():
        assert classes == "unclear" and "win" not in body
        assert "no interval: no per-axis samples" in _text(body) or "no interval: no comparison" in _text(body)


@pytest.mark.parametrize(("factor", "band"), [(1.02, "slight"), (1.3, "moderate"), (2.22, "large")])
def test_a_clear_difference_is_shaded_by_how_large_it_is(factor: float, band: str) -> None:
    log = math.log2(factor)
    difference = AxisDifference("shipr", log, ci=(log * 0.5, log * 1.5), resamples=200, contributors=5)
    group = group_row("a", adj={"shipr": 50.0}, contributors=5)
    (row,) = [r for r in compare.axis_rows(group, group, (difference,)) if r.axis.key == "shipr"]
    assert row.clear and row.band == band and row.better == "A"
    sentence = compare.switch_sentence(None, (difference,), True)
    assert f"A ships more often: {compare.times(factor)} the odds" in sentence


def _comparison(difference: float, ci: tuple[float, float] | None) -> Comparison:
    return Comparison(
        score_a=50 + difference, score_b=50, contributors_a=4, contributors_b=6, difference=difference, ci=ci
    )


def test_the_score_half_of_the_sentence_follows_the_interval() -> None:
    # An interval holding zero cannot order the two; it does not show them equal, so no "tie".
    assert compare.score_words(_comparison(2.0, (-3.0, 7.0))) == (
        "A and B are not separated on the score (A − B = +2.0, interval −3.0 to +7.0)"
    )
    assert compare.score_words(_comparison(9.0, (1.5, 16.5))).startswith("A scores higher (A − B = +9.0")
    assert compare.score_words(_comparison(-9.0, (-16.5, -1.5))).startswith("B scores higher (A − B = −9.0")
    assert "settles nothing" in compare.score_words(_comparison(9.0, None))


def test_tiers_with_an_untested_axis_are_not_called_the_same() -> None:
    untested = AxisDifference("dpss", 1.0)  # an advantage but no interval
    tested = [AxisDifference(name, 0.1, ci=(-0.2, 0.4), resamples=200, contributors=5) for name in ("ttss", "hps")]
    clear = AxisDifference("shipr", 1.0, ci=(0.5, 1.5), resamples=200, contributors=5)
    summary = switch_summary((clear, untested, *tested))
    assert "Cost" not in summary.same_tiers and [d.axis for d in summary.clear] == ["shipr"]
    assert "cost" not in compare.switch_sentence(_comparison(1.0, (-2.0, 4.0)), (clear, untested, *tested), True)


def test_the_picture_draws_every_axis_and_marks_the_clear_ones(demo_snapshot: Snapshot, client: Client) -> None:
    a, b = _pair_with(demo_snapshot, "family", clear=True)
    differences = compared(demo_snapshot.id, "family", a, b)[1]
    page = _get(client, "family", a, b)
    svg = page.split('<svg class="forest advantages"', 1)[1].split("</svg>", 1)[0]
    desc = _text(re.search(r'<desc id="advantages-desc">(.*?)</desc>', svg, re.S).group(1))  # type: ignore[union-attr]
    for difference in differences:
        status = "clear" if difference.clear else "within its interval" if difference.ci else "no interval"
        assert f"{NAME[difference.axis]}: " in desc and status in desc
    solid = [d for d in differences if d.clear]
    dashed = [d for d in differences if d.ci is not None and not d.clear]
    assert svg.count('stroke-width="6"/>') == len(solid) and svg.count('stroke-dasharray="4 3"') == len(dashed)
    assert svg.count("<circle") == sum(d.advantage is not None for d in differences)


def test_no_picture_without_per_axis_samples(demo_snapshot: Snapshot, client: Client) -> None:
    samples = Snapshot.objects.get(id=demo_snapshot.id).samples
    del samples[AXIS_SAMPLES_KEY]
    Snapshot.objects.filter(id=demo_snapshot.id).update(samples=samples)
    a, b = demo_snapshot.views["family"]["groups"][:2]
    assert 'svg class="forest advantages"' not in _get(client, "family", a, b)
