"""The enriched document (scoring/enrich.py): B3 through the whole document path, and rank stability. No database."""

import json
import math
from typing import Any, cast

import numpy as np
import pandas as pd
import pytest

from scoring import ScoringConfig, score_pool
from scoring.document import prepare
from scoring.enrich import RETIRED_FLAG, enrich_document
from scoring.shapes import PAIRING_EFFECT_VIEWS
from tests.cycles.frames import columns_frame
from tests.scoring.brute_force import rank_stability

POINT = ScoringConfig(resamples=0)
PAIRING_VIEWS = PAIRING_EFFECT_VIEWS


def _cycles(
    contributor: np.ndarray,
    planner: np.ndarray,
    builder: np.ndarray,
    log_odds: np.ndarray,
    rng: np.random.Generator,
    *,
    quality: np.ndarray | None = None,
) -> pd.DataFrame:
    """Judged cycles; shipping drawn from the log odds, the rest from `quality` (0..1)."""
    n = len(contributor)
    good = np.full(n, 0.5) if quality is None else quality
    shipped = (rng.random(n) < 1 / (1 + np.exp(-log_odds))).astype(np.int64)
    return columns_frame(
        {
            "contributor": contributor.astype(np.int64),
            "cycle_key": [f"{k:016x}" for k in rng.permutation(n)],
            "day": np.datetime64("2026-03-01") + rng.integers(0, 60, n).astype("timedelta64[D]"),
            "model": builder,
            "planner_model": planner,
            "builder_model": builder,
            "human_turns": 1 + rng.poisson(3 * (1 - good)),
            "assistant_steps": 5 + rng.poisson(30, n),
            "edits": 1 + rng.poisson(5, n),
            "edit_errors": rng.binomial(3, 0.3 * (1 - good)),
            "cost_usd": np.round(rng.gamma(2, 4 * (1.5 - good)), 4),
            "shipped": shipped,
            "active_hours": np.round(rng.gamma(2, 0.5 * (1.5 - good)), 4),
            "verified": (rng.random(n) < good).astype(np.int64),
            "intervened": (rng.random(n) < 0.2 * (1 - good)).astype(np.int64),
            "step_seconds_median": np.round(rng.gamma(3, 4 * (1.5 - good)), 2),
            "planner_effort": "max",
            "builder_effort": "max",
        }
    )


def _confounded_pool(seed: int = 20260909) -> pd.DataFrame:
    """Ten strong contributors put 90% of their cycles on a weak pairing; thirty weak ones mostly use the others."""
    rng = np.random.default_rng(seed)
    sides = [("gpt-6", "grok-4.6"), ("claude-opus-5", "claude-opus-5"), ("gemini-3-pro", "muse-spark-1.3")]
    sides += [("deepseek-v4", "claude-sonnet-5")]
    effect = np.array([-0.6, 0.0, 0.1, 0.2])  # the first pairing is the weak one
    ability = np.r_[np.full(10, 1.5), np.full(30, -0.8)] + rng.normal(0, 0.2, 40)
    contributor = np.repeat(np.arange(1, 41), 150)
    strong = contributor <= 10
    on_weak = rng.random(len(contributor)) < np.where(strong, 0.9, 0.05)
    pairing = np.where(on_weak, 0, rng.integers(1, 4, len(contributor)))
    planner = np.array([p for p, _ in sides], dtype=object)[pairing]
    builder = np.array([b for _, b in sides], dtype=object)[pairing]
    return _cycles(contributor, planner, builder, effect[pairing] + ability[contributor - 1], rng)


def _enriched(cycles: pd.DataFrame, config: ScoringConfig = POINT) -> dict[str, Any]:
    # Read key by key below, as the plain JSON it is stored as.
    return cast(dict[str, Any], enrich_document(score_pool(cycles, config).document, cycles, config))


def _group(document: dict, view: str, label: str) -> dict:
    return next(g for g in document["views"][view]["groups"] if g["label"] == label)


def _raw_odds_ratio_against_pool(document: dict, view: str, label: str) -> float:
    group = _group(document, view, label)
    pool_rate = document["views"][view]["pool"]["shipr"] / 100
    odds = group["hshipped"] / (group["hshipJudged"] - group["hshipped"])
    return odds / (pool_rate / (1 - pool_rate))


def test_it_adjusts_the_pairing_of_strong_contributors_below_its_raw_odds_in_the_document() -> None:
    document = _enriched(_confounded_pool())

    for view, weak in (("modelCombo", "gpt-6 → grok-4.6"), ("famCombo", "gpt → grok")):
        raw = _raw_odds_ratio_against_pool(document, view, weak)
        adjusted = _group(document, view, weak)["adjusted"]
        meta = document["views"][view]["meta"]
        assert meta["adjustment"] == "ok"
        assert raw > 1.5  # strong contributors make the weak pairing look strong
        assert adjusted["separable"] is True
        assert adjusted["odds_ratio"] < 1.0
        assert adjusted["ci"][0] < adjusted["odds_ratio"] < adjusted["ci"][1] < raw
        assert meta["contributor_variance_share"] > 0.5
        # The other pairings all get numbers too, and the weak one comes out last.
        odds = {g["label"]: g["adjusted"]["odds_ratio"] for g in document["views"][view]["groups"]}
        assert all(value is not None for value in odds.values())
        assert min(odds, key=lambda label: odds[label]) == weak


def test_it_agrees_with_raw_odds_within_the_interval_without_a_confounder() -> None:
    rng = np.random.default_rng(7)
    sides = np.array(["claude-opus-5", "grok-4.6", "muse-spark-1.3"], dtype=object)
    n = 6000
    pairing = rng.integers(0, 3, n)
    contributor = rng.integers(1, 31, n)
    ability = rng.normal(0, 0.5, 31)
    cycles = _cycles(contributor, sides[pairing], sides[pairing], 0.5 + ability[contributor], rng)

    document = _enriched(cycles)

    for group in document["views"]["modelCombo"]["groups"]:
        raw = _raw_odds_ratio_against_pool(document, "modelCombo", group["label"])
        lo, hi = group["adjusted"]["ci"]
        assert lo < raw < hi, group["label"]


def test_it_reports_a_one_contributor_pairing_as_not_separable() -> None:
    cycles = _confounded_pool()
    rng = np.random.default_rng(3)
    only = np.full(40, 7)
    lonely = _cycles(only, np.full(40, "minimax-m3", object), np.full(40, "minimax-m3", object), np.zeros(40), rng)
    lonely["cycle_key"] = [f"f{k:015x}" for k in range(40)]

    document = _enriched(pd.concat([cycles, lonely], ignore_index=True))

    group = _group(document, "modelCombo", "minimax-m3 → minimax-m3")
    assert "one-contributor" in group["flags"]
    assert group["adjusted"] == {"odds_ratio": None, "ci": [None, None], "separable": False}
    assert document["views"]["modelCombo"]["meta"]["adjustment"] == "ok"
    assert _group(document, "modelCombo", "gpt-6 → grok-4.6")["adjusted"]["separable"] is True


def _stability_pool(seed: int) -> pd.DataFrame:
    """A small pool with groups near the ranking threshold and contributors that move ranks."""
    rng = np.random.default_rng(seed)
    models = np.array(["claude-opus-5", "grok-4.6", "muse-spark-1.3", "gpt-6"], dtype=object)
    n = 700
    contributor = rng.integers(1, 9, n)
    planner = models[rng.integers(0, 4, n)]
    builder = models[rng.integers(0, 4, n)]
    skill = rng.random(9)
    quality = np.clip(skill[contributor] + rng.normal(0, 0.1, n), 0, 1)
    cycles = _cycles(contributor, planner, builder, 3 * (quality - 0.5), rng, quality=quality)
    cycles["effort"] = np.array(["max", "high"], dtype=object)[rng.integers(0, 2, n)]
    cycles["builder_effort"] = cycles["effort"]
    cycles["planner_effort"] = np.array(["max", "high"], dtype=object)[rng.integers(0, 2, n)]
    cycles["step_seconds_median"] = np.where(rng.random(n) < 0.15, -1.0, cycles["step_seconds_median"])
    return cycles


def _brute_force_rank_ranges(cycles: pd.DataFrame, view: str) -> tuple[dict[str, tuple[int, int]], int]:
    """rank_stability by scoring without each contributor, and how often a ranked group left the ranking."""
    ranked = {g["label"] for g in score_pool(cycles, POINT).document["views"][view]["groups"]}
    left = 0

    def ranks_without(excluded: frozenset[int]) -> dict[str, int]:
        nonlocal left
        document = score_pool(cycles[~cycles["contributor"].isin(excluded)], POINT).document
        ranks = {g["label"]: g["rank"] for g in document["views"][view]["groups"]}
        left += len(ranked - set(ranks))
        return ranks

    return rank_stability(ranks_without, contributors=cycles["contributor"].unique().tolist()), left


@pytest.mark.parametrize("seed", [1, 2])
def test_it_gives_each_group_the_rank_range_of_recomputing_without_each_contributor(seed: int) -> None:
    cycles = _stability_pool(seed)
    document = _enriched(cycles)

    moved = dropped = 0
    for view, body in document["views"].items():
        brute, left = _brute_force_rank_ranges(cycles, view)
        assert body["meta"]["rank_stability"] == "ok"
        for group in body["groups"]:
            # None: the group is ranked only with every contributor in (it leaves the ranking without any one).
            mine = None if group["rank_range"] is None else tuple(group["rank_range"])
            assert mine == brute.get(group["label"]), (view, group["label"])
            moved += mine is not None and mine[0] != mine[1]
        dropped += left
    # The pool exercises both: ranks that move, and groups that leave the ranking (and the pool) without someone.
    assert moved > 10
    assert dropped > 0


def test_it_keeps_the_rank_range_a_note_not_a_flag() -> None:
    # Ranks move without some contributors here, yet no row is flagged for it: the range is a stability note the
    # pages show where it reaches outside the interval's rank range, and an older document's flag is removed.
    cycles = _stability_pool(1)
    document = score_pool(cycles, POINT).document
    for body in document["views"].values():
        for group in body["groups"]:
            group["flags"].append(RETIRED_FLAG)  # type: ignore[arg-type]  # an older document's flag
    enrich_document(document, cycles, POINT)

    moved = 0
    for body in document["views"].values():
        for group in body["groups"]:
            assert RETIRED_FLAG not in group["flags"]
            lo, hi = group["rank_range"] or (group["rank"], group["rank"])
            moved += hi - lo > 1
    assert moved > 0


def test_it_keeps_a_rank_range_steady_when_every_contributor_works_alike() -> None:
    # Two clearly different pairings, each used alike by many contributors: nobody's leaving moves a rank.
    rng = np.random.default_rng(11)
    n = 4000
    pairing = rng.integers(0, 2, n)
    sides = np.array(["claude-opus-5", "grok-4.6"], dtype=object)
    quality = np.where(pairing == 0, 0.9, 0.1)
    cycles = _cycles(rng.integers(1, 41, n), sides[pairing], sides[pairing], 3 * (quality - 0.5), rng, quality=quality)

    document = _enriched(cycles)

    for group in document["views"]["modelCombo"]["groups"]:
        assert group["rank_range"] == [group["rank"], group["rank"]]
        assert RETIRED_FLAG not in group["flags"]


def test_it_leaves_the_scores_published_when_the_cycles_cannot_be_read() -> None:
    cycles = _confounded_pool()
    document = score_pool(cycles, POINT).document
    before = json.loads(json.dumps(document))

    enriched = enrich_document(document, cycles.drop(columns=["shipped"]), POINT)

    json.dumps(enriched, allow_nan=False)  # still a valid JSON document
    for view, body in enriched["views"].items():
        assert [g["scoreAdj"] for g in body["groups"]] == [g["scoreAdj"] for g in before["views"][view]["groups"]]
        assert body["meta"]["rank_stability"].startswith("rank stability unavailable: ")
        for group in body["groups"]:
            assert group["rank_range"] is None
            assert RETIRED_FLAG not in group["flags"]
            if view in PAIRING_VIEWS:
                assert group["adjusted"] == {"odds_ratio": None, "ci": [None, None], "separable": None}
        if view in PAIRING_VIEWS:
            assert body["meta"]["adjustment"].startswith("adjustment unavailable: ")
            assert "shipped" not in body["meta"]["adjustment"], "internal error text stays out of the public document"
            assert body["meta"]["contributor_variance_share"] is None


def test_it_says_adjustment_unavailable_when_the_fit_cannot_run_and_still_ranks() -> None:
    cycles = _confounded_pool()
    cycles["shipped"] = 1  # every cycle shipped: no model of shipping can be fitted

    document = _enriched(cycles)

    for view in PAIRING_VIEWS:
        meta = document["views"][view]["meta"]
        assert meta["adjustment"] == "adjustment unavailable: every cycle shipped"
        assert meta["contributor_variance_share"] is None
        for group in document["views"][view]["groups"]:
            assert group["adjusted"]["odds_ratio"] is None and group["adjusted"]["separable"] is True
        assert meta["rank_stability"] == "ok"
        assert all(g["rank_range"] is not None for g in document["views"][view]["groups"])


def test_it_enriches_a_day_window_from_the_cycles_in_that_window() -> None:
    cycles = _stability_pool(2)
    since, until = pd.Timestamp("2026-03-10").date(), pd.Timestamp("2026-04-10").date()
    document = score_pool(cycles, POINT, since=since, until=until).document

    enrich_document(document, cycles, POINT, since=since, until=until)

    window = cycles[(cycles["day"] >= np.datetime64(since)) & (cycles["day"] <= np.datetime64(until))]
    brute, _ = _brute_force_rank_ranges(window, "model")
    assert {g["label"]: tuple(g["rank_range"] or ()) for g in document["views"]["model"]["groups"]} == brute
    assert all(math.isfinite(g["adjusted"]["odds_ratio"] or 1.0) for g in document["views"]["modelCombo"]["groups"])


def test_it_confines_a_failing_part_to_its_own_view() -> None:
    cycles = _confounded_pool()
    document = score_pool(cycles, POINT).document
    broken = document["views"]["modelCombo"]["groups"][0]
    del broken["label"]  # type: ignore[misc]  # the modelCombo parts cannot match this group to the engine's

    enrich_document(document, cycles, POINT)

    combo = document["views"]["modelCombo"]
    assert combo["meta"]["adjustment"] == "adjustment unavailable: an internal error stopped the computation"
    assert combo["meta"]["rank_stability"] == "rank stability unavailable: an internal error stopped the computation"
    assert all(g["rank_range"] is None and g["adjusted"]["odds_ratio"] is None for g in combo["groups"])
    assert all(RETIRED_FLAG not in g["flags"] for g in combo["groups"])
    assert document["views"]["famCombo"]["meta"]["adjustment"] == "ok"
    for view in ("model", "family", "modelEffort", "famCombo", "modelEffortCombo"):
        assert document["views"][view]["meta"]["rank_stability"] == "ok"
        assert all(g["rank_range"] is not None for g in document["views"][view]["groups"])


def test_it_leaves_a_document_of_another_shape_as_it_was() -> None:
    cycles = _confounded_pool()
    document = {"meta": {}, "views": {"modelCombo": "not a view"}}

    assert enrich_document(document, cycles, POINT) == {"meta": {}, "views": {"modelCombo": "not a view"}}  # type: ignore[arg-type]


def test_it_gives_the_same_document_from_a_shared_prepared_stage() -> None:
    cycles = _confounded_pool()
    config = ScoringConfig(resamples=20, seed=5)
    fresh = score_pool(cycles, config, generated="2026-09-01T00:00:00Z")
    fresh_document, fresh_samples = fresh.document, fresh.samples
    enrich_document(fresh_document, cycles, config)

    prepared = prepare(cycles, config, None, None)
    shared = score_pool(cycles, config, generated="2026-09-01T00:00:00Z", prepared=prepared)
    shared_document, shared_samples = shared.document, shared.samples
    enrich_document(shared_document, cycles, config, prepared=prepared)

    assert json.dumps(shared_document, sort_keys=True) == json.dumps(fresh_document, sort_keys=True)
    assert shared_samples == fresh_samples
