"""Comparing two published groups: the difference of their adjusted scores, with its interval."""

import logging
from typing import cast

from leaderboard.published import intervals_pending, published_snapshot, stored_samples
from leaderboard.selectors import cycles_frame, scoring_config
from scoring import Comparison, GroupNotRanked, compare_from_samples, compare_groups
from scoring.shapes import GroupRow, ViewName

log = logging.getLogger(__name__)


def difference_from_samples(
    group_a: GroupRow, group_b: GroupRow, samples_a: object, samples_b: object
) -> Comparison | None:
    """scoreAdj(A) - scoreAdj(B) from the two groups' resamples of one scoring; None without them."""
    if not (isinstance(samples_a, list) and isinstance(samples_b, list) and samples_a):
        return None
    # K of each side: the interval of the difference counts the smaller side's contributors (spec B1).
    return compare_from_samples(
        score_a=group_a["scoreAdj"],
        score_b=group_b["scoreAdj"],
        samples_a=samples_a,
        samples_b=samples_b,
        contributors_a=group_a["contributors"],
        contributors_b=group_b["contributors"],
    )


def score_difference(
    snapshot_id: int, view: str, group_a: GroupRow, group_b: GroupRow, read: tuple[object, ...] = ()
) -> Comparison | None:
    """scoreAdj(A) - scoreAdj(B) with its cluster bootstrap-t interval, from the samples the recompute stored.

    Every group of a view is scored on the same resamples, so these are compare_groups' own numbers. A snapshot
    whose samples a newer one has retired (published between the page's look and this query) falls back to the
    engine, on the cycles of the newest pool. A caller that read the two samples passes them as `read`.
    """
    samples_a, samples_b = read or stored_samples(snapshot_id, view, group_a["label"], group_b["label"])
    stored = difference_from_samples(group_a, group_b, samples_a, samples_b)
    if stored is not None:
        return stored
    published = published_snapshot(snapshot_id)
    if published is not None and intervals_pending(published.document):
        # Points alone: their samples come with the whole snapshot, seconds behind (the page says so), rather
        # than from scoring every cycle in a web process.
        return None
    try:
        return compare_groups(
            cycles_frame(),
            scoring_config(),
            view=cast(ViewName, view),  # a view of the published document
            label_a=group_a["label"],
            label_b=group_b["label"],
        )
    except GroupNotRanked:
        # The stored cycles changed since the snapshot (a retraction): say so rather than fail.
        log.info("compare: %s or %s is no longer ranked in %s", group_a["label"], group_b["label"], view)
        return None
