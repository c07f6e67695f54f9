"""The lab's SVG charts, drawn the way pages.charts draws: <title> and <desc>, all text escaped."""

import math
from collections.abc import Sequence
from dataclasses import dataclass

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from lab.labels import Box, label_text, place_labels
from lab.summary import Row

INK = "#2f6690"
THIN_INK = "#9aa5b1"


def grade_spread(*, counts: Sequence[int], label: str) -> SafeString:
    """Runs on each whole grade, one bar per grade; a grade no run got leaves a gap on the baseline."""
    if not counts:
        return mark_safe("")
    bins = len(counts)
    bar = 2.0 if bins > 20 else 12.0
    width, height = bar * bins, 24.0
    tallest = max(counts) or 1
    held = [f"{g}: {c}" for g, c in enumerate(counts) if c]
    text = f"{label}: runs per grade, " + (", ".join(held) if held else "no graded runs")
    parts = [
        f'<svg class="lab-spread" viewBox="0 0 {width:.0f} {height + 2:.0f}" width="{min(width, 202):.0f}" '
        f'height="{height + 2:.0f}" preserveAspectRatio="none" role="img" aria-label="{escape(text)}">'
        f"<title>{escape(text)}</title>",
        f'<line x1="0" y1="{height + 1:.0f}" x2="{width:.0f}" y2="{height + 1:.0f}" stroke="#c4cad0"/>',
    ]
    for grade, runs in enumerate(counts):
        if runs:
            tall = max(2.0, runs / tallest * height)
            parts.append(
                f'<rect x="{grade * bar:.1f}" y="{height - tall:.1f}" width="{bar * 0.8:.1f}" height="{tall:.1f}" '
                f'fill="{INK}"/>'
            )
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 - every interpolated text is escaped above


def power_label(power: int) -> str:
    """10**power as a reader writes it: 1, 10, 100, 1k … 100k, 1M … (never 1e5)."""
    value = 10.0**power
    for size, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= size:
            return f"{value / size:g}{unit}"
    return f"{value:g}"


def _decades(low: float, high: float) -> range:
    return range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1)


@dataclass(frozen=True)
class _Point:
    row: Row
    tokens_in: float
    tokens_out: float


def _style_points(rows: Sequence[Row]) -> list[_Point]:
    """The rows with both medians known and above zero (a log scale has no place for zero)."""
    return [
        _Point(row, row.median_tokens_in, row.median_tokens_out)
        for row in rows
        if row.median_tokens_in is not None
        and row.median_tokens_out is not None
        and row.median_tokens_in > 0
        and row.median_tokens_out > 0
    ]


def working_style(*, rows: Sequence[Row], title: str) -> SafeString:
    """Median tokens read (x) against written (y) per model or pairing, both on log scales.

    Dots are named where the name fits without colliding (rows with the most runs first);
    every dot is named in the description and in its own <title>.
    """
    shown = sorted(_style_points(rows), key=lambda p: (-p.row.runs, p.row.label))
    if not shown:
        return mark_safe("")
    width, height = 400.0, 250.0
    left, right, top, bottom = 44.0, 300.0, 10.0, 216.0
    xs = _decades(min(p.tokens_in for p in shown), max(p.tokens_in for p in shown))
    ys = _decades(min(p.tokens_out for p in shown), max(p.tokens_out for p in shown))
    x_lo, x_hi = xs.start, max(xs.stop - 1, xs.start + 1)
    y_lo, y_hi = ys.start, max(ys.stop - 1, ys.start + 1)

    def x(value: float) -> float:
        return left + (math.log10(value) - x_lo) / (x_hi - x_lo) * (right - left)

    def y(value: float) -> float:
        return bottom - (math.log10(value) - y_lo) / (y_hi - y_lo) * (bottom - top)

    desc = "; ".join(f"{p.row.label}: {p.tokens_in:,.0f} read, {p.tokens_out:,.0f} written" for p in shown)
    parts = [
        f'<svg class="lab-style" viewBox="0 0 {width:.0f} {height:.0f}" role="img" aria-labelledby="style-t">'
        f'<title id="style-t">{escape(title)}</title><desc>{escape(desc)}</desc>',
        f'<line x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="#c4cad0"/>',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{bottom}" stroke="#c4cad0"/>',
    ]
    for power in range(x_lo, x_hi + 1):
        parts.append(
            f'<text x="{x(10.0**power):.1f}" y="{bottom + 14}" font-size="10" text-anchor="middle" '
            f'fill="#5a6570">{power_label(power)}</text>'
        )
    for power in range(y_lo, y_hi + 1):
        parts.append(
            f'<text x="{left - 4}" y="{y(10.0**power) + 3:.1f}" font-size="10" text-anchor="end" '
            f'fill="#5a6570">{power_label(power)}</text>'
        )
    parts.append(
        f'<text x="{(left + right) / 2}" y="{height - 4:.0f}" font-size="10" text-anchor="middle" fill="#5a6570">'
        "tokens read per run (median)</text>"
    )
    parts.append(
        f'<text x="10" y="{(top + bottom) / 2}" font-size="10" text-anchor="middle" fill="#5a6570" '
        f'transform="rotate(-90 10 {(top + bottom) / 2})">written</text>'
    )
    centres = [(x(p.tokens_in), y(p.tokens_out), p.row.label) for p in shown]
    names = place_labels(centres, bounds=Box(left + 1, 0.0, width, bottom - 1))
    for p, (cx, cy, _), name in zip(shown, centres, names, strict=True):
        colour = THIN_INK if p.row.directional else INK
        parts.append(
            f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="4" fill="{colour}" '
            f'fill-opacity="0.75"><title>{escape(p.row.label)}: {p.tokens_in:,.0f} read, {p.tokens_out:,.0f} written'
            f"{' (directional)' if p.row.directional else ''}</title></circle>"
        )
        parts.append(label_text(name, p.row.label))
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 - every interpolated text is escaped above
