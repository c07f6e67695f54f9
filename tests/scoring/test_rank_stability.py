"""The brute-force rank stability the leave-one-out engine (scoring/rank_stability.py) is tested against."""

from tests.scoring.brute_force import rank_stability


def test_it_reports_each_labels_rank_range_over_leaving_each_contributor_out() -> None:
    calls: list[frozenset[int]] = []
    ranks_without = {
        1: {"a": 2, "b": 1, "c": 3},
        2: {"a": 1, "b": 2},  # c is no longer ranked without contributor 2
        3: {"a": 1, "b": 3, "c": 2},
    }

    def rank_without(excluded: frozenset[int]) -> dict[str, int]:
        calls.append(excluded)
        (contributor,) = excluded
        return ranks_without[contributor]

    bounds = rank_stability(rank_without, contributors=[3, 1, 2, 1])

    assert bounds == {"a": (1, 2), "b": (1, 3), "c": (2, 3)}
    assert calls == [frozenset({1}), frozenset({2}), frozenset({3})]


def test_it_finds_a_lead_that_rests_on_one_contributor() -> None:
    # Ship counts per (label, contributor); the callable ranks labels by ship rate without the excluded ones.
    shipped = {("x", 1): (19, 20), ("x", 2): (2, 10), ("y", 1): (6, 10), ("y", 2): (6, 10), ("y", 3): (6, 10)}

    def rank_without(excluded: frozenset[int]) -> dict[str, int]:
        rates: dict[str, list[int]] = {}
        for (label, contributor), (wins, total) in shipped.items():
            if contributor not in excluded:
                rates.setdefault(label, [0, 0])
                rates[label][0] += wins
                rates[label][1] += total
        order = sorted(rates, key=lambda label: -rates[label][0] / rates[label][1])
        return {label: position + 1 for position, label in enumerate(order)}

    assert rank_stability(rank_without, contributors={1, 2, 3}) == {"x": (1, 2), "y": (1, 2)}
    assert rank_stability(rank_without, contributors=[]) == {}
