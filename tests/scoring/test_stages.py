"""Unit tests of the stages: judged filter, labels and families, sums, weighted median, distances, tiers."""

import math
from datetime import date

import numpy as np
import pandas as pd
import pytest

from scoring.finishing import finish, log_distance, positions, tiers
from scoring.groupings import family, hue, view_groupings
from scoring.judged import contributions, judged_in_scope
from scoring.shapes import AXIS_NAMES, DEFAULT_FAMILY_PATTERN, SUMS, TIER_NAMES, A, S
from scoring.sums import pool_axes, raw_axes, weighted_medians
from tests.cycles.frames import cycle_frame

NAN = math.nan


def _labels(rows: list[dict[str, object]], view: str) -> list[str]:
    judged = judged_in_scope(cycle_frame(rows))
    grouping = view_groupings(judged, DEFAULT_FAMILY_PATTERN)[view]  # type: ignore[index]
    return sorted({grouping.labels[c] for c in grouping.codes if c >= 0})


# -- A1: judged cycles, scope, labels, families -------------------------------------------------


def test_it_judges_only_cycles_with_steps_edits_and_a_repository_path() -> None:
    frame = cycle_frame(
        [
            {},
            {"assistant_steps": 0},
            {"edits": 0, "shipped": 0, "verified": 0},
            {"edit_paths": 0, "shipped": 0},
            {"ship_status": 1, "shipped": 0},
        ]
    )
    judged = judged_in_scope(frame)
    assert len(judged) == 2
    assert sorted(judged.numbers["ship_status"].tolist()) == [0, 1]


def test_it_keeps_days_inside_since_and_until_inclusive() -> None:
    frame = cycle_frame([{"day": "2026-03-01"}, {"day": "2026-03-02"}, {"day": "2026-03-03"}, {"day": "2026-03-04"}])
    judged = judged_in_scope(frame, since=date(2026, 3, 2), until=date(2026, 3, 3))
    assert [str(d) for d in judged.day] == ["2026-03-02", "2026-03-03"]


def test_it_sorts_judged_cycles_canonically_whatever_the_row_order() -> None:
    rows: list[dict[str, object]] = [
        {"contributor": 2, "day": "2026-03-01"},
        {"contributor": 1, "day": "2026-03-05"},
        {"contributor": 1, "day": "2026-03-01"},
    ]
    forward = judged_in_scope(cycle_frame(rows))
    backward = judged_in_scope(cycle_frame(rows).iloc[::-1])
    assert forward.contributor.tolist() == [1, 1, 2]
    assert [str(d) for d in forward.day] == ["2026-03-01", "2026-03-05", "2026-03-01"]
    assert np.array_equal(contributions(forward).columns, contributions(backward).columns)


def test_it_refuses_a_frame_without_the_cycle_columns() -> None:
    with pytest.raises(ValueError, match="lack the columns"):
        judged_in_scope(cycle_frame([{}]).drop(columns=["edits"]))


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("claude-opus-4.6", "claude-opus"),
        ("claude-sonnet-4.5", "claude-sonnet"),
        ("claude-haiku-4", "claude-haiku"),
        ("claude-fable-5.1", "claude-fable"),
        ("grok-4.6", "grok"),
        ("gpt-6-astra", "gpt"),
        ("gemini-3-pro", "gemini"),
        ("minimax-m3", "minimax"),
        ("deepseek-v4", "deepseek"),
        ("muse-spark-1.3", "muse-spark"),
        ("big-pickle", "big-pickle"),
        ("qwen-4-coder", "qwen-4-coder"),
        ("claude-instant-2", "claude-instant-2"),
        ("my-gpt", "my-gpt"),
    ],
)
def test_it_names_the_family_by_the_first_match_of_the_default_pattern(model: str, expected: str) -> None:
    assert family(model, DEFAULT_FAMILY_PATTERN) == expected


def test_it_takes_an_operators_family_pattern() -> None:
    assert family("qwen-4-coder", r"^(qwen|gpt)") == "qwen"
    assert family("qwen-4-coder", r"^gpt") == "qwen-4-coder"
    assert family("vendor-qwen-4", r"qwen-\d") == "qwen-4"


def test_it_gives_each_family_one_stable_hue() -> None:
    assert hue("claude-opus") == 55
    assert hue("qwen-4-coder") == hue("qwen-4-coder")
    assert 0 <= hue("qwen-4-coder") < 360


def test_it_writes_an_empty_effort_as_none_in_labels() -> None:
    rows: list[dict[str, object]] = [
        {"model": "grok-4.6", "effort": ""},
        {"model": "grok-4.6", "effort": "high"},
        {
            "model": "grok-4.6",
            "effort": "high",
            "planner_model": "gpt-6",
            "planner_effort": "",
            "builder_model": "grok-4.6",
            "builder_effort": "xhigh",
        },
    ]
    assert _labels(rows, "modelEffort") == ["grok-4.6:(none)", "grok-4.6:high"]
    assert _labels(rows, "modelEffortCombo") == ["gpt-6:(none) → grok-4.6:xhigh"]


def test_it_pairs_planner_and_builder_with_an_arrow_and_only_when_both_are_set() -> None:
    rows: list[dict[str, object]] = [
        {"planner_model": "claude-fable-5", "builder_model": "grok-4.6"},
        {"planner_model": "claude-fable-5.1", "builder_model": "grok-4.7"},
        {"planner_model": "claude-fable-5", "builder_model": ""},
        {"planner_model": "", "builder_model": "grok-4.6"},
    ]
    assert _labels(rows, "modelCombo") == ["claude-fable-5 → grok-4.6", "claude-fable-5.1 → grok-4.7"]
    assert _labels(rows, "famCombo") == ["claude-fable → grok"]
    assert "\u2192" in _labels(rows, "famCombo")[0]


def test_it_leaves_a_cycle_without_a_model_out_of_the_model_views_only() -> None:
    # The client's "(none)" model is stored empty (cycle-record.md): no group "" in the model views.
    rows: list[dict[str, object]] = [
        {"model": "", "effort": "high", "planner_model": "gpt-6", "builder_model": "grok-4.6"},
        {"model": "grok-4.6"},
    ]
    for view in ("model", "family"):
        assert _labels(rows, view) == ["grok-4.6" if view == "model" else "grok"]
    assert _labels(rows, "modelEffort") == ["grok-4.6:max"]
    assert _labels(rows, "modelCombo") == ["gpt-6 → grok-4.6"]


def test_it_groups_the_family_view_by_family_of_the_model() -> None:
    rows: list[dict[str, object]] = [{"model": "claude-opus-4.6"}, {"model": "claude-opus-5"}, {"model": "grok-4.6"}]
    assert _labels(rows, "family") == ["claude-opus", "grok"]
    assert _labels(rows, "model") == ["claude-opus-4.6", "claude-opus-5", "grok-4.6"]


# -- A2: sums per cycle -------------------------------------------------------------------------


def test_it_counts_one_shot_as_one_turn_or_two_with_a_planner_and_only_when_shipped() -> None:
    frame = cycle_frame(
        [
            {"human_turns": 1},
            {"human_turns": 2},
            {"human_turns": 2, "planner_model": "gpt-6", "builder_model": "grok-4.6"},
            {"human_turns": 3, "planner_model": "gpt-6", "builder_model": "grok-4.6"},
            {"human_turns": 1, "shipped": 0},
        ]
    )
    judged = judged_in_scope(frame)
    hone = contributions(judged).columns[S["hone"]]
    assert hone.tolist() == [1, 0, 1, 0, 0]


def test_it_sums_ship_costs_and_hours_over_shipped_cycles_only() -> None:
    frame = cycle_frame(
        [
            {"cost_usd": 2.0, "active_hours": 1.0, "human_turns": 3},
            {"cost_usd": 0.0, "active_hours": 2.0, "human_turns": 5},
            {"cost_usd": 7.0, "active_hours": 4.0, "human_turns": 7, "shipped": 0},
            {"ship_status": 2, "shipped": 0},
        ]
    )
    totals = contributions(judged_in_scope(frame)).columns.sum(axis=1)
    expected = {
        "hjudged": 4,
        "hshipJudged": 3,
        "hshipped": 2,
        "hshippedCosted": 1,
        "huShip": 8,
        "hhrsShip": 3.0,
        "hcostShip": 2.0,
        "hu": 17,
    }
    for name, value in expected.items():
        assert totals[S[name]] == value, name


# -- A3: weighted median and raw axes -----------------------------------------------------------


@pytest.mark.parametrize(
    ("pairs", "expected"),
    [
        ([(1.0, 1), (2.0, 1)], 1.0),  # running weight 1 reaches half of 2 exactly at the first value
        ([(3.0, 1), (4.0, 1), (5.0, 1)], 4.0),
        ([(10.0, 5), (20.0, 1), (30.0, 1)], 10.0),
        ([(10.0, 1), (20.0, 1), (30.0, 5)], 30.0),
        ([(7.0, 3)], 7.0),
        ([(2.0, 2), (2.0, 2), (9.0, 3)], 2.0),
    ],
)
def test_it_takes_the_first_value_whose_running_weight_reaches_half(
    pairs: list[tuple[float, int]], expected: float
) -> None:
    values = np.array([v for v, _ in pairs])
    weights = np.array([w for _, w in pairs], dtype=np.int64)
    assert weighted_medians(values, weights, np.array([0, len(pairs)]))[0, 0] == expected


def test_it_finds_medians_per_segment_and_null_for_an_empty_or_weightless_one() -> None:
    values = np.array([1.0, 2.0, 3.0, 5.0, 6.0])
    weights = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 2, 1]], dtype=np.int64)
    medians = weighted_medians(values, weights, np.array([0, 3, 3, 5]))
    assert medians[0, 0] == 2.0
    assert math.isnan(medians[0, 1])
    assert math.isnan(medians[0, 2])
    assert medians[1, 2] == 5.0


def _sums(**values: float) -> np.ndarray:
    row = np.zeros(len(SUMS))
    for name, value in values.items():
        row[S[name]] = value
    return row


def test_it_computes_raw_axes_and_nulls_when_a_divisor_is_zero() -> None:
    sums = _sums(
        hjudged=10, hshipJudged=8, hshipped=6, hshippedCosted=3, huShip=12, hhrsShip=3.0, hcostShip=9.0, hone=3
    )
    sums += _sums(hedits=40, hteerr=2, hver=7, habort=1, hu=0)
    raw = raw_axes(sums, np.array(4.5))
    assert raw[A["shipr"]] == 75.0
    assert raw[A["oneshot"]] == 50.0
    assert raw[A["ttss"]] == 2.0
    assert raw[A["hps"]] == 0.5
    assert raw[A["dpss"]] == 3.0
    assert raw[A["eerrp"]] == 5.0
    assert raw[A["abortp"]] == 10.0
    assert raw[A["verp"]] == 70.0
    assert math.isnan(raw[A["ept"]])  # hu = 0
    assert raw[A["lat"]] == 4.5
    unshipped = raw_axes(_sums(hjudged=3, hedits=5, hu=2), np.array(NAN))
    for axis in ("shipr", "oneshot", "ttss", "hps", "dpss", "lat"):
        assert math.isnan(unshipped[A[axis]]), axis


def test_it_pools_dpss_only_over_groups_that_spent_something() -> None:
    groups = np.stack(
        [
            _sums(hjudged=10, hshipJudged=10, hshipped=5, hshippedCosted=4, hcostShip=8.0),
            _sums(hjudged=10, hshipJudged=10, hshipped=5, hshippedCosted=0, hcostShip=0.0),
        ]
    )
    pool = pool_axes(groups[None], np.array([3.0]))[0]
    assert pool[A["dpss"]] == 2.0
    assert pool[A["shipr"]] == 50.0
    assert pool[A["lat"]] == 3.0


# -- A5: distances, positions, tiers ------------------------------------------------------------


def _distance(axis: str, value: float, pool: float) -> float:
    values = np.full(len(AXIS_NAMES), NAN)
    pools = np.full(len(AXIS_NAMES), NAN)
    values[A[axis]] = value
    pools[A[axis]] = pool
    return float(log_distance(values, pools)[A[axis]])


def test_it_measures_ratio_axes_in_log2_with_the_better_side_positive() -> None:
    assert _distance("ept", 8.0, 2.0) == 2.0  # higher is better
    assert _distance("ttss", 8.0, 2.0) == -2.0  # lower is better
    assert math.isnan(_distance("ttss", 0.0, 2.0))
    assert math.isnan(_distance("ttss", 1.0, 0.0))


def test_it_measures_odds_axes_with_infinite_ends_and_null_pools() -> None:
    assert _distance("shipr", 50.0, 50.0) == 0.0
    assert _distance("shipr", 80.0, 50.0) == 2.0  # odds 4 against 1
    assert _distance("shipr", 0.0, 50.0) == -math.inf
    assert _distance("shipr", 100.0, 50.0) == math.inf
    assert math.isnan(_distance("shipr", 60.0, 100.0))
    assert math.isnan(_distance("shipr", 60.0, 0.0))
    assert _distance("verp", 100.0, 100.0 - 1e-9) == math.inf


def test_it_measures_error_axes_lower_better_with_zero_errors_infinitely_good() -> None:
    assert _distance("eerrp", 1.0, 4.0) == 2.0
    assert _distance("abortp", 0.0, 4.0) == math.inf
    assert _distance("abortp", 4.0, 4.0) == 0.0
    assert math.isnan(_distance("abortp", 1.0, 0.0))


def test_it_places_the_pool_at_half_and_saturates_at_four_times() -> None:
    assert positions(np.array([0.0, 2.0, 5.0, -2.0, -math.inf, math.inf])).tolist() == [0.5, 1, 1, 0, 0, 1]
    assert math.isnan(positions(np.array([NAN]))[0])


def test_it_averages_non_null_positions_per_tier_and_imputes_an_empty_tier_at_fifty() -> None:
    position = np.full(len(AXIS_NAMES), NAN)
    position[A["shipr"]] = 1.0
    position[A["oneshot"]] = 0.5
    position[A["ttss"]] = 0.25
    values, imputed = tiers(position)
    by_name = dict(zip(TIER_NAMES, values.tolist(), strict=True))
    assert by_name["Outcome"] == 75.0
    assert by_name["Cost"] == 25.0
    assert by_name["Latency"] == 50.0
    assert [name for name, flag in zip(TIER_NAMES, imputed.tolist(), strict=True) if flag] == [
        "Precision",
        "Discipline",
        "Efficiency",
        "Latency",
    ]


def test_it_shrinks_toward_the_pool_by_ten_cycles_of_evidence() -> None:
    pool = np.full((1, len(AXIS_NAMES)), 10.0)
    raw = np.full((1, len(AXIS_NAMES)), 30.0)
    evidence = np.full((1, len(AXIS_NAMES)), 10.0)
    assert finish(raw, evidence, pool).adj[0].tolist() == [20.0] * len(AXIS_NAMES)
    assert finish(raw, evidence * 0, pool).adj[0].tolist() == [10.0] * len(AXIS_NAMES)


@pytest.mark.parametrize(
    "days",
    [
        ["2026-03-02", "2026-03-01"],
        [date(2026, 3, 2), date(2026, 3, 1)],
        np.array(["2026-03-02", "2026-03-01"], dtype="datetime64[ns]"),
    ],
)
def test_it_reads_days_given_as_strings_dates_or_datetimes(days: list[str] | list[date] | np.ndarray) -> None:
    frame = cycle_frame([{}, {}])
    frame["day"] = pd.Series(list(days))
    judged = judged_in_scope(frame, since=date(2026, 3, 2))
    assert [str(d) for d in judged.day] == ["2026-03-02"]


def test_it_reads_a_missing_name_as_an_empty_one() -> None:
    frame = cycle_frame([{"planner_model": "gpt-6", "builder_model": "grok-4.6"}, {}])
    frame["planner_model"] = frame["planner_model"].astype(object).where(frame.index == 0, None)
    judged = judged_in_scope(frame)
    assert judged.names["planner_model"].values == ["", "gpt-6"]
    assert judged.names["planner_model"].nonempty().tolist() == [True, False]
