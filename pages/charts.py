"""Server-drawn SVG charts. Every chart carries a <title> and <desc> so it reads without sight.

Colours come from the group's family (family_colours: the Okabe–Ito palette, which stays apart
for colour-blind readers); all text is escaped here, so the result is safe to print as is.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from pages.wording import INTERVAL_PERCENT

# Okabe & Ito's eight colours, in the order families get them: the ones that read best as thin marks on white
# first, yellow last. Families past the eighth share OTHER_COLOUR and the legend says so.
OKABE_ITO: Final[tuple[str, ...]] = (
    "#0072B2",  # blue
    "#E69F00",  # orange
    "#009E73",  # bluish green
    "#D55E00",  # vermillion
    "#CC79A7",  # reddish purple
    "#56B4E9",  # sky blue
    "#000000",  # black
    "#F0E442",  # yellow
)
OTHER_COLOUR: Final = "#8C8C8C"


def family_colours(families: Iterable[str]) -> dict[str, str]:
    """One palette colour per family, in name order (so a family keeps its colour while scores move)."""
    ordered = sorted(set(families))
    return {name: OKABE_ITO[i] if i < len(OKABE_ITO) else OTHER_COLOUR for i, name in enumerate(ordered)}


def fmt(value: float | None, digits: int = 1) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def score_domain(rows: Sequence[dict[str, Any]]) -> tuple[float, float]:
    """One scale for every bar in a table, padded, within 0..100."""
    values = [v for row in rows for v in (row.get("lo"), row.get("hi"), row.get("score_adj")) if v is not None]
    if not values:
        return 0.0, 100.0
    low = max(0.0, min(values) - 3)
    high = min(100.0, max(values) + 3)
    if high - low < 10:
        middle = (high + low) / 2
        low, high = max(0.0, middle - 5), min(100.0, middle + 5)
    return low, high


def interval_bar(
    *, score: float | None, lo: float | None, hi: float | None, colour: str, label: str, domain: tuple[float, float]
) -> SafeString:
    width, height = 160.0, 20.0
    low, high = domain
    extent = (high - low) or 1.0

    def x(value: float) -> float:
        return max(0.0, min(width, (value - low) / extent * width))

    if score is None:
        text = f"{label}: no score"
        return mark_safe(  # noqa: S308 - every interpolated text is escaped above
            f'<svg class="bar" viewBox="0 0 {width:.0f} {height:.0f}" role="img" aria-label="{escape(text)}">'
            f"<title>{escape(text)}</title></svg>"
        )
    if lo is not None and hi is not None:
        text = f"{label}: adjusted score {fmt(score)}, {INTERVAL_PERCENT}% interval {fmt(lo)} to {fmt(hi)}"
    else:
        text = f"{label}: adjusted score {fmt(score)}, no interval"
    parts = [
        f'<svg class="bar" viewBox="0 0 {width:.0f} {height:.0f}" preserveAspectRatio="none" role="img" '
        f'aria-label="{escape(text)}"><title>{escape(text)}</title>',
        f'<line x1="0" y1="10" x2="{width:.0f}" y2="10" class="bar-track"/>',
    ]
    if lo is not None and hi is not None:
        parts.append(
            f'<rect x="{x(lo):.1f}" y="5" width="{max(1.5, x(hi) - x(lo)):.1f}" height="10" rx="3" '
            f'fill="{colour}" fill-opacity="0.35"/>'
        )
    parts.append(f'<rect x="{x(score) - 1.5:.1f}" y="2" width="3" height="16" fill="{colour}"/>')
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 - every interpolated text is escaped above


# The strip's guide marks: factors against the pool, at their log2 distances.
GUIDES = ((-2.0, "÷4"), (-1.0, "÷2"), (0.0, "pool"), (1.0, "×2"), (2.0, "×4"))


def axis_strip(*, rows: Sequence[dict[str, Any]], colour: str, label: str, span: float) -> SafeString:
    """The ten axes on the ×4 log scale: pool at the centre, raw hollow, adjusted solid."""
    left, right, row_height, top = 140.0, 440.0, 28.0, 40.0  # room for the axis names at phone size
    width = right + 20
    height = top + row_height * len(rows) + 8
    plot = right - left

    def x(fraction: float) -> float:
        return left + fraction * plot

    descriptions = []
    parts = [
        f'<svg class="strip" viewBox="0 0 {width:.0f} {height:.0f}" role="img" '
        'aria-labelledby="strip-title strip-desc">',
        f'<title id="strip-title">{escape(label)}: the ten axes against the pool on a ×4 log scale</title>',
    ]
    for distance, name in GUIDES:
        gx = x((max(-1.0, min(1.0, distance / span)) + 1) / 2)
        parts.append(
            f'<line x1="{gx:.1f}" y1="{top - 6:.1f}" x2="{gx:.1f}" y2="{height - 6:.1f}" class="guide"/>'
            f'<text x="{gx:.1f}" y="{top - 10:.1f}" text-anchor="middle" class="guide-text">{name}</text>'
        )
    parts.append(
        f'<text x="{left:.0f}" y="12" class="guide-text">← worse</text>'
        f'<text x="{right:.0f}" y="12" text-anchor="end" class="guide-text">better →</text>'
    )
    for index, row in enumerate(rows):
        axis = row["axis"]
        y = top + row_height * index + row_height / 2
        parts.append(
            f'<text x="{left - 10:.0f}" y="{y + 4:.1f}" text-anchor="end" class="axis-text">{escape(axis.name)}</text>'
            f'<line x1="{left:.0f}" y1="{y:.1f}" x2="{right:.0f}" y2="{y:.1f}" class="bar-track"/>'
        )
        raw_position, adj_position = row["raw_position"], row["adj_position"]
        if raw_position is not None and adj_position is not None:
            parts.append(
                f'<line x1="{x(raw_position):.1f}" y1="{y:.1f}" x2="{x(adj_position):.1f}" y2="{y:.1f}" '
                f'stroke="{colour}" stroke-width="2" stroke-opacity="0.5"/>'
            )
        if raw_position is not None:
            parts.append(
                f'<circle cx="{x(raw_position):.1f}" cy="{y:.1f}" r="5" fill="white" '
                f'stroke="{colour}" stroke-width="2"/>'
            )
        if adj_position is not None:
            parts.append(f'<circle cx="{x(adj_position):.1f}" cy="{y:.1f}" r="5" fill="{colour}"/>')
        else:
            parts.append(f'<text x="{x(0.5) + 8:.1f}" y="{y + 4:.1f}" class="guide-text">no value</text>')
        descriptions.append(
            f"{axis.name}: raw {fmt(row['raw'], 2)}, adjusted {fmt(row['adj'], 2)}, pool {fmt(row['pool'], 2)}, "
            f"evidence {row['evidence']}"
        )
    parts.append(f'<desc id="strip-desc">{escape("; ".join(descriptions))}.</desc></svg>')
    return mark_safe("".join(parts))  # noqa: S308 - every interpolated text is escaped above


@dataclass(frozen=True)
class HistoryPoint:
    snapshot_id: int
    created_at: datetime
    score_adj: float
    ci_lo: float | None
    ci_hi: float | None


# The score by day is drawn once this many of its snapshots differ in the score (as printed, one decimal):
# fewer draws a dot or a flat line, which says nothing a sentence cannot.
MIN_HISTORY_SCORES: Final = 3


def history_scores(points: Sequence[HistoryPoint]) -> int:
    """How many different scores, as the pages print them, the history holds."""
    return len({f"{point.score_adj:.1f}" for point in points})


def history_words(points: Sequence[HistoryPoint]) -> str:
    """Why the score by day is not drawn yet, in one sentence; empty once it is."""
    scores = history_scores(points)
    if scores >= MIN_HISTORY_SCORES:
        return ""
    days = f"{len(points)} day{'s' if len(points) != 1 else ''}"
    found = "one score" if scores == 1 else f"{scores} different scores"
    return (
        f"Not drawn yet: {days} of snapshots so far, with {found}; the chart appears once "
        f"{MIN_HISTORY_SCORES} snapshots give this group different scores."
    )


def sparkline(*, points: Sequence[HistoryPoint], colour: str, label: str) -> SafeString:
    """scoreAdj by day (each day's newest snapshot), with its interval as a band."""
    width, height, pad = 320.0, 70.0, 6.0
    if not points:
        text = f"{label}: no score history yet"
        return mark_safe(  # noqa: S308 - every interpolated text is escaped above
            f'<svg class="spark" viewBox="0 0 {width:.0f} {height:.0f}" role="img" aria-label="{escape(text)}">'
            f'<title>{escape(text)}</title><text x="10" y="38" class="guide-text">{escape(text)}</text></svg>'
        )
    values = [p.score_adj for p in points]
    values += [v for p in points for v in (p.ci_lo, p.ci_hi) if v is not None]
    low, high = min(values) - 1, max(values) + 1
    count = len(points)

    def x(index: int) -> float:
        return pad + (index / (count - 1) if count > 1 else 0.5) * (width - 2 * pad)

    def y(value: float) -> float:
        return height - pad - (value - low) / (high - low) * (height - 2 * pad)

    first, last = points[0], points[-1]
    text = (
        f"{label}: adjusted score over {count} day{'s' if count != 1 else ''}, "
        f"from {fmt(first.score_adj)} on {first.created_at:%Y-%m-%d} "
        f"to {fmt(last.score_adj)} on {last.created_at:%Y-%m-%d}"
    )
    parts = [
        f'<svg class="spark" viewBox="0 0 {width:.0f} {height:.0f}" role="img" aria-labelledby="spark-title">'
        f'<title id="spark-title">{escape(text)}</title>'
    ]
    banded = [(i, p) for i, p in enumerate(points) if p.ci_lo is not None and p.ci_hi is not None]
    if len(banded) > 1:
        upper = " ".join(f"{x(i):.1f},{y(p.ci_hi):.1f}" for i, p in banded if p.ci_hi is not None)
        lower = " ".join(f"{x(i):.1f},{y(p.ci_lo):.1f}" for i, p in reversed(banded) if p.ci_lo is not None)
        parts.append(f'<polygon points="{upper} {lower}" fill="{colour}" fill-opacity="0.15"/>')
    line = " ".join(f"{x(i):.1f},{y(p.score_adj):.1f}" for i, p in enumerate(points))
    parts.append(f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-width="2"/>')
    parts.append(f'<circle cx="{x(count - 1):.1f}" cy="{y(last.score_adj):.1f}" r="3.5" fill="{colour}"/>')
    if count == 1:
        parts.append(f'<text x="{x(0) + 8:.1f}" y="14" class="guide-text">one day so far</text>')
    parts.append("</svg>")
    return mark_safe("".join(parts))  # noqa: S308 - every interpolated text is escaped above


# Where a row's numbers go, in points of the 0–100 axis: right of its interval when that ends at or below
# RIGHT_OF, else left of it when it starts at or above LEFT_OF, else at the chart's right edge. The numbers
# take about 85 px, a quarter of a phone's chart, so these leave them room at 390 px.
VALUES_RIGHT_OF: Final = 75.0
VALUES_LEFT_OF: Final = 25.0
VALUES_GAP_PX: Final = 8


def forest_x(value: float) -> str:
    """A value's position on the forest plot's 0–100 axis, as a percentage of the chart's width."""
    return f"{1 + max(0.0, min(100.0, value)) * 0.96:.2f}%"


def forest_value_text(*, score: float, lo: float | None, hi: float | None) -> str:
    """A row's numbers beside its interval: where it ends, where it starts, or at the edge (see VALUES_RIGHT_OF)."""
    start = score if lo is None else lo
    end = score if hi is None else hi
    if end <= VALUES_RIGHT_OF:
        return f'x="{forest_x(end)}" dx="{VALUES_GAP_PX}"'
    if start >= VALUES_LEFT_OF:
        return f'x="{forest_x(start)}" dx="-{VALUES_GAP_PX}" text-anchor="end"'
    return 'x="100%" text-anchor="end"'


def forest_plot(*, rows: Sequence[dict[str, Any]], title: str, name: str = "forest") -> SafeString:
    """Every ranked group of a view on one 0–100 axis, in the table's order: its interval as a bar, its score as a dot.

    Positions are percentages of the chart's width and text is in pixels, so the chart spans any screen and its
    labels stay readable on a phone (each label sits on its own line above its interval, its numbers beside the
    interval). A row with an "href" is a link to that group's page, the whole row its target. A row marked
    "current" is the page's own group, drawn on a band; `name` keeps the ids apart when a page has two plots.
    """
    axis_top, row_height, label_drop, bar_drop = 26.0, 44.0, 15.0, 31.0
    height = axis_top + row_height * len(rows) + 6
    x = forest_x
    linked = any(row.get("href") for row in rows)

    descriptions = []
    parts = [
        f'<svg class="forest" width="100%" height="{height:.0f}" role="{"group" if linked else "img"}" '
        f'aria-labelledby="{name}-title {name}-desc">',
        f'<title id="{name}-title">{escape(title)}</title>',
    ]
    for tick in (0, 25, 50, 75, 100):
        anchor = {0: "start", 100: "end"}.get(tick, "middle")
        parts.append(
            f'<line x1="{x(tick)}" y1="{axis_top - 6:.0f}" x2="{x(tick)}" y2="{height - 4:.0f}" class="guide"/>'
            f'<text x="{x(tick)}" y="{axis_top - 10:.0f}" text-anchor="{anchor}" class="guide-text">{tick}</text>'
        )
    for index, row in enumerate(rows):
        top = axis_top + row_height * index
        label, score, lo, hi = str(row["label"]), row.get("score_adj"), row.get("lo"), row.get("hi")
        colour = str(row.get("colour") or OTHER_COLOUR)
        if score is None:
            value_text, said = "no score", f"{label}: no score"
        elif lo is None or hi is None:
            value_text, said = f"{fmt(score)} · none", f"{label}: score {fmt(score)}, no interval"
        else:
            value_text = f"{fmt(score)} · {lo:.0f}–{hi:.0f}"
            said = f"{label}: score {fmt(score)}, {INTERVAL_PERCENT}% interval {fmt(lo)} to {fmt(hi)}"
        label_class = "forest-label"
        if row.get("current"):
            said += " (this pairing)"
            label_class += " current"
        descriptions.append(said)
        href = row.get("href")
        if href:
            parts.append(f'<a href="{escape(href)}" class="forest-row" aria-label="{escape(said)}">')
        if row.get("current"):
            parts.append(
                f'<rect x="0" y="{top:.0f}" width="100%" height="{row_height - 2:.0f}" rx="4" class="forest-current"/>'
            )
        elif href:  # the whole row is the link's target, not just its glyphs
            parts.append(
                f'<rect x="0" y="{top:.0f}" width="100%" height="{row_height - 2:.0f}" rx="4" class="forest-hit"/>'
            )
        parts.append(f'<text x="0" y="{top + label_drop:.0f}" class="{label_class}">{escape(label)}</text>')
        y = top + bar_drop
        place = 'x="100%" text-anchor="end"' if score is None else forest_value_text(score=score, lo=lo, hi=hi)
        parts.append(f'<text {place} y="{y + 4:.0f}" class="forest-value">{escape(value_text)}</text>')
        if lo is not None and hi is not None:
            parts.append(
                f'<line x1="{x(lo)}" y1="{y:.0f}" x2="{x(hi)}" y2="{y:.0f}" stroke="{colour}" '
                'stroke-width="6" stroke-linecap="round" stroke-opacity="0.45"/>'
            )
        if score is not None:
            parts.append(
                f'<circle cx="{x(score)}" cy="{y:.0f}" r="5" fill="{colour}" stroke="white" stroke-width="1.5"/>'
            )
        if href:
            parts.append("</a>")
    parts.append(f'<desc id="{name}-desc">{escape("; ".join(descriptions))}.</desc></svg>')
    return mark_safe("".join(parts))  # noqa: S308 - every interpolated text is escaped above
