"""Properties of the method that hold for any pool of cycles (hypothesis)."""

from typing import Any

import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring import ScoringConfig, score_pool
from scoring.shapes import AXES, PoolDocument
from tests.cycles.frames import cycle_frame

POINT = ScoringConfig(resamples=0)
FEW = ScoringConfig(resamples=6)
GENERATED = "2026-09-09T00:00:00Z"
EPSILON = 1e-9
PROPERTY_SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def cycles(draw: st.DrawFn) -> dict[str, Any]:
    edits = draw(st.integers(0, 12))
    status = draw(st.sampled_from([0, 0, 0, 1, 2]))
    paired = draw(st.booleans())
    model = draw(st.sampled_from(["claude-opus-5", "claude-opus-4.6", "grok-4.6", "muse-spark-1.3"]))
    return {
        "contributor": draw(st.integers(1, 3)),
        "day": draw(st.sampled_from(["2026-03-01", "2026-03-02", "2026-04-15"])),
        "model": model,
        "effort": draw(st.sampled_from(["", "max"])),
        "planner_model": draw(st.sampled_from(["claude-fable-5", "gpt-6"])) if paired else "",
        "planner_effort": draw(st.sampled_from(["", "high"])) if paired else "",
        "builder_model": model if paired else "",
        "builder_effort": draw(st.sampled_from(["", "max"])) if paired else "",
        "human_turns": draw(st.integers(0, 4)),
        "assistant_steps": draw(st.integers(0, 60)),
        "edits": edits,
        "edit_paths": draw(st.sampled_from([0, 1, 1, 1])),
        "edit_errors": draw(st.integers(0, edits)),
        "cost_usd": draw(st.sampled_from([0.0, 0.25, 2.0, 13.5])),
        "shipped": int(status == 0 and edits > 0 and draw(st.booleans())),
        "active_hours": draw(st.sampled_from([0.0, 0.1, 0.75, 3.0])),
        "verified": int(edits > 0 and draw(st.booleans())),
        "intervened": draw(st.sampled_from([0, 0, 1])),
        "step_seconds_median": draw(st.sampled_from([-1.0, 0.0, 1.5, 4.25, 9.0, 60.0])),
        "ship_status": status,
    }


pools = st.lists(cycles(), min_size=0, max_size=90).map(cycle_frame)


def _ranked(document: PoolDocument) -> dict[str, Any]:
    """Each view's ranked groups and pool: what a provisional group must never move."""
    return {view: (body["groups"], body["pool"]) for view, body in document["views"].items()}


@PROPERTY_SETTINGS
@given(pools)
def test_it_keeps_scores_and_tiers_between_0_and_100(frame: pd.DataFrame) -> None:
    for body in score_pool(frame, POINT).document["views"].values():
        for group in body["groups"]:
            assert 0 <= group["score"] <= 100
            assert 0 <= group["scoreAdj"] <= 100
            for tier in (*group["tiers"].values(), *group["tiersAdj"].values()):
                assert 0 <= tier <= 100


@PROPERTY_SETTINGS
@given(pools)
def test_it_shrinks_every_axis_toward_the_pool(frame: pd.DataFrame) -> None:
    for body in score_pool(frame, POINT).document["views"].values():
        pool = body["pool"]
        for group in body["groups"]:
            for axis in AXES:
                raw, adj, center = group["raw"][axis.name], group["adj"][axis.name], pool[axis.name]
                if raw is None or center is None:
                    assert adj is None
                    continue
                assert adj is not None
                assert min(raw, center) - EPSILON <= adj <= max(raw, center) + EPSILON
                assert abs(adj - center) <= abs(raw - center) + EPSILON


@PROPERTY_SETTINGS
@given(pools, st.randoms(use_true_random=False))
def test_it_ignores_the_order_of_the_rows(frame: pd.DataFrame, shuffle: Any) -> None:
    order = list(range(len(frame)))
    shuffle.shuffle(order)
    shuffled = frame.iloc[order].reset_index(drop=True)
    assert (
        score_pool(shuffled, FEW, generated=GENERATED).document == score_pool(frame, FEW, generated=GENERATED).document
    )


@PROPERTY_SETTINGS
@given(st.lists(cycles(), min_size=10, max_size=60))
def test_it_scores_a_group_equal_to_the_pool_at_fifty(rows: list[dict[str, Any]]) -> None:
    one_model = cycle_frame([{**row, "model": "grok-4.6", "planner_model": "", "builder_model": ""} for row in rows])
    for group in score_pool(one_model, POINT).document["views"]["model"]["groups"]:
        assert abs(group["score"] - 50) < EPSILON
        assert abs(group["scoreAdj"] - 50) < EPSILON


@PROPERTY_SETTINGS
@given(st.lists(cycles(), min_size=20, max_size=90), st.lists(cycles(), min_size=1, max_size=9))
def test_it_leaves_ranked_groups_alone_when_a_group_below_the_floor_joins(
    rows: list[dict[str, Any]], newcomers: list[dict[str, Any]]
) -> None:
    # A model of no known family and without a planner: it adds one small group to the
    # model, family and modelEffort views and nothing to the pairing views.
    newcomer_rows = [{**row, "model": "zz-new-model", "planner_model": "", "builder_model": ""} for row in newcomers]
    before = score_pool(cycle_frame(rows), FEW, generated=GENERATED).document
    after = score_pool(cycle_frame(rows + newcomer_rows), FEW, generated=GENERATED).document
    assert _ranked(after) == _ranked(before)


@PROPERTY_SETTINGS
@given(pools, st.integers(0, 2**31))
def test_it_reproduces_intervals_from_the_seed(frame: pd.DataFrame, seed: int) -> None:
    config = ScoringConfig(resamples=6, seed=seed)
    first = score_pool(frame, config, generated=GENERATED).document
    assert score_pool(frame.copy(), config, generated=GENERATED).document == first
