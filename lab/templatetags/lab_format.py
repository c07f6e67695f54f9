"""Formatting for the lab pages: durations, token counts and grades a reader takes in at a glance."""

from django import template

register = template.Library()


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


@register.filter
def duration(value: object) -> str:
    seconds = _number(value)
    if seconds is None:
        return "–"
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


@register.filter
def tokens(value: object) -> str:
    count = _number(value)
    if count is None:
        return "–"
    for size, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if count >= size:
            return f"{count / size:.1f}{unit}"
    return f"{count:.0f}"


@register.filter
def grade(value: object, grade_max: object = None) -> str:
    """A grade on its own scale: two decimals on a 0–1 scale (a resolve rate), else one."""
    number, top = _number(value), _number(grade_max)
    if number is None:
        return "–"
    return f"{number:.2f}" if top is not None and top <= 1 else f"{number:.1f}"


@register.filter
def dollars(value: object) -> str:
    number = _number(value)
    return "–" if number is None else f"${number:,.2f}"
