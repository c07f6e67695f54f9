"""The document of points alone, which the recompute publishes before the resampling ends: every number it shows
is the whole document's, and what it lacks it says it lacks."""

from typing import Any

from scoring import ScoringConfig
from scoring.cells import cells_of_cycles, prepare_cells, score_cells
from scoring.document import score_points
from scoring.shapes import INTERVALS_KEY, INTERVALS_PENDING
from tests.scoring.test_cells import GENERATED, assert_same, pool

# What only the resampling (and the enrichment after it) gives a group.
FROM_RESAMPLES = {"ci", "rank", "rank_worst", "adjusted", "rank_range"}


def shown(group: dict[str, Any]) -> dict[str, Any]:
    """A group's numbers that do not come from the resampling."""
    return {key: value for key, value in group.items() if key not in FROM_RESAMPLES}


def points_and_whole(config: ScoringConfig) -> tuple[dict[str, Any], dict[str, Any]]:
    prepared = prepare_cells(cells_of_cycles(pool()), config)
    points = score_points(prepared, config, generated=GENERATED)
    # The same prepared rows, as the recompute passes them: the point scorecards are made once.
    whole = score_cells(prepared, config, generated=GENERATED).document
    return dict(points), dict(whole)


def test_the_points_are_the_whole_documents_and_say_their_intervals_are_pending() -> None:
    points, whole = points_and_whole(ScoringConfig(resamples=40))
    assert points["meta"].pop(INTERVALS_KEY) == INTERVALS_PENDING
    assert INTERVALS_KEY not in whole["meta"]
    assert_same(points["meta"], whole["meta"])
    for view, body in points["views"].items():
        theirs = whole["views"][view]
        assert [g["label"] for g in body["groups"]] == [g["label"] for g in theirs["groups"]], view
        for ours, full in zip(body["groups"], theirs["groups"], strict=True):
            assert_same(shown(ours), shown(full), f"{view}.{ours['label']}")
        assert_same(body["provisional"], theirs["provisional"], view)
        assert_same(body["pool"], theirs["pool"], view)
        assert set(body["meta"]) <= set(theirs["meta"]), view


def test_the_points_claim_no_interval_and_only_the_point_places() -> None:
    points, _ = points_and_whole(ScoringConfig(resamples=40))
    groups = points["views"]["modelCombo"]["groups"]
    assert len(groups) >= 2, "the pool must rank pairings for the places to mean something"
    for view in points["views"].values():
        scores = [g["scoreAdj"] for g in view["groups"]]
        for group in view["groups"]:
            assert group["ci"] is None
            assert "adjusted" not in group and "rank_range" not in group
            if group["contributors"] >= 2:
                assert group["rank"] == 1 + sum(s > group["scoreAdj"] for s in scores)
                assert group["rank_worst"] == len(scores) - sum(s < group["scoreAdj"] for s in scores)
            else:  # one contributor claims no place beyond the whole range (B1), as in the whole document
                assert (group["rank"], group["rank_worst"]) == (1, len(scores))
