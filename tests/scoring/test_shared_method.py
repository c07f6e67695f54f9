"""The shared method (pragmatikos_contract.method): published with every view, and equal to the engine's
vectorized form, so a client scoring its own groups on it reads them as the board does."""

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pragmatikos_contract.method import (
    AXES,
    SUMS,
    TIERS,
    Scale,
    cluster_t_half_width,
    finish_group,
    raw_axes,
    t_quantile,
)

from scoring import ScoringConfig, score_pool
from scoring.finishing import finish_adjusted_score
from scoring.shapes import AXIS_NAMES, VIEWS, A
from scoring.sums import raw_axes as engine_raw_axes
from tests.cycles.frames import synthetic_cycles

TOLERANCE = 1e-9
# Values an axis takes, with the edges the spec names: 0, 100 and equal to the pool.
AXIS_VALUE = st.one_of(st.none(), st.sampled_from([0.0, 1.0, 50.0, 99.0, 100.0]), st.floats(0.01, 400.0))


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    cycles = synthetic_cycles(900, seed=3, contributors=4, models=3, efforts=2)
    config = ScoringConfig(resamples=0, min_judged=12, evidence_k=7)
    scored: dict[str, Any] = score_pool(cycles, config, generated="2026-09-09T00:00:00Z").document  # type: ignore[assignment]
    return scored


def test_every_view_publishes_the_scale_it_was_scored_on(document: dict[str, Any]) -> None:
    assert document["meta"]["document_version"] == 2
    assert document["meta"]["familyPattern"] == ScoringConfig().family_pattern
    for view in VIEWS:
        scale = document["views"][view]["scale"]
        assert scale == {
            "axes": [{"name": a.name, "better": a.better, "kind": a.kind, "evidence": a.evidence} for a in AXES],
            "tiers": [{"name": t.name, "weight": t.weight, "axes": list(t.axes)} for t in TIERS],
            "evidenceK": 7,
            "minJudged": 12,
            "span": 2,
            "imputedTier": 50.0,
        }
        assert Scale.from_document(scale) == Scale(evidence_k=7, min_judged=12)


def test_the_published_scale_and_pool_give_back_every_published_group(document: dict[str, Any]) -> None:
    """A client holding only the document finishes each ranked group from its raw values and evidence exactly
    as the board published it."""
    for view in VIEWS:
        body = document["views"][view]
        scale = Scale.from_document(body["scale"])
        for group in body["groups"]:
            ours = finish_group(group["raw"], group["ev"], body["pool"], scale)
            assert ours.score == pytest.approx(group["score"], abs=TOLERANCE)
            assert ours.score_adj == pytest.approx(group["scoreAdj"], abs=TOLERANCE)
            assert ours.imputed == group["imputed"]


def test_a_scale_it_cannot_read_is_refused() -> None:
    scale = Scale().document()
    with pytest.raises(ValueError, match="not a scale"):
        Scale.from_document({**scale, "axes": [{**scale["axes"][0], "kind": "log"}]})
    with pytest.raises(ValueError, match="not a scale"):
        Scale.from_document({key: value for key, value in scale.items() if key != "evidenceK"})
    with pytest.raises(ValueError, match="not a scale"):
        Scale.from_document({**scale, "tiers": [{"name": "Outcome", "weight": 100, "axes": ["speed"]}]})


def _array(values: dict[str, float | None]) -> np.ndarray:
    return np.array([math.nan if values[name] is None else values[name] for name in AXIS_NAMES])


@settings(max_examples=300, deadline=None)
@given(
    raw=st.lists(AXIS_VALUE, min_size=len(AXES), max_size=len(AXES)),
    pool=st.lists(AXIS_VALUE, min_size=len(AXES), max_size=len(AXES)),
    evidence=st.lists(st.integers(0, 500), min_size=len(AXES), max_size=len(AXES)),
    k=st.integers(1, 30),
)
def test_the_bootstraps_vectorized_finish_equals_the_shared_one(
    raw: list[float | None], pool: list[float | None], evidence: list[int], k: int
) -> None:
    named = dict(zip(AXIS_NAMES, raw, strict=True))
    pool_named = dict(zip(AXIS_NAMES, pool, strict=True))
    shared = finish_group(named, dict(zip(AXIS_NAMES, evidence, strict=True)), pool_named, Scale(evidence_k=k))
    vectorized = finish_adjusted_score(
        _array(named)[None, :], np.array(evidence, dtype=np.float64)[None, :], _array(pool_named)[None, :], k
    )[0]
    assert shared.score_adj == pytest.approx(vectorized, abs=TOLERANCE)


@settings(max_examples=200, deadline=None)
@given(
    sums=st.lists(st.sampled_from([0.0, 1.0, 2.0, 3.0, 7.5, 40.0]), min_size=len(SUMS), max_size=len(SUMS)),
    latency=st.one_of(st.none(), st.floats(0.0, 600.0)),
)
def test_the_shared_raw_axes_equal_the_vectorized_ones_exactly(sums: list[float], latency: float | None) -> None:
    shared = raw_axes(dict(zip(SUMS, sums, strict=True)), latency)
    vectorized = engine_raw_axes(np.array(sums)[None, :], np.array([math.nan if latency is None else latency]))[0]
    for name in AXIS_NAMES:
        value = shared[name]
        assert math.isnan(vectorized[A[name]]) if value is None else value == vectorized[A[name]], name


@pytest.mark.parametrize("clusters", [2, 3, 4, 7, 12, 40, 250])
def test_the_shared_t_quantile_is_scipys(clusters: int) -> None:
    from scipy import stats

    from scoring.bootstrap import t_factor

    assert t_quantile(0.975, clusters - 1) == pytest.approx(stats.t.ppf(0.975, clusters - 1), abs=1e-11)
    half = cluster_t_half_width(1.0, clusters)
    assert half == pytest.approx(float(t_factor(np.array([clusters]))[0]), abs=1e-11)
    assert cluster_t_half_width(1.0, 1) is None
