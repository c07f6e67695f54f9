"""Reference computations the tests hold the engine's fast paths against."""

from collections.abc import Callable, Iterable, Mapping

import pandas as pd

from scoring import ScoringConfig
from scoring.axis_samples import decode, encode
from scoring.compare import ranked_pair
from scoring.compare_axes import AxisDifference, compare_axes_from_samples
from scoring.shapes import ViewName


def rank_stability(
    rank_without: Callable[[frozenset[int]], Mapping[str, int]], *, contributors: Iterable[int]
) -> dict[str, tuple[int, int]]:
    """Per label, the (best, worst) rank over leaving each contributor out in turn.

    ``rank_without`` maps a set of excluded contributor ids to {label: rank}; a label absent from a run (e.g. no
    longer ranked without that contributor) just does not count for that run.
    """
    bounds: dict[str, tuple[int, int]] = {}
    for contributor in sorted(set(contributors)):
        for label, rank in rank_without(frozenset({contributor})).items():
            low, high = bounds.get(label, (rank, rank))
            bounds[label] = (min(low, rank), max(high, rank))
    return bounds


def compare_axes_of_groups(
    cycles: pd.DataFrame, config: ScoringConfig, *, view: ViewName, label_a: str, label_b: str
) -> tuple[AxisDifference, ...]:
    """The same comparison bootstrapping the cycles afresh (all time): what the stored samples must reproduce."""
    pair = ranked_pair(cycles, config, view=view, label_a=label_a, label_b=label_b, keep_axes=True)
    adj, codes = pair.result.scorecard.finished.adj, pair.result.axis_codes
    return compare_axes_from_samples(
        adj_a=[float(v) for v in adj[pair.a]],
        adj_b=[float(v) for v in adj[pair.b]],
        logs_a=None if codes is None else decode(encode(codes[:, pair.a, :])),
        logs_b=None if codes is None else decode(encode(codes[:, pair.b, :])),
        contributors_a=pair.contributors_a,
        contributors_b=pair.contributors_b,
    )
