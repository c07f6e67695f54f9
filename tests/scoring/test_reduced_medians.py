import numpy as np
import pytest

from scoring.reduced_medians import Removal, reduced_medians
from scoring.sums import weighted_medians


def _bags(rng: np.random.Generator, bags: int, pairs: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bags of pairs sorted by value inside each, with many equal values (latencies at 0.01 s)."""
    sizes = rng.integers(0, pairs, bags)
    bounds = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    values = np.concatenate([np.sort(rng.integers(0, 40, size) / 100) for size in sizes])
    weights = rng.integers(1, 30, int(bounds[-1])).astype(np.int64)
    return values, weights, bounds


def _brute_force(values: np.ndarray, weights: np.ndarray, bounds: np.ndarray, bag: int, out: np.ndarray) -> float:
    """A3's median of one bag with the pairs in `out` given no weight."""
    span = slice(int(bounds[bag]), int(bounds[bag + 1]))
    kept = np.where(out[span], 0, weights[span])
    return float(weighted_medians(values[span], kept, np.array([0, len(kept)]))[0, 0])


@pytest.mark.parametrize("bags", [1, 4])  # one bag: the pool's
@pytest.mark.parametrize("seed", range(6))
def test_it_leaves_out_each_class_as_recomputing_the_median_without_it(seed: int, bags: int) -> None:
    rng = np.random.default_rng(seed)
    values, weights, bounds = _bags(rng, bags=bags, pairs=300)
    pairs = len(values)
    # Two kinds: a contributor (one holds half the pairs in some seeds, so the window is wide) and a group.
    share = [0.5, 0.1] if seed % 2 else [0.05, 0.05]
    # A class's pairs lie in one bag: codes are numbered bag by bag.
    bag_of_pair = np.repeat(np.arange(bags), np.diff(bounds))
    contributor = bag_of_pair * 9 + rng.choice(8, pairs, p=[*share, *([(1 - sum(share)) / 6] * 6)])
    group = np.where(rng.random(pairs) < 0.2, -1, bag_of_pair * 3 + rng.integers(0, 3, pairs))
    cell = np.where(group >= 0, group * 36 + contributor, -1)
    queries, terms = [], []
    for q in range(60):
        bag = int(rng.integers(0, bags))
        who = bag * 9 + int(rng.integers(0, 9))  # contributor 8 has no pairs
        dropped = bag * 3 + int(rng.integers(0, 3)) if rng.random() < 0.6 else -1
        queries.append((bag, who, dropped))
        terms.append((q, 0, who, 1))
        if dropped >= 0:  # the contributor and a group, their shared pairs once: three terms
            terms += [(q, 1, dropped, 1), (q, 2, dropped * 36 + who, -1)]
    query, kind, code, sign = (np.array(column, dtype=np.int64) for column in zip(*terms, strict=True))

    fast = reduced_medians(
        values,
        weights,
        bounds,
        np.array([bag for bag, _, _ in queries], dtype=np.int64),
        Removal(query=query, kind=kind, code=code, sign=sign),
        (contributor, group, cell),
    )

    for q, (bag, who, dropped) in enumerate(queries):
        out = (contributor == who) | ((group == dropped) & (dropped >= 0))
        np.testing.assert_equal(fast[q], _brute_force(values, weights, bounds, bag, out))


def test_it_gives_nan_where_nothing_is_left_and_the_median_where_nothing_is_left_out() -> None:
    values = np.array([1.0, 2.0, 3.0, 5.0])
    weights = np.array([1, 1, 1, 5], dtype=np.int64)
    bounds = np.array([0, 4], dtype=np.int64)
    everyone = np.zeros(4, dtype=np.int64)
    fast = reduced_medians(
        values,
        weights,
        bounds,
        np.array([0, 0], dtype=np.int64),
        # Query 0 leaves out class 0 (every pair); query 1 leaves out class 1, which has no pairs.
        Removal(query=np.array([0, 1]), kind=np.array([0, 0]), code=np.array([0, 1]), sign=np.array([1, 1])),
        (everyone,),
    )
    assert np.isnan(fast[0])
    assert fast[1] == 5.0  # 8 in all: the running weight reaches 4 at the last pair
