"""B1's claim in small: the interval widens with contributor variance, not with cycles per contributor.

A few replicates of simulated_pools' process (the full table is bench/coverage.py's job). The cycle bootstrap
this replaced failed both: it ignored the contributors and halved its width with four times the cycles.
"""

import numpy as np

from scoring.document import ScoringConfig
from tests.scoring.simulated_pools import Scenario, draw_pool, scored_view

CONFIG = ScoringConfig(resamples=80, seed=5)
REPLICATES = 3


def _mean_width(scenario: Scenario, seed: int) -> float:
    rng = np.random.default_rng(seed)
    widths = []
    for _ in range(REPLICATES):
        frame = draw_pool(scenario, rng, contributors=scenario.contributors, cycles=scenario.cycles)
        for group in scored_view(frame, CONFIG)["groups"]:
            assert group["ci"] is not None and group["contributors"] >= 2
            widths.append(group["ci"][1] - group["ci"][0])
    return float(np.mean(widths))


def test_it_widens_the_interval_with_contributor_variance() -> None:
    alike = _mean_width(Scenario(0.0, 20, 4000), seed=1)
    differing = _mean_width(Scenario(1.0, 20, 4000), seed=1)
    assert differing > 1.5 * alike, (alike, differing)


def test_it_keeps_the_interval_when_the_same_contributors_add_cycles() -> None:
    few = _mean_width(Scenario(1.0, 20, 4000), seed=2)
    many = _mean_width(Scenario(1.0, 20, 16_000), seed=2)
    # Four times the cycles per contributor: a cycle bootstrap would halve the width; contributors set it here.
    assert many > 0.7 * few, (few, many)


def test_it_narrows_the_interval_as_contributors_join() -> None:
    few = _mean_width(Scenario(1.0, 10, 8000), seed=3)
    many = _mean_width(Scenario(1.0, 40, 8000), seed=3)
    assert many < 0.75 * few, (few, many)
