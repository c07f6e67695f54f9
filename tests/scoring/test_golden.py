"""The published scorecards are the golden table of the method (scoring spec, part A).

From each published group's raw values, evidence and its view's pool, our finishing stage
must give the published adj, tiers, tiersAdj, score, scoreAdj and imputed; the pools must
follow from the groups' counts wherever the published counts allow.
"""

import json
import math
from typing import Any

import numpy as np
import pytest

from scoring.finishing import finish
from scoring.groupings import family, hue, pair, with_effort
from scoring.shapes import AXES, AXIS_NAMES, SUMS, TIER_NAMES, TIERS, VIEWS, A, S
from scoring.sums import pool_axes, raw_axes
from tests.data.paths import POOL_DIR

SCHEMA_3_FILES = ("pool.json", "pool-115382dd.json")
TOLERANCE = 1e-9


def _load(name: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((POOL_DIR / name).read_text())
    return document


def _axes(values: dict[str, float | None]) -> np.ndarray:
    return np.array([np.nan if values[name] is None else values[name] for name in AXIS_NAMES], dtype=np.float64)


def _view_cases() -> list[tuple[str, str]]:
    return [(name, view) for name in SCHEMA_3_FILES for view in VIEWS]


def _assert_close(published: float | None, ours: float, what: str) -> None:
    if published is None:
        assert math.isnan(ours), f"{what}: published null, ours {ours}"
    else:
        assert abs(published - ours) <= TOLERANCE, f"{what}: published {published}, ours {ours}"


def test_it_finds_the_six_views_in_both_schema_3_files() -> None:
    for name in SCHEMA_3_FILES:
        assert tuple(_load(name)["views"]) == VIEWS


@pytest.mark.parametrize(("name", "view"), _view_cases())
def test_it_reproduces_every_published_group_from_raw_evidence_and_pool(name: str, view: str) -> None:
    published = _load(name)["views"][view]
    groups = published["groups"]
    raw = np.array([_axes(g["raw"]) for g in groups])
    evidence = np.array([_axes(g["ev"]) for g in groups])
    pool = _axes(published["pool"])[None, :]

    ours = finish(raw, evidence, pool)

    for i, group in enumerate(groups):
        where = f"{name}/{view}/{group['label']}"
        for j, axis in enumerate(AXIS_NAMES):
            _assert_close(group["adj"][axis], ours.adj[i, j], f"{where} adj.{axis}")
        for t, tier in enumerate(TIER_NAMES):
            _assert_close(group["tiers"][tier], ours.tiers[i, t], f"{where} tiers.{tier}")
            _assert_close(group["tiersAdj"][tier], ours.tiers_adj[i, t], f"{where} tiersAdj.{tier}")
        _assert_close(group["score"], ours.score[i], f"{where} score")
        _assert_close(group["scoreAdj"], ours.score_adj[i], f"{where} scoreAdj")
        assert [tier for t, tier in enumerate(TIER_NAMES) if ours.imputed[i, t]] == group["imputed"], where


@pytest.mark.parametrize(("name", "view"), _view_cases())
def test_it_orders_published_groups_by_score_adj(name: str, view: str) -> None:
    scores = [g["scoreAdj"] for g in _load(name)["views"][view]["groups"]]
    assert scores == sorted(scores, reverse=True)


@pytest.mark.parametrize(("name", "view"), _view_cases())
def test_it_finds_evidence_equal_to_the_published_counts(name: str, view: str) -> None:
    """A3's evidence column: shipr by ship-judged, oneshot/ttss/hps by shipped, the rest by judged."""
    by_sum = {"hshipJudged": "hshipJudged", "hshipped": "hshipped", "hjudged": "hjudged"}
    for group in _load(name)["views"][view]["groups"]:
        for axis in AXES:
            if axis.evidence in by_sum:
                assert group["ev"][axis.name] == group[by_sum[axis.evidence]], (group["label"], axis.name)
        # dpss counts only shipped cycles that were metered.
        assert group["ev"]["dpss"] <= group["hshipped"]


def _recovered_count(rate: float, divisor: int, scale: float) -> int:
    """An integer count behind a published rate; it must come back as a whole number."""
    count = rate * divisor / scale
    assert abs(count - round(count)) < 1e-6, (rate, divisor)
    return round(count)


DERIVABLE_AXES = ("shipr", "oneshot", "ttss", "hps", "dpss", "abortp", "verp")


def _published_sums(group: dict[str, Any]) -> np.ndarray:
    """The A2 sums behind a published group, as far as its counts and rates determine them.

    hone, hver, habort and huShip are whole numbers behind oneshot, verp, abortp and ttss;
    hhrsShip and hcostShip are the sums behind the means hps and dpss (dpss's evidence is
    hshippedCosted). hedits, hteerr and hu are not published: they stay NaN.
    """
    raw, shipped, judged = group["raw"], group["hshipped"], group["hjudged"]
    sums = np.full(len(SUMS), np.nan)
    sums[S["hjudged"]] = judged
    sums[S["hshipJudged"]] = group["hshipJudged"]
    sums[S["hshipped"]] = shipped
    sums[S["hone"]] = _recovered_count(raw["oneshot"], shipped, 100)
    sums[S["hver"]] = _recovered_count(raw["verp"], judged, 100)
    sums[S["habort"]] = _recovered_count(raw["abortp"], judged, 100)
    sums[S["huShip"]] = _recovered_count(raw["ttss"], shipped, 1)
    sums[S["hhrsShip"]] = raw["hps"] * shipped
    sums[S["hshippedCosted"]] = group["ev"]["dpss"]
    sums[S["hcostShip"]] = 0.0 if raw["dpss"] is None else raw["dpss"] * group["ev"]["dpss"]
    return sums


@pytest.mark.parametrize(("name", "view"), _view_cases())
def test_it_derives_raw_axes_and_the_pool_from_the_published_counts(name: str, view: str) -> None:
    """A3 and A4 through our own raw_axes and pool_axes, on every axis the published counts determine.

    eerrp, ept and lat need hedits, hu and the latency bags, which are not published.
    """
    published = _load(name)["views"][view]
    sums = np.stack([_published_sums(g) for g in published["groups"]])

    raw = raw_axes(sums, np.full(len(sums), np.nan))
    pool = pool_axes(sums[None], np.array([np.nan]))[0]

    for i, group in enumerate(published["groups"]):
        for axis in DERIVABLE_AXES:
            expected = group["raw"][axis]
            if expected is None:
                assert math.isnan(raw[i, A[axis]]), (group["label"], axis)
            else:
                assert raw[i, A[axis]] == pytest.approx(expected, rel=1e-12), (group["label"], axis)
    for axis in DERIVABLE_AXES:
        assert pool[A[axis]] == pytest.approx(published["pool"][axis], rel=1e-12), axis


@pytest.mark.parametrize("name", SCHEMA_3_FILES)
def test_it_counts_meta_as_judged_split_by_ship_status(name: str) -> None:
    meta = _load(name)["meta"]
    assert meta["shipJudged"] + meta["pending"] + meta["impossible"] == meta["judged"]
    assert meta["weights"] == "/".join(str(t.weight) for t in TIERS)


@pytest.mark.parametrize(("name", "view"), _view_cases())
def test_it_gives_published_labels_and_hues(name: str, view: str) -> None:
    """Labels follow A1's shapes and hues follow the family (of the builder, for pairings)."""
    pattern = r"^(claude-(?:opus|sonnet|haiku|fable)|grok|gpt|gemini|minimax|deepseek|muse-spark|big-pickle)"
    for group in _load(name)["views"][view]["groups"]:
        label = group["label"]
        builder_side = label.split(" → ")[-1]
        builder_model = builder_side.split(":")[0]
        assert group["hue"] == hue(family(builder_model, pattern)), label
        if view in ("modelCombo", "famCombo", "modelEffortCombo"):
            planner_side, builder = label.split(" → ")
            assert pair(planner_side, builder) == label
        if view in ("modelEffort", "modelEffortCombo"):
            for side in label.split(" → "):
                model, effort = side.split(":")
                assert with_effort(model, effort) == side
        if view == "family":
            assert family(label, pattern) == label


def test_it_places_the_pool_at_exactly_fifty() -> None:
    pool = _axes(_load("pool.json")["views"]["model"]["pool"])
    ours = finish(pool[None, :], np.full((1, len(AXES)), 100.0), pool[None, :])
    assert ours.score_adj[0] == pytest.approx(50.0, abs=1e-12)
    assert ours.adj[0, A["shipr"]] == pytest.approx(pool[A["shipr"]])
