"""The compare page: two groups of one view side by side.

What it reads (the score difference and A's advantage on each axis, each with its interval, from the samples the
recompute stored: per-axis samples beside the score samples, of the same resamples, so the axes' intervals pair as
the score's do; one query reads the four lists), what it prints from them (the sentence on what switching from A
to B would buy, the axis, tier and ship-rate rows, links to the comparisons a reader may want next), and the
picture of A's advantage on every axis.

The sentence says whether the scores are separated (the interval of A - B leaves out zero), names the axes whose
difference is clear (its interval leaves out zero) with the factor and its interval, and the tiers in which
nothing differs clearly. A difference inside its interval is shown as such (greyed); a clear one is marked by how
large it is, so x1.02 does not look like x2.22.

The picture puts each axis on a row of one log scale (÷8 to ×8): its name and numbers on one line, below it the
interval as a bar and the advantage as a dot, right of the middle when A is better. A clear difference is drawn
solid in green, darker the larger it is; one inside its interval is a grey dashed bar. Positions are percentages
of the width and text is in pixels (as in charts.forest_plot), so it spans a phone or a laptop; all text is
escaped here.
"""

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, cast

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from leaderboard.published import (
    Published,
    intervals_pending,
    published_snapshot,
    stored_comparison_samples,
    stored_samples,
)
from leaderboard.selectors import cycles_frame, scoring_config
from leaderboard.windows import Window, window_samples
from pages.contexts import colours_of, page_context
from pages.presenters import distances, planner_and_builder, row_for
from pages.wording import AXES, INTERVAL_PERCENT, RANK_RANGE_WORDS, TIERS
from scoring import Comparison, GroupNotRanked, compare_from_samples, compare_groups
from scoring.axis_samples import decode
from scoring.compare_axes import AxisDifference, compare_axes_from_samples, switch_summary
from scoring.compare_rates import RateTest, ship_rate_test
from scoring.shapes import AXIS_NAMES, PAIRING_VIEWS, SPAN_FACTOR, GroupRow, PoolDocument, View, ViewName

log = logging.getLogger(__name__)

# ---------------------------------------------------------------- what the page reads


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


# ---------------------------------------------------------------- the page's context


def compare_context(snapshot: Published, view_doc: View, *, view: str) -> dict[str, Any]:
    """The compare page of a view: the groups one can choose, before any is chosen."""
    context = page_context(snapshot, view=view)
    context.update({"choices": [g["label"] for g in view_doc["groups"]], "is_pairing_view": view in PAIRING_VIEWS})
    return context


def compared_labels(view_doc: View, label_a: str, label_b: str) -> tuple[str, str]:
    """The two sides to compare; a missing side is the best-ranked group, never the other side's group."""
    groups = view_doc["groups"]
    chosen_a = label_a or next((g["label"] for g in groups if g["label"] != label_b), "")
    chosen_b = label_b or next((g["label"] for g in groups if g["label"] != chosen_a), "")
    return chosen_a, chosen_b


def comparison_context(
    view_doc: View,
    group_a: GroupRow,
    group_b: GroupRow,
    *,
    view: str,
    difference: Comparison | None,
    document: PoolDocument,
) -> dict[str, Any]:
    """Two groups side by side, axis by axis and tier by tier, with the difference of their scores."""
    same = group_a["label"] == group_b["label"]
    colours = colours_of(view_doc, view, document)[0]
    row_a, row_b = row_for(view_doc, group_a["label"], colours), row_for(view_doc, group_b["label"], colours)
    return {
        "a": group_a,
        "b": group_b,
        "same": same,
        "row_a": row_a,
        "row_b": row_b,
        "axes": compare_axes(group_a, group_b),
        "tier_rows": compare_tiers(group_a, group_b),
        "links": quick_links(view_doc, group_a),
        "difference": difference,
        "rates": None if same else rate_test(group_a, group_b),
        "side_rows": [("A", row_a), ("B", row_b)],
        "rank_range_words": RANK_RANGE_WORDS,
    }


# ---------------------------------------------------------------- what switching would buy


# Size bands of a clear difference, by the factor in favour of the better side. The largest starts where a
# position on the scorecard saturates halfway (x2), the smallest covers what a reader would call marginal.
SLIGHT_BELOW: Final = 1.25
MODERATE_BELOW: Final = 2.0
# How many clear axes the sentence names; the table shows them all.
NAMED_IN_SENTENCE: Final = 3

# axis key -> what the better side does, in a sentence
_CLAIMS: Final[dict[str, str]] = {
    "shipr": "ships more often",
    "oneshot": "ships on one prompt more often",
    "ttss": "needs fewer prompts per ship",
    "hps": "needs fewer hours per ship",
    "dpss": "costs less per ship",
    "eerrp": "makes fewer edit errors",
    "abortp": "is interrupted less often",
    "verp": "verifies more often",
    "ept": "makes more edits per prompt",
    "lat": "answers faster per step",
}
_SHOWN = {axis.key: axis for axis in AXES}


def size_band(factor: float) -> str:
    """slight, moderate or large: how big a clear difference is."""
    if factor < SLIGHT_BELOW:
        return "slight"
    return "moderate" if factor < MODERATE_BELOW else "large"


def times(factor: float) -> str:
    return "all the way" if math.isinf(factor) else f"×{factor:.2f}" if factor < 10 else f"×{factor:.0f}"


def _signed(value: float) -> str:
    return f"{value:+.1f}".replace("-", "−")


def _factor_words(difference: AxisDifference) -> str:
    factor, interval = difference.factor, difference.factor_interval
    if factor is None or interval is None:
        return ""
    size = times(factor) + (" the odds" if difference.axis in ("shipr", "oneshot", "verp") else "")
    return f"{size} (interval {times(interval[0])}–{times(interval[1])})"


def score_words(comparison: Comparison | None) -> str:
    """The score's half of the sentence: separated or not, with A - B and its interval.

    An interval that holds zero does not show the scores equal, only that the data cannot order them: it says
    "not separated", never "tie".
    """
    if comparison is None:
        return "The score difference cannot be read right now"
    if comparison.ci is None:
        return (
            f"A − B = {_signed(comparison.difference)} on the score, with no interval "
            "(a side has a single contributor), so the score settles nothing"
        )
    lo, hi = comparison.ci
    numbers = f"A − B = {_signed(comparison.difference)}, interval {_signed(lo)} to {_signed(hi)}"
    if lo <= 0 <= hi:
        return f"A and B are not separated on the score ({numbers})"
    return f"{'A' if lo > 0 else 'B'} scores higher ({numbers})"


def _joined(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def switch_sentence(comparison: Comparison | None, differences: tuple[AxisDifference, ...], kept: bool) -> str:
    """One sentence: whether the score separates A and B, the clear axes with their size, and what is the same."""
    parts = [score_words(comparison)]
    if not kept:
        parts.append(
            "this snapshot's stored samples have no per-axis resamples, so no axis difference is claimed "
            "(the next recompute keeps them)"
        )
        return "; ".join(parts) + "."
    summary = switch_summary(differences)
    for difference in summary.clear[:NAMED_IN_SENTENCE]:
        parts.append(f"{difference.better} {_CLAIMS[difference.axis]}: {_factor_words(difference)}")
    if len(summary.clear) > NAMED_IN_SENTENCE:
        more = len(summary.clear) - NAMED_IN_SENTENCE
        parts.append(f"{more} more clear difference{'s' if more > 1 else ''} below")
    if not summary.clear:
        compared = sum(d.advantage is not None for d in differences)
        without = compared - summary.with_interval
        if not summary.with_interval:
            parts.append("no axis has an interval to tell a difference by")
        elif without:
            parts.append(
                f"no axis differs clearly: each of the {summary.with_interval} with an interval holds no difference "
                f"in it, and {without} {'has' if without == 1 else 'have'} none"
            )
        else:
            parts.append("no axis differs clearly: every difference lies within its interval")
    elif summary.same_tiers:
        tiers = [tier.lower() for tier in summary.same_tiers]
        parts.append(f"{_joined(tiers)} {'is' if len(tiers) == 1 else 'are'} the same within the intervals")
    return "; ".join(parts) + "."


@dataclass(frozen=True)
class AxisRow:
    """One row of the axis table: the values, which side is better, by what factor and how sure."""

    axis: Any  # words.ShownAxis
    a: float | None
    b: float | None
    better: str  # "A", "B", "even" or "no comparison"
    by: str
    interval: str  # the factor's interval in favour of the better side, "" without one
    clear: bool
    band: str  # "slight", "moderate" or "large" for a clear difference, else ""
    share_a_better: float | None
    no_interval: str  # why there is no interval, "" when there is one


def _why_no_interval(difference: AxisDifference, kept: bool, contributors: int) -> str:
    if difference.ci is not None:
        return ""
    if difference.advantage is None:
        return "no comparison"
    if not kept:
        return "no per-axis samples"
    if contributors < 2:
        return "one contributor"
    if math.isinf(difference.advantage):
        return "one side is at the limit"
    return "missing in some resamples"


def axis_rows(
    group_a: GroupRow, group_b: GroupRow, differences: tuple[AxisDifference, ...], kept: bool = True
) -> list[AxisRow]:
    rows = []
    contributors = min(group_a["contributors"], group_b["contributors"])
    adj_a, adj_b = group_a["adj"], group_b["adj"]
    for difference in differences:
        factor, interval = difference.factor, difference.factor_interval
        better = difference.better or "no comparison"
        rows.append(
            AxisRow(
                axis=_SHOWN[difference.axis],
                a=adj_a.get(difference.axis),
                b=adj_b.get(difference.axis),
                better=better,
                by=times(factor) if factor is not None and better in ("A", "B") else "",
                interval="" if interval is None else f"{times(interval[0])}–{times(interval[1])}",
                clear=difference.clear,
                band=size_band(factor) if difference.clear and factor is not None else "",
                share_a_better=difference.share_a_better,
                no_interval=_why_no_interval(difference, kept, contributors),
            )
        )
    return rows


BAND_WORDS: Final = (
    f"A difference is clear when its {INTERVAL_PERCENT}% interval (the same contributor resamples as the score's, "
    "counting the smaller side's contributors) leaves out no difference at all; a clear one is shaded by its size: "
    f"slight below ×{SLIGHT_BELOW:g}, moderate below ×{MODERATE_BELOW:g}, large from ×{MODERATE_BELOW:g} "
    f"(×{SPAN_FACTOR:g} is where the scorecard stops counting). Grey: within its interval, not shown to differ."
)


def switch_context(
    comparison: Comparison | None,
    group_a: GroupRow,
    group_b: GroupRow,
    differences: tuple[AxisDifference, ...],
    kept: bool,
) -> dict[str, Any]:
    """What the compare page adds for two different groups: the sentence and the axis rows with intervals."""
    return {
        "switch_sentence": switch_sentence(comparison, differences, kept),
        "axis_rows": axis_rows(group_a, group_b, differences, kept),
        "axes_kept": kept,
        "band_words": BAND_WORDS,
    }


# ---------------------------------------------------------------- side by side: axes, tiers, ship rates, links


def distance_times(distance: float) -> str:
    """A log2 distance as a factor, to two places."""
    if math.isinf(distance):
        return "all the way"
    return f"×{2 ** abs(distance):.2f}"


def compare_axes(a: GroupRow, b: GroupRow) -> list[dict[str, Any]]:
    """Axis by axis on adjusted values: which side is better and by what factor."""
    rows = []
    values_a = [a["adj"].get(axis.key) for axis in AXES]
    values_b = [b["adj"].get(axis.key) for axis in AXES]
    for axis, value_a, value_b, distance in zip(AXES, values_a, values_b, distances(values_a, values_b), strict=True):
        if distance is None:
            verdict, by = "no comparison", ""
        elif distance == 0:
            verdict, by = "even", ""
        else:
            verdict, by = ("A" if distance > 0 else "B"), distance_times(distance)
        rows.append({"axis": axis, "a": value_a, "b": value_b, "better": verdict, "by": by})
    return rows


def compare_tiers(a: GroupRow, b: GroupRow) -> list[dict[str, Any]]:
    rows = []
    for name, weight in TIERS.items():
        value_a = a["tiersAdj"].get(name)
        value_b = b["tiersAdj"].get(name)
        difference = None if value_a is None or value_b is None else value_a - value_b
        if difference is None:
            better = "no comparison"
        elif abs(difference) < 0.05:
            better = "even"
        else:
            better = "A" if difference > 0 else "B"
        rows.append(
            {"tier": name, "weight": weight, "a": value_a, "b": value_b, "difference": difference, "better": better}
        )
    return rows


def quick_links(view_doc: View, a: GroupRow) -> dict[str, list[str]]:
    """Other groups that keep one side of pairing A and change the other, best first."""
    sides = planner_and_builder(a)
    links: dict[str, list[str]] = {"same_builder": [], "same_planner": []}
    if sides is None:
        return links
    planner, builder = sides
    for group in view_doc["groups"]:
        other = planner_and_builder(group)
        if other is None or group["label"] == a["label"]:
            continue
        if other[1] == builder and other[0] != planner:
            links["same_builder"].append(group["label"])
        if other[0] == planner and other[1] != builder:
            links["same_planner"].append(group["label"])
    return links


def rate_test(group_a: GroupRow, group_b: GroupRow) -> RateTest | None:
    """The two-proportion z-test of the raw ship rates (shipped of ship-judged cycles)."""
    shipped_a, judged_a = group_a["hshipped"], group_a["hshipJudged"]
    shipped_b, judged_b = group_b["hshipped"], group_b["hshipJudged"]
    try:
        return ship_rate_test(shipped_a=shipped_a, judged_a=judged_a, shipped_b=shipped_b, judged_b=judged_b)
    except ValueError:  # counts that contradict each other: say nothing rather than fail the page
        return None


# ---------------------------------------------------------------- the picture of A's advantage on each axis


# log2 units either side of "the same": x8, past which a bar is cut and marked as going on.
REACH: Final = 3.0
BAND_STROKES: Final[dict[str, str]] = {"slight": "#7ccfa9", "moderate": "#2a9d6e", "large": "#00664a"}
UNCLEAR_STROKE: Final = "#9aa3ab"
_NAMES = {axis.key: axis.name for axis in AXES}


def _x(log: float) -> str:
    return f"{50 + max(-REACH, min(REACH, log)) / REACH * 47:.2f}%"


def _numbers(difference: AxisDifference) -> str:
    if difference.advantage is None or difference.factor is None:
        return "no comparison"
    if difference.better == "even":
        return "even"
    said = f"{difference.better} {times(difference.factor)}"
    interval = difference.factor_interval
    if interval is None:
        return f"{said}, no interval"
    return f"{said} ({times(interval[0])}–{times(interval[1])})"


def advantage_plot(differences: Sequence[AxisDifference], *, title: str) -> SafeString:
    axis_top, row_height, label_drop, bar_drop = 26.0, 40.0, 14.0, 28.0
    height = axis_top + row_height * len(differences) + 6
    parts = [
        f'<svg class="forest advantages" width="100%" height="{height:.0f}" role="img" '
        'aria-labelledby="advantages-title advantages-desc">',
        f'<title id="advantages-title">{escape(title)}</title>',
    ]
    for log, text in ((-2.0, "B ×4"), (-1.0, "×2"), (0.0, "same"), (1.0, "×2"), (2.0, "A ×4")):
        parts.append(
            f'<line x1="{_x(log)}" y1="{axis_top - 6:.0f}" x2="{_x(log)}" y2="{height - 4:.0f}" '
            f'class="guide{" even" if log == 0 else ""}"/>'
            f'<text x="{_x(log)}" y="{axis_top - 10:.0f}" text-anchor="middle" class="guide-text">{text}</text>'
        )
    descriptions = []
    for index, difference in enumerate(differences):
        top = axis_top + row_height * index
        name, numbers = _NAMES.get(difference.axis, difference.axis), _numbers(difference)
        status = "clear" if difference.clear else "within its interval" if difference.ci else "no interval"
        descriptions.append(f"{name}: {numbers}, {status}")
        parts.append(
            f'<text x="0" y="{top + label_drop:.0f}" class="forest-label">{escape(name)} '
            f'<tspan class="forest-value">{escape(numbers)}</tspan></text>'
        )
        if difference.advantage is None or math.isnan(difference.advantage):
            continue
        y = top + bar_drop
        stroke = BAND_STROKES[size_band(difference.factor or 1.0)] if difference.clear else UNCLEAR_STROKE
        if difference.ci is not None:
            dash = "" if difference.clear else ' stroke-dasharray="4 3"'
            parts.append(
                f'<line x1="{_x(difference.ci[0])}" y1="{y:.0f}" x2="{_x(difference.ci[1])}" y2="{y:.0f}" '
                f'stroke="{stroke}" stroke-width="6"{dash}/>'
            )
        parts.append(
            f'<circle cx="{_x(difference.advantage)}" cy="{y:.0f}" r="5" fill="{stroke}" stroke="white" '
            'stroke-width="1.5"/>'
        )
    summary = (
        f"A's advantage on each axis with its {INTERVAL_PERCENT}% interval, "
        "right of the middle when A is better, on a log scale from B ×8 to A ×8: "
    )
    parts.append(f'<desc id="advantages-desc">{escape(summary + "; ".join(descriptions))}.</desc></svg>')
    return mark_safe("".join(parts))  # noqa: S308 - every interpolated text is escaped above


def advantages_context(differences: Sequence[AxisDifference], kept: bool) -> dict[str, SafeString | None]:
    """The picture for the compare page; none where the snapshot kept no per-axis samples (no intervals)."""
    title = f"A's advantage over B on each axis, with {INTERVAL_PERCENT}% intervals"
    return {"advantages": advantage_plot(differences, title=title) if kept else None}
