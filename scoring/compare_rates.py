"""The comparison page's test of two ship rates: a two-proportion z-test, beside the bootstrap.

It treats every ship-judged cycle as an independent trial. Cycles of one contributor are not independent
(a strong developer ships more with any pairing), so its p-value is too small where a few contributors give most
cycles: it says whether the raw rates differ more than chance among independent cycles would explain, not whether
one pairing makes people ship more.

Pure: statsmodels (imported where the test runs: it brings scipy.stats, and the pages import this as Django
starts), no Django.
"""

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class RateTest:
    """Ship rate of A and of B (shipped / ship-judged), the pooled z statistic and its two-sided p-value.

    ``z`` and ``p_value`` are None where the test cannot be run: a side without ship-judged cycles, or both sides
    shipping all or none of their cycles (the pooled variance is zero).
    """

    shipped_a: int
    judged_a: int
    shipped_b: int
    judged_b: int
    rate_a: float | None
    rate_b: float | None
    z: float | None
    p_value: float | None


def _rate(shipped: int, judged: int) -> float | None:
    return shipped / judged if judged > 0 else None


def ship_rate_test(*, shipped_a: int, judged_a: int, shipped_b: int, judged_b: int) -> RateTest:
    """statsmodels' proportions_ztest (pooled variance, two-sided) of A's ship rate against B's."""
    for name, shipped, judged in (("a", shipped_a, judged_a), ("b", shipped_b, judged_b)):
        if judged < 0 or not 0 <= shipped <= max(judged, 0):
            raise ValueError(f"side {name}: shipped must lie between 0 and the ship-judged count")
    rate_a, rate_b = _rate(shipped_a, judged_a), _rate(shipped_b, judged_b)
    pooled = (shipped_a + shipped_b) / (judged_a + judged_b) if judged_a and judged_b else None
    if pooled is None or pooled in (0.0, 1.0):
        return RateTest(shipped_a, judged_a, shipped_b, judged_b, rate_a, rate_b, None, None)
    from statsmodels.stats.proportion import proportions_ztest

    z, p_value = proportions_ztest([shipped_a, shipped_b], [judged_a, judged_b], alternative="two-sided")
    z, p_value = float(z), float(p_value)
    if not (math.isfinite(z) and math.isfinite(p_value)):
        return RateTest(shipped_a, judged_a, shipped_b, judged_b, rate_a, rate_b, None, None)
    return RateTest(shipped_a, judged_a, shipped_b, judged_b, rate_a, rate_b, z, p_value)
