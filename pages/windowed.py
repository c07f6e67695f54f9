"""A ranking page's document in its window: the published snapshot's for all time, else scored on demand.

The leaderboard, the matrix, the pairing page, compare and rankings.csv read their window the same way
(pages.query.read_window: days and a harness lens) and answer the same statuses: 400 for a window that cannot be
read or a harness the pool does not show, 429 or 503 with Retry-After when a new window cannot be computed
now (all time is shown instead, with the reason).
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.utils import timezone
from django.utils.cache import patch_cache_control

from core.http import param
from core.throttles import address_digest
from leaderboard import windows
from leaderboard.published import Lazy, Published
from leaderboard.windows import Window, from_snapshot
from pages.query import WINDOW_PARAMETERS, lens_parts, read_window
from pages.serving import cached_page, render_page
from scoring.shapes import PoolDocument


@dataclass(frozen=True)
class Windowed:
    """A ranking page's document in its window: the snapshot's for all time, else scored on demand.

    `refused` says why the window asked for is not shown (then `status` is 400, 429 or 503, with
    `retry_after`, and `document` is the snapshot's own).
    """

    window: Window  # as the page shows it, with the reason when it could not be computed
    snapshot: Published | None
    document: PoolDocument | None
    status: int = 200
    retry_after: int = 0
    refused: str = ""

    @property
    def earlier(self) -> bool:
        """Whether the document is an earlier snapshot's window, shown while this one's is being warmed."""
        return (
            self.document is not None
            and self.snapshot is not None
            and not from_snapshot(self.document, self.snapshot.id)
        )

    def kept_only_if_current(self, response: HttpResponseBase) -> HttpResponseBase:
        """An earlier snapshot's window is not kept (core.page_cache keeps no no-cache page): the next visit
        finds this snapshot's."""
        if self.earlier:
            patch_cache_control(response, no_cache=True)
        return response

    def answer(self, template: str, context: dict[str, Any]) -> HttpResponse:
        if self.document is None:
            return render_page(template, context)
        response = render_page(template, context, status=self.status)
        if self.status in (429, 503):
            response["Retry-After"] = str(self.retry_after)
        self.kept_only_if_current(response)
        return response

    def refused_page(self) -> HttpResponse:
        """A page about one or two groups, or a download, that could not show its window: the reason, with its
        status (and when to come back)."""
        response = render_page("404.html", {"message": self.refused, "title": "Not shown"}, status=self.status)
        if self.retry_after:
            response["Retry-After"] = str(self.retry_after)
        return response


def windowed_document(request: HttpRequest, window: Window, load: Lazy) -> Windowed:
    """The document a ranking page shows for the window asked for (days and harness)."""
    snapshot = load()  # held by the process: the page's own snapshot, usually without a query
    if window.is_snapshot or window.error:
        document = snapshot.document if snapshot else None
        return Windowed(window, snapshot, document, 400 if window.error else 200, refused=window.error)
    if snapshot is None:
        return Windowed(window, None, None)
    try:
        document = windows.scoped_document(
            since=window.since,
            until=window.until,
            snapshot=snapshot,
            requester=address_digest(request),
            harness=window.harness,
        )
    except windows.WindowLimited as limited:
        error = f"Too many new windows from your address; try again in {limited.retry_after} seconds."
        return windowed_fallback(Window(window.name, error=error), snapshot, 429, limited.retry_after)
    except windows.WindowBusy as busy:
        # Not cached (only 200s are): the next visit finds the window computed.
        error = "Another window is being computed; reload in a few seconds."
        return windowed_fallback(Window(window.name, error=error), snapshot, 503, busy.retry_after)
    except windows.WindowError as unknown:  # a harness this pool does not show
        return windowed_fallback(Window(window.name, error=str(unknown)), snapshot, 400, 0)
    return Windowed(window, snapshot, document)


def windowed_fallback(shown: Window, snapshot: Published, status: int, retry_after: int) -> Windowed:
    """All time in place of a window that could not be computed now, with the reason shown."""
    return Windowed(shown, snapshot, snapshot.document, status, retry_after, refused=shown.error)


def windowed_page(
    request: HttpRequest,
    page: str,
    template: str,
    view: str,
    context_of: Callable[[Windowed], dict[str, Any]],
    *choices: object,
) -> HttpResponse:
    """A page of one view in the window the query asks for (the leaderboard, the matrix), kept per view, window
    and the page's own `choices` (the leaderboard's sort), built from `context_of` the windowed document."""
    window = read_window({name: param(request, name) for name in WINDOW_PARAMETERS}, today=timezone.now().date())

    def build(load: Lazy) -> HttpResponse:
        scoped = windowed_document(request, window, load)
        return scoped.answer(template, context_of(scoped))

    parts = (view, window.name, window.since, window.until, bool(window.error), *choices, *lens_parts(window))
    return cached_page(request, page, parts, build)
