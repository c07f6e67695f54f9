"""score_pool and compare_groups: the shapes and numbers the service relies on."""

import json
from datetime import date
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from scoring import (
    CYCLE_COLUMNS,
    GroupNotRanked,
    Samples,
    ScoringConfig,
    compare_groups,
    score_pool,
)
from scoring.shapes import AXIS_NAMES, TIER_NAMES, VIEWS, PoolDocument
from tests.cycles.frames import cycle_frame, synthetic_cycles

FAST = ScoringConfig(resamples=40)
POINT = ScoringConfig(resamples=0)
GROUP_KEYS = {
    "id",
    "label",
    "hue",
    "hjudged",
    "hshipped",
    "hshipJudged",
    "raw",
    "adj",
    "ev",
    "tiers",
    "tiersAdj",
    "imputed",
    "score",
    "scoreAdj",
    "ci",
    "rank",
    "rank_worst",
    "contributors",
    "top_share",
    "flags",
}


@pytest.fixture(scope="module")
def cycles() -> pd.DataFrame:
    return synthetic_cycles(2500, seed=9, contributors=6, models=5, efforts=2)


@pytest.fixture(scope="module")
def document(cycles: pd.DataFrame) -> PoolDocument:
    return score_pool(cycles, FAST, generated="2026-09-09T08:37:05Z").document


@pytest.fixture(scope="module")
def samples(cycles: pd.DataFrame) -> Samples:
    return score_pool(cycles, FAST, generated="2026-09-09T08:37:05Z").samples


def test_it_scores_the_same_document_with_and_without_keeping_the_samples(
    cycles: pd.DataFrame, document: dict[str, Any]
) -> None:
    assert score_pool(cycles, FAST, generated="2026-09-09T08:37:05Z").document == document


def test_it_exports_the_columns_it_reads_as_the_stored_field_names() -> None:
    from ingest.columns import CONTRACT_TO_FIELD

    assert set(CYCLE_COLUMNS) <= {"contributor", *CONTRACT_TO_FIELD.values()}
    # What it does not read it must not ask for: the read is the slow part at a million cycles.
    assert not {"provider", "planner_provider", "builder_provider", "role", "harness", "harness_version"} & set(
        CYCLE_COLUMNS
    )


def test_it_returns_strict_json_without_numpy_types(document: dict[str, Any]) -> None:
    text = json.dumps(document, allow_nan=False)
    assert json.loads(text) == document


def test_it_shapes_every_view_like_the_published_pool(document: dict[str, Any]) -> None:
    assert tuple(document["views"]) == VIEWS
    for view, body in document["views"].items():
        assert body["span"] == 2
        assert set(body["pool"]) == set(AXIS_NAMES)
        assert body["groups"], view
        for group in body["groups"]:
            pairing = view in ("modelCombo", "famCombo", "modelEffortCombo")
            assert set(group) == GROUP_KEYS | ({"planner", "builder"} if pairing else set()), view
            assert set(group["tiers"]) == set(TIER_NAMES)
            assert group["hjudged"] >= 10
            assert 0 <= group["hue"] < 360
            if pairing:
                assert group["label"] == f"{group['planner']} → {group['builder']}"
        scores = [g["scoreAdj"] for g in body["groups"]]
        assert scores == sorted(scores, reverse=True)


def test_it_counts_meta_over_the_judged_cycles(cycles: pd.DataFrame, document: dict[str, Any]) -> None:
    judged = cycles[(cycles.assistant_steps > 0) & (cycles.edits > 0) & (cycles.edit_paths == 1)]
    meta = document["meta"]
    assert meta["judged"] == len(judged)
    assert meta["shipped"] == int((judged.shipped == 1).sum())
    assert meta["shipJudged"] == int((judged.ship_status == 0).sum())
    assert meta["pending"] == int((judged.ship_status == 1).sum())
    assert meta["unshippable"] == meta["impossible"] == int((judged.ship_status == 2).sum())
    assert meta["shipJudged"] + meta["pending"] + meta["unshippable"] == meta["judged"]
    assert meta["contributors"] == judged.contributor.nunique()
    assert meta["start"] == str(pd.to_datetime(judged.day).min().date())
    assert (meta["schema"], meta["minJudged"], meta["evidenceK"]) == (3, 10, 10)
    assert meta["weights"] == "30/20/15/15/10/10"
    assert (meta["resamples"], meta["seed"], meta["generated"]) == (40, 20260909, "2026-09-09T08:37:05Z")


def test_it_counts_view_meta_over_the_views_own_cycles(cycles: pd.DataFrame, document: dict[str, Any]) -> None:
    judged = cycles[(cycles.assistant_steps > 0) & (cycles.edits > 0) & (cycles.edit_paths == 1)]
    paired = judged[(judged.planner_model != "") & (judged.builder_model != "")]
    assert document["views"]["model"]["meta"]["judged"] == len(judged)
    combo = document["views"]["modelCombo"]["meta"]
    assert combo["judged"] == len(paired)
    assert combo["pending"] == int((paired.ship_status == 1).sum())
    in_groups = sum(g["hjudged"] for g in document["views"]["modelCombo"]["groups"])
    in_provisional = sum(p["hjudged"] for p in document["views"]["modelCombo"]["provisional"])
    assert in_groups + in_provisional == len(paired)


def test_it_gives_intervals_and_ranks_consistent_with_them(document: dict[str, Any]) -> None:
    for body in document["views"].values():
        groups = body["groups"]
        for group in groups:
            lo, hi = group["ci"]
            assert 0 <= lo <= group["scoreAdj"] <= hi <= 100
            above = sum(1 for other in groups if other["ci"][0] > hi)
            below = sum(1 for other in groups if other["ci"][1] < lo)
            assert group["rank"] == 1 + above
            assert group["rank_worst"] == len(groups) - below
            assert group["rank"] <= group["rank_worst"]
        assert groups[0]["rank"] == 1


def test_it_centres_a_symmetric_t_interval_on_the_score(samples: Samples, document: dict[str, Any]) -> None:
    for group in document["views"]["famCombo"]["groups"]:
        k = group["contributors"]
        draws = samples["famCombo"][group["label"]]
        half = stats.t.ppf(0.975, k - 1) * np.std(draws, ddof=1) * np.sqrt(k / (k - 1))
        expected = [max(0.0, group["scoreAdj"] - half), min(100.0, group["scoreAdj"] + half)]
        assert group["ci"] == pytest.approx(expected, abs=1e-9)


def test_it_gives_one_contributor_no_interval_and_the_whole_rank_range() -> None:
    rows: list[dict[str, Any]] = []
    for i in range(40):  # opus-5 from three contributors, sonnet from one who ships little
        rows.append({"model": "claude-opus-5", "contributor": 1 + i % 3, "day": f"2026-03-{1 + i % 28:02d}"})
        rows.append({"model": "claude-sonnet-4.6", "contributor": 9, "shipped": int(i % 5 == 0)})
    body = score_pool(cycle_frame(rows), FAST).document["views"]["model"]
    by_label = {g["label"]: g for g in body["groups"]}
    alone = by_label["claude-sonnet-4.6"]
    assert alone["ci"] is None and "one-contributor" in alone["flags"]
    assert (alone["rank"], alone["rank_worst"]) == (1, 2)
    assert by_label["claude-opus-5"]["ci"] is not None
    assert (by_label["claude-opus-5"]["rank"], by_label["claude-opus-5"]["rank_worst"]) == (1, 2)


def test_it_ranks_by_point_order_without_resamples(cycles: pd.DataFrame) -> None:
    body = score_pool(cycles, POINT).document["views"]["model"]
    assert all(g["ci"] is None for g in body["groups"])
    assert [g["rank"] for g in body["groups"]] == list(range(1, len(body["groups"]) + 1))
    assert [g["rank_worst"] for g in body["groups"]] == [g["rank"] for g in body["groups"]]


def test_it_keeps_point_scores_the_same_with_or_without_bootstrap(
    cycles: pd.DataFrame, document: dict[str, Any]
) -> None:
    point = score_pool(cycles, POINT, generated=document["meta"]["generated"]).document
    for view in VIEWS:
        for ours, theirs in zip(point["views"][view]["groups"], document["views"][view]["groups"], strict=True):
            assert (ours["label"], ours["scoreAdj"], ours["raw"]) == (
                theirs["label"],
                theirs["scoreAdj"],
                theirs["raw"],
            )


def _small_pool() -> pd.DataFrame:
    """Two ranked models from two contributors, one provisional model, one paired group."""
    rows: list[dict[str, Any]] = []
    for i in range(30):
        rows.append({"model": "claude-opus-5", "contributor": 1 + (i % 3 == 0), "day": f"2026-03-{1 + i % 20:02d}"})
    for i in range(12):
        rows.append({"model": "grok-4.6", "contributor": 2, "shipped": i % 2, "day": "2026-02-01", "effort": ""})
    for _ in range(4):
        rows.append({"model": "qwen-4-coder", "contributor": 1})
    for i in range(10):
        rows.append(
            {"model": "grok-4.6", "planner_model": "gpt-6", "builder_model": "grok-4.6", "human_turns": 1 + i % 3}
        )
    rows.append({"edits": 0, "shipped": 0, "verified": 0})  # not judged
    return cycle_frame(rows)


def test_it_lists_groups_below_the_floor_as_provisional_raw_only() -> None:
    body = score_pool(_small_pool(), POINT).document["views"]["model"]
    assert {g["label"] for g in body["groups"]} == {"claude-opus-5", "grok-4.6"}
    assert body["provisional"] == [
        {"label": "qwen-4-coder", "hjudged": 4, "raw": body["provisional"][0]["raw"]},
    ]
    assert body["provisional"][0]["raw"]["shipr"] == 100.0


def test_it_numbers_groups_by_first_appearance() -> None:
    # A provisional model seen first (and sorted first) must not shift the ranked groups' days.
    early = cycle_frame([{"model": "aaa-model", "day": "2026-01-01", "cycle_key": f"f{i:015x}"} for i in range(3)])
    frame = pd.concat([_small_pool(), early], ignore_index=True)
    body = score_pool(frame, POINT).document["views"]["model"]
    ids = {g["label"]: g["id"] for g in body["groups"]}
    assert ids == {"grok-4.6": "g0", "claude-opus-5": "g1"}


def test_it_reports_contributors_share_and_flags_per_row() -> None:
    body = score_pool(_small_pool(), POINT).document["views"]["model"]
    by_label = {g["label"]: g for g in body["groups"]}
    opus = by_label["claude-opus-5"]
    assert (opus["contributors"], opus["top_share"]) == (2, 20 / 30)
    assert opus["flags"] == []
    grok = by_label["grok-4.6"]
    assert grok["contributors"] == 2
    assert grok["flags"] == ["thin"]
    combo = score_pool(_small_pool(), POINT).document["views"]["modelCombo"]["groups"]
    assert [(g["label"], g["flags"], g["planner"], g["builder"]) for g in combo] == [
        ("gpt-6 → grok-4.6", ["thin", "one-contributor", "dominated"], "gpt-6", "grok-4.6")
    ]


def test_it_scores_a_lone_ranked_group_at_the_pool() -> None:
    combo = score_pool(_small_pool(), POINT).document["views"]["modelCombo"]
    (group,) = combo["groups"]
    assert group["score"] == pytest.approx(50.0)
    assert group["scoreAdj"] == pytest.approx(50.0)
    assert group["raw"] == combo["pool"]


def test_it_narrows_the_scope_by_day_inclusive() -> None:
    document = score_pool(_small_pool(), POINT, since=date(2026, 3, 1), until=date(2026, 3, 10)).document
    meta = document["meta"]
    assert (meta["since"], meta["until"]) == ("2026-03-01", "2026-03-10")
    assert (meta["start"], meta["end"]) == ("2026-03-01", "2026-03-10")
    # Opus on days 1..10 (20 of its 30), qwen and the paired grok cycles on day 1; grok's own February cycles are out.
    assert meta["judged"] == 20 + 4 + 10
    by_label = {g["label"]: g["hjudged"] for g in document["views"]["model"]["groups"]}
    assert by_label == {"claude-opus-5": 20, "grok-4.6": 10}


def test_it_scores_an_empty_pool_without_failing() -> None:
    document = score_pool(cycle_frame([]), FAST).document
    assert document["meta"]["judged"] == 0
    assert document["meta"]["start"] is None
    for body in document["views"].values():
        assert body["groups"] == [] and body["provisional"] == []
        assert all(value is None for value in body["pool"].values())
    json.dumps(document, allow_nan=False)


def test_it_gives_the_same_document_whatever_the_row_order(cycles: pd.DataFrame, document: dict[str, Any]) -> None:
    shuffled = cycles.sample(frac=1.0, random_state=4).reset_index(drop=True)
    assert score_pool(shuffled, FAST, generated=document["meta"]["generated"]).document == document


def test_it_hands_out_the_bootstrap_samples_behind_the_intervals(samples: Samples, document: dict[str, Any]) -> None:
    groups = document["views"]["famCombo"]["groups"]
    assert set(samples["famCombo"]) == {g["label"] for g in groups}
    for group in groups:
        draws = samples["famCombo"][group["label"]]
        assert len(draws) == 40
        k = group["contributors"]
        half = stats.t.ppf(0.975, k - 1) * np.std(draws, ddof=1) * np.sqrt(k / (k - 1))
        assert group["ci"][1] - group["ci"][0] <= 2 * half + 1e-9


def test_it_compares_two_groups_with_the_same_draws(
    cycles: pd.DataFrame, samples: Samples, document: dict[str, Any]
) -> None:
    first, second = document["views"]["model"]["groups"][:2]
    result = compare_groups(cycles, FAST, view="model", label_a=first["label"], label_b=second["label"])
    assert result.difference == pytest.approx(first["scoreAdj"] - second["scoreAdj"], abs=1e-12)
    diffs = np.array(samples["model"][first["label"]]) - np.array(samples["model"][second["label"]])
    k = min(first["contributors"], second["contributors"])
    assert (result.contributors_a, result.contributors_b) == (first["contributors"], second["contributors"])
    assert result.contributors == k and result.resamples == 40
    half = stats.t.ppf(0.975, k - 1) * np.std(diffs, ddof=1) * np.sqrt(k / (k - 1))
    assert result.ci == pytest.approx((result.difference - half, result.difference + half))
    assert result.share_a_better == float((diffs > 0).mean())
    reverse = compare_groups(cycles, FAST, view="model", label_a=second["label"], label_b=first["label"])
    assert reverse.difference == pytest.approx(-result.difference)
    assert reverse.share_a_better == pytest.approx(1 - result.share_a_better)  # ties have probability zero here


def test_it_refuses_to_compare_a_group_that_is_not_ranked(cycles: pd.DataFrame) -> None:
    with pytest.raises(GroupNotRanked):
        compare_groups(cycles, FAST, view="model", label_a="claude-opus-5", label_b="no-such-model")


def test_it_compares_without_an_interval_when_there_are_no_resamples(cycles: pd.DataFrame) -> None:
    labels = [g["label"] for g in score_pool(cycles, POINT).document["views"]["family"]["groups"]][:2]
    result = compare_groups(cycles, POINT, view="family", label_a=labels[0], label_b=labels[1])
    assert result.ci is None and result.share_a_better is None and result.resamples == 0
    assert result.difference >= 0


def test_it_takes_the_floor_and_the_evidence_weight_from_the_config() -> None:
    lower_floor = ScoringConfig(resamples=0, min_judged=4, evidence_k=20)
    document = score_pool(_small_pool(), lower_floor).document
    body = document["views"]["model"]
    assert "qwen-4-coder" in {g["label"] for g in body["groups"]}
    assert body["provisional"] == []
    assert (document["meta"]["minJudged"], document["meta"]["evidenceK"]) == (4, 20)
    group = body["groups"][0]
    n, raw, pool = group["ev"]["shipr"], group["raw"]["shipr"], body["pool"]["shipr"]
    assert raw is not None and pool is not None
    assert group["adj"]["shipr"] == pytest.approx((n * raw + 20 * pool) / (n + 20))
