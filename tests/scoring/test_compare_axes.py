"""Compare axis by axis: A's advantage per axis with an interval from the score's own contributor resamples."""

from functools import cache

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

from scoring import score_pool
from scoring.axis_samples import NULL_CODE, decode, encode, log_values, quantise
from scoring.compare_axes import AxisDifference, compare_axes_from_samples, switch_summary
from scoring.document import ScoringConfig, prepare, score_view
from scoring.finishing import log_distance
from scoring.shapes import AXES, AXIS_NAMES, CYCLE_COLUMNS, A, FloatArray
from tests.scoring.brute_force import compare_axes_of_groups
from tests.scoring.simulated_pools import PAIRING_LABELS, Scenario, draw_pool

CONFIG = ScoringConfig()  # B = 200, the published setting
CHEAP, DEAR = "alpha-1 → alpha-1", "beta-1 → beta-1"


def _cheaper_pool(seed: int, contributors: int = 24, cycles: int = 4000) -> pd.DataFrame:
    """Two pairings every contributor uses: the same chance of shipping, the first at 0.4 of the second's cost.
    Contributors differ (SD 1 on the log-odds of shipping, and on cost), as people do."""
    rng = np.random.default_rng(seed)
    ability = rng.normal(0.0, 1.0, contributors)
    spend = rng.normal(0.0, 0.5, contributors)
    who = rng.integers(0, contributors, cycles)
    cheap = rng.random(cycles) < 0.5
    label = np.where(cheap, "alpha-1", "beta-1")
    n = cycles
    edits = 1 + rng.poisson(5, n)
    frame = pd.DataFrame(
        {
            "contributor": who + 1,
            "cycle_key": [f"{i:016x}" for i in range(n)],
            "day": np.datetime64("2026-01-01") + rng.integers(0, 100, n).astype("timedelta64[D]"),
            "model": label,
            "planner_model": label,
            "builder_model": label,
            "human_turns": 1 + rng.poisson(2, n),
            "assistant_steps": 1 + rng.poisson(30, n),
            "edits": edits,
            "edit_paths": np.ones(n, dtype=np.int64),
            "edit_errors": rng.binomial(edits, 0.05),
            "cost_usd": np.round(rng.gamma(2.0, 1.0 * np.exp(spend[who]) * np.where(cheap, 0.4, 1.0)), 4),
            "shipped": (rng.random(n) < expit(0.5 + ability[who])).astype(np.int64),
            "active_hours": np.round(rng.gamma(1.5, 0.4, n), 4),
            "verified": (rng.random(n) < 0.5).astype(np.int64),
            "intervened": (rng.random(n) < 0.08).astype(np.int64),
            "step_seconds_median": np.round(rng.gamma(4.0, 2.0, n), 2),
            "ship_status": np.zeros(n, dtype=np.int64),
            "effort": "",
            "planner_effort": "",
            "builder_effort": "",
        }
    )
    return frame[list(CYCLE_COLUMNS)]


def _by_axis(differences: tuple[AxisDifference, ...]) -> dict[str, AxisDifference]:
    return {d.axis: d for d in differences}


def test_it_finds_the_cheaper_pairing_and_no_difference_in_shipping() -> None:
    found = _by_axis(compare_axes_of_groups(_cheaper_pool(1), CONFIG, view="modelCombo", label_a=CHEAP, label_b=DEAR))
    cost, ships = found["dpss"], found["shipr"]
    assert cost.better == "A" and cost.clear
    assert cost.factor_interval is not None
    low, high = cost.factor_interval
    assert low < 2.5 < high, cost  # 1 / 0.4, a little less after shrinkage toward the pool
    assert not ships.clear and ships.ci is not None and ships.ci[0] < 0 < ships.ci[1]
    assert cost.contributors == 24 and cost.resamples == CONFIG.resamples
    summary = switch_summary(tuple(found.values()))
    assert summary.clear[0].axis == "dpss"
    assert "shipr" not in {d.axis for d in summary.clear} and "Outcome" in summary.same_tiers
    assert "Cost" not in summary.same_tiers


def test_it_turns_the_sides_round_with_the_same_interval() -> None:
    frame = _cheaper_pool(2)
    ab = _by_axis(compare_axes_of_groups(frame, CONFIG, view="modelCombo", label_a=CHEAP, label_b=DEAR))
    ba = _by_axis(compare_axes_of_groups(frame, CONFIG, view="modelCombo", label_a=DEAR, label_b=CHEAP))
    for name in AXIS_NAMES:
        assert ab[name].advantage == pytest.approx(-(ba[name].advantage or 0.0)), name
        forward = ab[name].ci
        if forward is not None:
            assert ba[name].ci == pytest.approx((-forward[1], -forward[0]), abs=1e-9), name
    assert ba["dpss"].better == "B" and ba["dpss"].factor_interval == pytest.approx(ab["dpss"].factor_interval)


def test_the_interval_counts_contributors_not_cycles() -> None:
    """Four times the cycles from the same contributors must not narrow the interval by half, as a cycle
    bootstrap would; it is the contributors that carry the cost difference's uncertainty."""

    def width(cycles: int) -> float:
        widths = []
        for seed in range(3):
            found = compare_axes_of_groups(
                _cheaper_pool(seed, contributors=12, cycles=cycles),
                CONFIG,
                view="modelCombo",
                label_a=CHEAP,
                label_b=DEAR,
            )
            ci = _by_axis(found)["dpss"].ci
            assert ci is not None
            widths.append(ci[1] - ci[0])
        return float(np.mean(widths))

    assert width(12_000) > 0.7 * width(3_000)


@cache
def _true_advantages(first: str, second: str) -> FloatArray:
    """A's advantage per axis in a large pool of simulated_pools' process: the point values, no resampling."""
    scenario = Scenario(1.0, 40, 3000)
    frame = draw_pool(scenario, np.random.default_rng(99), contributors=4000, cycles=300_000)
    prepared = prepare(frame, ScoringConfig(resamples=0), None, None)
    card = score_view(prepared, "modelCombo", ScoringConfig(resamples=0)).scorecard
    labels = [card.grouping.labels[g] for g in np.flatnonzero(card.ranked)]
    adj = card.finished.adj
    return log_distance(adj[labels.index(first)][None, :], adj[labels.index(second)][None, :])[0]


def test_the_intervals_hold_a_known_difference_in_most_simulated_pools() -> None:
    """50 pools of 40 contributors (SD 1 between them, four pairings each): the 95% intervals of the ship odds
    and of the cost per shipped cycle must hold the population's advantage in at least 42 of them, and be no
    wider than the pools' own spread calls for (half-width against 1.96 sd of the estimates across pools), so a
    uselessly wide interval fails too."""
    first, second = PAIRING_LABELS[0], PAIRING_LABELS[5]  # planted: ship odds e^0.8 better, cost e^0.9 dearer
    truth = _true_advantages(first, second)
    rng = np.random.default_rng(7)
    held = {"shipr": 0, "dpss": 0}
    half_widths: dict[str, list[float]] = {"shipr": [], "dpss": []}
    estimates: dict[str, list[float]] = {"shipr": [], "dpss": []}
    pools = 50
    for _ in range(pools):
        frame = draw_pool(Scenario(1.0, 40, 3000), rng, contributors=40, cycles=3000)
        found = _by_axis(compare_axes_of_groups(frame, CONFIG, view="modelCombo", label_a=first, label_b=second))
        for name in held:
            ci = found[name].ci
            assert ci is not None, name
            held[name] += ci[0] <= truth[A[name]] <= ci[1]
            half_widths[name].append((ci[1] - ci[0]) / 2)
            estimates[name].append(found[name].advantage or 0.0)
    assert truth[A["shipr"]] > 0.5 and truth[A["dpss"]] < -0.5  # A ships more and costs more
    assert all(count >= 42 for count in held.values()), held
    calibration = {name: np.mean(half_widths[name]) / (1.96 * np.std(estimates[name], ddof=1)) for name in held}
    assert all(0.8 < ratio < 1.5 for ratio in calibration.values()), calibration


def test_it_keeps_the_document_and_score_samples_unchanged_when_keeping_axes() -> None:
    frame = _cheaper_pool(3)
    config = ScoringConfig(resamples=30, seed=4)
    plain = score_pool(frame, config, generated="2026-09-01T00:00:00Z")
    kept = score_pool(frame, config, generated="2026-09-01T00:00:00Z", keep_axes=True)
    assert kept.document == plain.document and kept.samples == plain.samples
    assert plain.axis_samples == {}
    for view, body in kept.document["views"].items():
        assert set(kept.axis_samples[view]) == {g["label"] for g in body["groups"]}, view


def test_stored_axis_samples_give_the_fresh_comparison() -> None:
    frame = _cheaper_pool(4)
    config = ScoringConfig(resamples=40, seed=9)
    scored = score_pool(frame, config, keep_axes=True)
    groups = {g["label"]: g for g in scored.document["views"]["modelCombo"]["groups"]}
    a, b = groups[CHEAP], groups[DEAR]
    stored = compare_axes_from_samples(
        adj_a=[a["adj"][name] for name in AXIS_NAMES],
        adj_b=[b["adj"][name] for name in AXIS_NAMES],
        logs_a=decode(scored.axis_samples["modelCombo"][CHEAP]),
        logs_b=decode(scored.axis_samples["modelCombo"][DEAR]),
        contributors_a=a["contributors"],
        contributors_b=b["contributors"],
    )
    fresh = compare_axes_of_groups(frame, config, view="modelCombo", label_a=CHEAP, label_b=DEAR)
    for s, f in zip(stored, fresh, strict=True):
        assert s.axis == f.axis and s.advantage == pytest.approx(f.advantage)
        assert (s.ci is None) == (f.ci is None)
        if s.ci is not None and f.ci is not None:
            assert s.ci == pytest.approx(f.ci)


def test_without_axis_samples_every_axis_has_a_direction_and_no_interval() -> None:
    adj_a = [60.0, 40.0, 2.0, 1.0, 3.0, 5.0, 8.0, 50.0, 4.0, 6.0]
    adj_b = [50.0, 40.0, 3.0, 1.0, 1.5, 5.0, 4.0, 50.0, 4.0, 6.0]
    found = compare_axes_from_samples(
        adj_a=adj_a, adj_b=adj_b, logs_a=None, logs_b=None, contributors_a=5, contributors_b=9
    )
    assert all(d.ci is None and not d.clear for d in found)
    by = _by_axis(found)
    assert by["shipr"].better == "A" and by["shipr"].factor == pytest.approx(1.5)  # odds 1.5 against 1
    assert by["ttss"].better == "A" and by["dpss"].better == "B" and by["abortp"].better == "B"
    assert by["hps"].better == "even"
    summary = switch_summary(found)
    assert summary.clear == () and summary.same_tiers == () and summary.with_interval == 0


def test_a_resample_without_the_axis_leaves_it_without_an_interval() -> None:
    logs = np.zeros((20, len(AXES)))
    logs[:, A["shipr"]] = np.linspace(-0.1, 0.1, 20)
    other = logs.copy()
    other[3, A["dpss"]] = np.nan
    found = _by_axis(
        compare_axes_from_samples(
            adj_a=[50.0] * len(AXES),
            adj_b=[40.0] * len(AXES),
            logs_a=logs,
            logs_b=other,
            contributors_a=4,
            contributors_b=4,
        )
    )
    assert found["dpss"].ci is None and found["dpss"].advantage is not None
    assert found["shipr"].ci is not None


def test_one_contributor_on_a_side_gives_no_interval() -> None:
    logs = np.random.default_rng(1).normal(size=(30, len(AXES)))
    found = compare_axes_from_samples(
        adj_a=[50.0] * len(AXES),
        adj_b=[40.0] * len(AXES),
        logs_a=logs,
        logs_b=logs * 0,
        contributors_a=1,
        contributors_b=8,
    )
    assert all(d.ci is None for d in found)


def test_the_store_round_trips_to_its_resolution() -> None:
    rng = np.random.default_rng(3)
    adj = rng.uniform(0.5, 99.5, (200, len(AXES)))
    adj[5, 2] = np.nan
    logs = log_values(adj)
    back = decode(encode(quantise(logs)))
    assert back is not None and back.shape == (200, len(AXES))
    assert np.isnan(back[5, 2]) and np.isnan(back).sum() == 1
    finite = ~np.isnan(logs)
    assert np.abs(back[finite] - logs[finite]).max() <= 0.5 / 1024 + 1e-12
    assert quantise(np.array([np.nan]))[0] == NULL_CODE
    assert decode(None) is None and decode("not base64!") is None and decode(encode(quantise(logs))[:-4]) is None
