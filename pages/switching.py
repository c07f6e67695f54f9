"""What switching from A to B would buy, in words and table rows written from the numbers.

The sentence says whether the scores are separated (the interval of A - B leaves out zero), names the axes whose
difference is clear (its interval leaves out zero) with the factor and its interval, and the tiers in which
nothing differs clearly. A difference inside its interval is shown as such (greyed); a clear one is marked by
how large it is, so x1.02 does not look like x2.22.
"""

import math
from dataclasses import dataclass
from typing import Any, Final

from pages.wording import AXES, INTERVAL_PERCENT
from scoring import Comparison
from scoring.compare_axes import AxisDifference, switch_summary
from scoring.shapes import SPAN_FACTOR, GroupRow

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
