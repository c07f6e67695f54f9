"""Golden tests of the comparison's statistics, computed by hand."""

import math

import pytest

from scoring import compare_from_samples
from scoring.compare_rates import ship_rate_test


def test_it_matches_a_hand_computed_two_proportion_z() -> None:
    # 45/60 against 30/60: pooled p = 75/120 = 0.625, se = sqrt(0.625 * 0.375 * (1/60 + 1/60)) = sqrt(1/128),
    # z = 0.25 * sqrt(128) = 2 * sqrt(2); two-sided p = erfc(z / sqrt(2)) = erfc(2).
    result = ship_rate_test(shipped_a=45, judged_a=60, shipped_b=30, judged_b=60)
    assert result.rate_a == 0.75 and result.rate_b == 0.5
    assert result.z == pytest.approx(2 * math.sqrt(2), rel=1e-12)
    assert result.p_value == pytest.approx(math.erfc(2), rel=1e-9)
    assert result.p_value == pytest.approx(0.004677734981047, rel=1e-9)


def test_it_gives_the_sign_of_a_minus_b() -> None:
    result = ship_rate_test(shipped_a=30, judged_a=60, shipped_b=45, judged_b=60)
    assert result.z == pytest.approx(-2 * math.sqrt(2), rel=1e-12)


@pytest.mark.parametrize(
    ("counts", "rates"),
    [
        ((10, 10, 20, 20), (1.0, 1.0)),  # both ship everything: no variance to test against
        ((0, 10, 0, 20), (0.0, 0.0)),
        ((0, 0, 5, 10), (None, 0.5)),  # no ship-judged cycles on one side
    ],
)
def test_it_declines_counts_the_test_cannot_use(counts: tuple[int, int, int, int], rates: tuple) -> None:
    shipped_a, judged_a, shipped_b, judged_b = counts
    result = ship_rate_test(shipped_a=shipped_a, judged_a=judged_a, shipped_b=shipped_b, judged_b=judged_b)
    assert (result.rate_a, result.rate_b) == rates
    assert result.z is None and result.p_value is None


def test_it_refuses_more_shipped_than_judged() -> None:
    with pytest.raises(ValueError, match="side a"):
        ship_rate_test(shipped_a=11, judged_a=10, shipped_b=1, judged_b=10)


def test_it_compares_stored_samples_by_hand() -> None:
    # Differences per resample: 1, 2, -2, 4: mean 1.25, sd sqrt(((-0.25)^2 + 0.75^2 + 3.25^2 + 2.75^2) / 3) =
    # sqrt(6.25) = 2.5. K = min(5, 3) = 3: t(0.975, 2) = 4.302653, sqrt(3/2) = 1.224745; half width 13.1740.
    # A is ahead in 3 of 4.
    result = compare_from_samples(
        score_a=60.0,
        score_b=55.5,
        samples_a=[1, 2, 3, 4],
        samples_b=[0, 0, 5, 0],
        contributors_a=5,
        contributors_b=3,
    )
    assert result.difference == 4.5
    half = 4.302652729749464 * 2.5 * (1.5**0.5)
    assert result.ci == pytest.approx((4.5 - half, 4.5 + half), abs=1e-9)
    assert result.share_a_better == 0.75
    assert result.resamples == 4


def test_it_gives_no_interval_without_matching_samples_or_with_one_contributor() -> None:
    for samples_a, samples_b in (([], []), ([1.0, 2.0], [1.0])):
        result = compare_from_samples(
            score_a=1.0, score_b=2.0, samples_a=samples_a, samples_b=samples_b, contributors_a=4, contributors_b=4
        )
        assert result.difference == -1.0
        assert result.ci is None and result.share_a_better is None
    lone = compare_from_samples(
        score_a=1.0, score_b=2.0, samples_a=[1.0, 2.0], samples_b=[0.0, 3.0], contributors_a=1, contributors_b=4
    )
    assert lone.ci is None and lone.share_a_better == 0.5
