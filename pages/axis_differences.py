"""The comparison page's numbers: the score difference and A's advantage on each axis, each with its interval,
from the samples the recompute stored (per-axis samples beside the score samples, of the same resamples, so
the axes' intervals pair as the score's do). One query reads the four lists."""

from leaderboard.comparisons import difference_from_samples, score_difference
from leaderboard.selectors import stored_comparison_samples
from leaderboard.windows import Window, window_samples
from scoring import Comparison
from scoring.axis_samples import decode
from scoring.compare_axes import AxisDifference, compare_axes_from_samples
from scoring.shapes import AXIS_NAMES, GroupRow


def _adjusted(group: GroupRow) -> list[float | None]:
    return [group["adj"].get(name) for name in AXIS_NAMES]


def compared(
    snapshot_id: int, view: str, group_a: GroupRow, group_b: GroupRow, lens: Window | None = None
) -> tuple[Comparison | None, tuple[AxisDifference, ...], bool]:
    """The score's comparison, every axis of A against B, and whether the snapshot held per-axis samples.

    A snapshot published before they were kept (or whose samples a newer one has retired) gives the axes'
    directions and factors without intervals, and False, so the page can say why. Under a harness `lens` the
    samples are the lens's own, kept beside it in the cache; once they are gone the score has no interval.
    """
    label_a, label_b = group_a["label"], group_b["label"]
    if lens is None or lens.is_snapshot:
        samples_a, samples_b, text_a, text_b = stored_comparison_samples(snapshot_id, view, label_a, label_b)
        comparison = score_difference(snapshot_id, view, group_a, group_b, read=(samples_a, samples_b))
    else:
        samples_a, samples_b, text_a, text_b = window_samples(snapshot_id, lens, view, label_a, label_b)
        comparison = difference_from_samples(group_a, group_b, samples_a, samples_b)
    logs_a, logs_b = decode(text_a), decode(text_b)
    kept = logs_a is not None and logs_b is not None
    differences = compare_axes_from_samples(
        adj_a=_adjusted(group_a),
        adj_b=_adjusted(group_b),
        logs_a=logs_a if kept else None,
        logs_b=logs_b if kept else None,
        contributors_a=group_a["contributors"],
        contributors_b=group_b["contributors"],
    )
    return comparison, differences, kept
