"""Small helpers every page view uses (and the lab's): bounded query values, shared lookups, rendered answers."""

from typing import Any, Final

from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string

from pages.wording import DEFAULT_VIEW, EVERY_PAGE, VIEW_TITLES

# Query values are capped before use: a label is at most 300 characters (GroupScore.label).
MAX_PARAM_LENGTH: Final = 300


class NotFound(Exception):
    """A page that answers the site's 404 page with this message (caching.cached_page renders it)."""


def param(request: HttpRequest, name: str, default: str = "") -> str:
    value = request.GET.get(name, default)
    return value[:MAX_PARAM_LENGTH] if isinstance(value, str) else default


def render_page(template: str, context: dict[str, Any], *, status: int = 200) -> HttpResponse:
    return HttpResponse(render_to_string(template, EVERY_PAGE | context), status=status)


def not_found_page(message: str) -> HttpResponse:
    return render_page("404.html", {"message": message}, status=404)


def chosen_view(request: HttpRequest) -> str | None:
    """The ?view= asked for (the method's default when none), or None when there is no such view."""
    view = param(request, "view", DEFAULT_VIEW)
    return view if view in VIEW_TITLES else None
