"""The comparison's picture: A's advantage on every axis, with its interval, on one log scale (÷8 to ×8).

Each axis is a row: its name and numbers on one line, below it the interval as a bar and the advantage as a dot,
right of the middle when A is better. A clear difference is drawn solid in green, darker the larger it is; one
inside its interval is a grey dashed bar. Positions are percentages of the width and text is in pixels (as in
charts.forest_plot), so it spans a phone or a laptop; all text is escaped here.
"""

import math
from collections.abc import Sequence
from typing import Final

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from pages.switching import size_band, times
from pages.wording import AXES, INTERVAL_PERCENT
from scoring.compare_axes import AxisDifference

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
