"""Formatting for the public pages: numbers with their units, shares, links to one group."""

from datetime import UTC, datetime
from urllib.parse import urlencode

from django import template
from django.conf import settings
from django.urls import reverse
from django.utils.html import format_html

from pages.wording import INTERVALS_PENDING_NOTE, ShownAxis
from scoring.shapes import INTERVALS_KEY, INTERVALS_PENDING, number

register = template.Library()


@register.simple_tag
def source_url() -> str:
    """Where the service's source can be read and cloned (settings.SOURCE_URL); empty when none is set."""
    return str(settings.SOURCE_URL)


@register.simple_tag
def intervals_note(meta: object) -> str:
    """The note of a page whose snapshot holds points alone, its intervals still being computed; "" otherwise."""
    pending = isinstance(meta, dict) and meta.get(INTERVALS_KEY) == INTERVALS_PENDING
    return INTERVALS_PENDING_NOTE if pending else ""


@register.filter
def num(value: object, digits: int = 1) -> str:
    as_number = number(value)
    return "n/a" if as_number is None else f"{as_number:,.{int(digits)}f}"


@register.filter
def signed(value: object, digits: int = 1) -> str:
    as_number = number(value)
    if as_number is None:
        return "n/a"
    text = f"{abs(as_number):.{int(digits)}f}"
    return f"+{text}" if as_number > 0 else (f"−{text}" if as_number < 0 and text.strip("0.") else text)


def _percent(value: object, places: int) -> str:
    as_number = number(value)
    return "n/a" if as_number is None else f"{as_number * 100:.{places}f}%"


@register.filter
def share(value: object) -> str:
    """A 0..1 fraction as a whole percentage."""
    return _percent(value, 0)


@register.filter
def percent_of_one(value: object) -> str:
    """A 0..1 fraction as a percentage with one decimal (measured coverage)."""
    return _percent(value, 1)


@register.filter
def axis_value(value: object, axis: ShownAxis) -> str:
    as_number = number(value)
    if as_number is None:
        return "n/a"
    if axis.unit == "%":
        return f"{as_number:.1f}%"
    if axis.unit == "$":
        return f"${as_number:.2f}"
    if axis.unit:
        return f"{as_number:.2f} {axis.unit}"
    return f"{as_number:.2f}"


@register.filter
def when(value: object) -> str:
    """An ISO time from a document's meta, as a reader writes it: 2026-09-09 08:37 UTC."""
    if not isinstance(value, str):
        return ""
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return value
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return f"{moment:%Y-%m-%d %H:%M} UTC"


@register.filter
def percent_width(value: object) -> str:
    """A 0..100 score as a CSS width, clamped."""
    as_number = number(value)
    return "0%" if as_number is None else f"{max(0.0, min(100.0, as_number)):.1f}%"


@register.simple_tag
def pairing_url(view: str, label: str) -> str:
    return f"{reverse('pairing')}?{urlencode({'view': view, 'label': label})}"


@register.simple_tag
def compare_url(view: str, a: str, b: str) -> str:
    return f"{reverse('compare')}?{urlencode({'view': view, 'a': a, 'b': b})}"


@register.filter
def get_item(mapping: object, key: str) -> object:
    return mapping.get(key) if isinstance(mapping, dict) else None


# Colours and widths as SVG attributes, not style attributes: the Content-Security-Policy
# allows no inline styles, and presentation attributes are not styles.
@register.simple_tag
def swatch(colour: str) -> str:
    return format_html(
        '<svg class="swatch" viewBox="0 0 1 1" aria-hidden="true" focusable="false">'
        '<rect width="1" height="1" fill="{}"/></svg>',
        colour,
    )


@register.simple_tag
def meter(value: object, colour: str) -> str:
    """A 0..100 score as a filled bar, clamped."""
    width = percent_width(value).removesuffix("%")
    return format_html(
        '<svg class="meter" viewBox="0 0 100 1" preserveAspectRatio="none" aria-hidden="true" focusable="false">'
        '<rect width="{}" height="1" fill="{}"/></svg>',
        width,
        colour,
    )
