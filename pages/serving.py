"""How a page is answered: rendered with the words every page uses, for the ?view= asked for, and kept
per published snapshot (core.page_cache, leaderboard.published)."""

from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string

from core.http import param
from core.page_cache import cached_response
from leaderboard.published import Lazy, serving_snapshot
from pages.wording import DEFAULT_VIEW, EVERY_PAGE, VIEW_TITLES


def render_page(template: str, context: dict[str, Any], *, status: int = 200) -> HttpResponse:
    return HttpResponse(render_to_string(template, EVERY_PAGE | context), status=status)


def chosen_view(request: HttpRequest) -> str | None:
    """The ?view= asked for (the method's default when none), or None when there is no such view."""
    view = param(request, "view", DEFAULT_VIEW)
    return view if view in VIEW_TITLES else None


def cached_page(
    request: HttpRequest, page: str, parts: tuple[object, ...], build: Callable[[Lazy], HttpResponse]
) -> HttpResponse:
    """The page of the newest snapshot, from the page cache, built (once per snapshot) from the snapshot only
    if the page asks for it."""
    generation, snapshot_id = serving_snapshot()
    return cached_response(
        request, page, parts, lambda: build(Lazy(snapshot_id)), generation=generation, snapshot_id=snapshot_id
    )
