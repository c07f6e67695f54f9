"""Reference computations the tests hold the engine's fast paths against."""

from collections.abc import Callable, Iterable, Mapping


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
