"""Field score against lab grade: one scatter per lab source, drawn like the site's other charts.

x is the field's adjusted score (what ships), y the lab's mean grade as a percent of its maximum
(how capable under control), each with its interval as a thin line; dots take their family's
colour from the field (pages.charts' Okabe–Ito palette) and are named where names fit.
"""

import math
from collections.abc import Mapping, Sequence

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from lab.field import SharedModel
from lab.labels import Box, label_text, place_labels
from pages.charts import OTHER_COLOUR

WIDTH, HEIGHT = 400.0, 270.0
LEFT, RIGHT, TOP, BOTTOM = 40.0, 300.0, 12.0, 228.0


def _domain(values: Sequence[float]) -> tuple[float, float]:
    """The values' span widened to whole tens (at least 20 wide), within 0–100."""
    lo = max(0.0, math.floor(min(values) / 10) * 10)
    hi = min(100.0, math.ceil(max(values) / 10) * 10)
    if hi - lo < 20:
        lo, hi = max(0.0, lo - 10), min(100.0, hi + 10)
    return lo, hi


def _percent(value: float | None, top: int | None) -> float | None:
    return None if value is None or not top else 100.0 * value / top


def field_against_lab(
    *, source: str, shared: Sequence[SharedModel], colours: Mapping[str, str], title: str
) -> SafeString:
    """The scatter of one source's shared models (source: its slug, naming the chart's ids); empty when none."""
    points = [(m, m.field.score, m.lab_share) for m in shared]
    known = [(m, fx, ly) for m, fx, ly in points if fx is not None and ly is not None]
    if not known:
        return mark_safe("")
    # The axes hold every interval whole.
    x_values = [v for m, fx, _ in known for v in (fx, m.field.lo, m.field.hi) if v is not None]
    y_values = [
        v
        for m, _, ly in known
        for v in (ly, _percent(m.row.mean_grade.lo, m.row.grade_max), _percent(m.row.mean_grade.hi, m.row.grade_max))
        if v is not None
    ]
    x_lo, x_hi = _domain(x_values)
    y_lo, y_hi = _domain(y_values)

    def x(value: float) -> float:
        return LEFT + (min(max(value, x_lo), x_hi) - x_lo) / (x_hi - x_lo) * (RIGHT - LEFT)

    def y(value: float) -> float:
        return BOTTOM - (min(max(value, y_lo), y_hi) - y_lo) / (y_hi - y_lo) * (BOTTOM - TOP)

    desc = "; ".join(f"{m.row.model}: field score {fx:.1f}, lab grade {ly:.0f}% of the maximum" for m, fx, ly in known)
    parts = [
        f'<svg class="field-lab" viewBox="0 0 {WIDTH:.0f} {HEIGHT:.0f}" role="img" '
        f'aria-labelledby="fl-t-{escape(source)} fl-d-{escape(source)}">'
        f'<title id="fl-t-{escape(source)}">{escape(title)}: field score against lab grade</title>'
        f'<desc id="fl-d-{escape(source)}">{escape(desc)}.</desc>',
    ]
    for tick in range(int(x_lo), int(x_hi) + 1, 10):
        parts.append(
            f'<line x1="{x(tick):.1f}" y1="{TOP}" x2="{x(tick):.1f}" y2="{BOTTOM}" stroke="#eef0f2"/>'
            f'<text x="{x(tick):.1f}" y="{BOTTOM + 14}" font-size="10" text-anchor="middle" '
            f'fill="#5a6570">{tick}</text>'
        )
    for tick in range(int(y_lo), int(y_hi) + 1, 10):
        parts.append(
            f'<line x1="{LEFT}" y1="{y(tick):.1f}" x2="{RIGHT}" y2="{y(tick):.1f}" stroke="#eef0f2"/>'
            f'<text x="{LEFT - 4}" y="{y(tick) + 3:.1f}" font-size="10" text-anchor="end" fill="#5a6570">{tick}</text>'
        )
    parts.append(
        f'<text x="{(LEFT + RIGHT) / 2}" y="{HEIGHT - 6:.0f}" font-size="10" text-anchor="middle" fill="#5a6570">'
        "field score (adjusted, what ships)</text>"
        f'<text x="10" y="{(TOP + BOTTOM) / 2}" font-size="10" text-anchor="middle" fill="#5a6570" '
        f'transform="rotate(-90 10 {(TOP + BOTTOM) / 2})">lab grade, % of maximum</text>'
    )
    for m, _, _ in known:
        colour = colours.get(m.row.model, OTHER_COLOUR)
        cx, cy = x(m.field.score or 0.0), y(m.lab_share or 0.0)
        if m.field.lo is not None and m.field.hi is not None:
            parts.append(
                f'<line x1="{x(m.field.lo):.1f}" y1="{cy:.1f}" x2="{x(m.field.hi):.1f}" y2="{cy:.1f}" '
                f'stroke="{colour}" stroke-opacity="0.4" stroke-width="2"/>'
            )
        lab_lo = _percent(m.row.mean_grade.lo, m.row.grade_max)
        lab_hi = _percent(m.row.mean_grade.hi, m.row.grade_max)
        if lab_lo is not None and lab_hi is not None:
            parts.append(
                f'<line x1="{cx:.1f}" y1="{y(lab_lo):.1f}" x2="{cx:.1f}" y2="{y(lab_hi):.1f}" '
                f'stroke="{colour}" stroke-opacity="0.4" stroke-width="2"/>'
            )
    centres = [(x(fx), y(ly), m.row.model) for m, fx, ly in known]
    names = place_labels(centres, bounds=Box(LEFT + 1, 0.0, WIDTH, BOTTOM - 1), radius=5.0)
    for (m, _, _), (cx, cy, label), name in zip(known, centres, names, strict=True):
        colour = colours.get(m.row.model, OTHER_COLOUR)
        parts.append(
            f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="5" fill="{colour}" stroke="white" stroke-width="1.5">'
            f"<title>{escape(label)}</title></circle>"
        )
        parts.append(label_text(name, label))
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 - every interpolated text is escaped above
