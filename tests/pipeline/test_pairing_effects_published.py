"""A recompute publishes B3's adjusted pairing effects and the rank ranges, read back from the API."""

import math

import pytest
from django.test import Client

from leaderboard import recompute
from tests.cycles.stored import make_contributor, make_cycles

LONELY = ("minimax-m3", "minimax-m3")


@pytest.fixture
def published(db: None) -> None:
    # Strong contributors on the first two pairings, weaker ones on the last two; one contributor alone on LONELY.
    for seed, (ship_rate, pairings) in enumerate(
        [
            (0.9, [("claude-opus-4.8", "claude-opus-4.8"), ("claude-fable-5", "grok-4.6")]),
            (0.85, [("claude-opus-4.8", "claude-opus-4.8"), ("gpt-6", "muse-spark-1.3")]),
            (0.5, [("gpt-6", "muse-spark-1.3"), ("grok-4.6", "grok-4.6")]),
            (0.45, [("claude-fable-5", "grok-4.6"), ("grok-4.6", "grok-4.6")]),
            (0.6, [("claude-opus-4.8", "claude-opus-4.8"), ("grok-4.6", "grok-4.6"), ("gpt-6", "muse-spark-1.3")]),
        ]
    ):
        make_cycles(make_contributor(), count=90, pairings=pairings, ship_rate=ship_rate, seed=seed)
    make_cycles(make_contributor(), count=30, pairings=[LONELY], ship_rate=0.7, seed=9, key_offset=1000)
    recompute.publish()


def _is_number(value: object) -> bool:
    return isinstance(value, float) and math.isfinite(value)


def test_it_publishes_adjusted_effects_and_the_contributor_share_in_pool_json(published: None, client: Client) -> None:
    document = client.get("/api/v1/pool.json").json()

    for view in ("modelCombo", "famCombo"):
        body = document["views"][view]
        assert body["meta"]["adjustment"] == "ok"
        share = body["meta"]["contributor_variance_share"]
        assert _is_number(share) and 0 <= share <= 1
        assert len(body["groups"]) >= 4
        for group in body["groups"]:
            adjusted = group["adjusted"]
            assert set(adjusted) == {"odds_ratio", "ci", "separable"}
            if "one-contributor" in group["flags"]:
                assert adjusted == {"odds_ratio": None, "ci": [None, None], "separable": False}
            else:
                lo, hi = adjusted["ci"]
                assert adjusted["separable"] is True
                assert _is_number(lo) and _is_number(hi) and 0 < lo < adjusted["odds_ratio"] < hi
    lonely = next(g for g in document["views"]["modelCombo"]["groups"] if g["label"] == " → ".join(LONELY))
    assert lonely["adjusted"]["separable"] is False


def test_it_publishes_a_rank_range_on_every_ranked_group(published: None, client: Client) -> None:
    document = client.get("/api/v1/pool.json").json()

    for body in document["views"].values():
        assert body["meta"]["rank_stability"] == "ok"
        for group in body["groups"]:
            lo, hi = group["rank_range"]
            assert 1 <= lo <= hi <= len(body["groups"])
            assert "unstable-rank" not in group["flags"]  # a note on the pages, not a flag


def test_it_enriches_a_day_window_computed_on_demand(published: None, client: Client) -> None:
    response = client.get("/api/v1/pool.json", {"since": "2026-06-01", "until": "2026-07-15"})

    assert response.status_code == 200
    body = response.json()["views"]["modelCombo"]
    assert body["meta"]["adjustment"] == "ok"
    assert _is_number(body["meta"]["contributor_variance_share"])
    assert all("adjusted" in group and group["rank_range"] is not None for group in body["groups"])
