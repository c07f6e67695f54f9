"""The verdict above the table, from known intervals: it claims a leader only where the intervals separate it."""

import numpy as np

from pages.presenters import leaderboard_rows, rank_text
from pages.verdict import verdict
from scoring.caveats import interval_ranks, interval_worst_ranks
from scoring.shapes import View
from tests.pages.shapes import group_row, view_of


def view_doc(groups: list[tuple[str, float, tuple[float, float] | None, int]]) -> View:
    """A view of ranked groups (label, scoreAdj, interval or None, contributors), ranked as the engine ranks them."""
    lo = np.array([np.nan if ci is None else ci[0] for _, _, ci, _ in groups])
    hi = np.array([np.nan if ci is None else ci[1] for _, _, ci, _ in groups])
    best, worst = interval_ranks(lo, hi), interval_worst_ranks(lo, hi)
    return view_of(
        [
            group_row(
                label,
                scoreAdj=score,
                ci=None if ci is None else list(ci),
                contributors=contributors,
                rank=int(best[i]),
                rank_worst=int(worst[i]),
            )
            for i, (label, score, ci, contributors) in enumerate(groups)
        ]
    )


def test_it_names_the_leader_by_score_and_never_the_best_supported_as_best() -> None:
    # The front page: the top row is wide, the one with most contributors sits lower down.
    doc = view_doc(
        [
            ("a → a", 58.0, (33.0, 83.0), 3),
            ("b → b", 57.9, (52.0, 64.0), 9),
            ("c → c", 55.0, (40.0, 70.0), 4),
            ("d → d", 50.0, (45.0, 56.0), 9),
            ("e → e", 41.0, None, 1),
        ]
    )
    found = verdict(leaderboard_rows(doc), view="modelCombo")
    assert found is not None
    assert not found.separated and found.leaders == ()
    assert found.contenders == 5  # every interval reaches the top one's, and one contributor claims every place
    assert found.leader == "a → a"
    assert found.sentence == (
        "Highest score: a → a (score 58.0, interval 33–83, 3 contributors), but the intervals overlap, "
        "so it is not separated from any of the other 4 pairings."
    )
    assert "best" not in found.sentence.lower()


def test_it_names_which_groups_the_leader_is_not_separated_from_in_score_order() -> None:
    doc = view_doc(
        [
            ("a", 80.0, (60.0, 95.0), 6),
            ("b", 75.0, (70.0, 80.0), 30),
            ("c", 60.0, (50.0, 59.0), 8),  # wholly below a's interval: separated
            ("d", 58.0, (40.0, 70.0), 5),
            ("e", 56.0, (45.0, 61.0), 5),
            ("f", 50.0, None, 1),
        ]
    )
    found = verdict(leaderboard_rows(doc), view="model")
    assert found is not None and found.leader == "a"
    assert found.sentence.endswith("so it is not separated from 4 other models: b, d, e and 1 more.")
    assert found.named == ("a", "b", "d", "e")


def test_no_sentence_puts_a_group_first_by_anything_but_its_score() -> None:
    # The most contributors and the narrowest interval sit at the bottom: it comes last in every list.
    doc = view_doc(
        [
            ("a", 70.0, (60.0, 90.0), 2),
            ("b", 65.0, (45.0, 85.0), 3),
            ("c", 62.0, (40.0, 59.0), 4),
            ("z", 60.0, (58.0, 62.0), 40),
        ]
    )
    found = verdict(leaderboard_rows(doc), view="model")
    assert found is not None and found.named[0] == "a"
    assert found.sentence.startswith("Highest score: a (score 70.0")
    assert found.sentence.endswith("not separated from 2 other models: b and z.")
    assert "best" not in found.sentence.lower()


def test_a_group_that_ships_clearly_more_is_named_with_its_axis_not_as_the_leader() -> None:
    doc = view_doc([("a → a", 70.0, (50.0, 90.0), 4), ("b → b", 60.0, (45.0, 75.0), 6), ("c → c", 50.0, (40, 60), 5)])
    doc["meta"]["adjustment"] = "ok"
    doc["groups"][1]["adjusted"] = {"odds_ratio": 2.81, "ci": [2.02, 3.90], "separable": True}
    doc["groups"][2]["adjusted"] = {"odds_ratio": 1.4, "ci": [0.8, 2.4], "separable": True}  # not clearly above
    found = verdict(leaderboard_rows(doc), view="modelCombo")
    assert found is not None and found.leader == "a → a"
    assert found.sentence.startswith("Highest score: a → a") and "b → b" not in found.sentence
    assert found.aside == (
        "On shipping alone, one of the score's parts, b → b (odds ×2.81, 2.02–3.90) ships clearly more often than "
        "the average pairing, for the same contributor."
    )
    assert "c → c" not in found.aside
    assert "b → b" in found.named


def test_it_names_the_one_pairing_whose_interval_lies_above_all_others() -> None:
    doc = view_doc(
        [("a → b", 74.0, (70.0, 80.0), 12), ("c → d", 60.0, (52.0, 66.0), 8), ("e → f", 55.0, (50.0, 61.0), 5)]
    )
    found = verdict(leaderboard_rows(doc), view="modelCombo")
    assert found is not None and found.separated
    assert found.leaders == ("a → b",) and found.contenders == 1
    assert found.sentence == (
        "First by score: a → b (score 74.0, interval 70–80, 12 contributors). Its interval lies above every other "
        "pairing's, so it is surely ahead of them all."
    )


def test_it_names_a_leading_pair_that_the_intervals_do_not_order() -> None:
    doc = view_doc(
        [
            ("a", 74.0, (68.0, 80.0), 12),
            ("b", 72.0, (67.0, 78.0), 10),
            ("c", 55.0, (50.0, 61.0), 5),
            ("d", 50.0, (44.0, 60.0), 5),
        ]
    )
    found = verdict(leaderboard_rows(doc), view="model")
    assert found is not None and found.separated
    assert found.leaders == ("a", "b")
    assert found.sentence.startswith("First by score: a (score 74.0")
    assert "in that order; these 2 are surely ahead of every other model" in found.sentence


def test_a_group_without_an_interval_keeps_any_leader_from_being_sure() -> None:
    # One contributor: no interval, so nobody is surely above it, however far ahead the leader looks.
    doc = view_doc([("a", 80.0, (75.0, 85.0), 20), ("b", 40.0, None, 1), ("c", 30.0, (25.0, 35.0), 6)])
    found = verdict(leaderboard_rows(doc), view="family")
    assert found is not None and not found.separated
    assert found.contenders == 2 and found.leader == "a"
    assert found.sentence.startswith("Highest score: a (score 80.0, interval 75–85, 20 contributors), but the")
    assert found.sentence.endswith("so it is not separated from 1 other family: b.")


def test_it_says_when_only_one_group_is_ranked_and_nothing_when_none_is() -> None:
    found = verdict(leaderboard_rows(view_doc([("a", 60.0, (50.0, 70.0), 4)])), view="model")
    assert found is not None and found.leaders == ("a",)
    assert found.sentence.startswith("Only one model is ranked so far: a (score 60.0")
    assert verdict([], view="model") is None


def test_a_rank_that_spans_the_whole_list_reads_as_its_range_like_every_other() -> None:
    doc = view_doc([("a", 70.0, (60.0, 80.0), 5), ("b", 60.0, None, 1), ("c", 40.0, (30.0, 45.0), 5)])
    groups = doc["groups"]
    assert [(g["rank"], g["rank_worst"]) for g in groups] == [(1, 2), (1, 3), (2, 3)]
    assert [rank_text(g) for g in groups] == ["1–2", "1–3", "2–3"]
    assert [row["rank_text"] for row in leaderboard_rows(doc)] == ["1–2", "1–3", "2–3"]
    assert [row["not_separated"] for row in leaderboard_rows(doc)] == [False, True, False]
