"""A ranking page's document in its window: the published snapshot's for all time, else scored on demand.

The leaderboard and the matrix read their window the same way (windows.read_window) and answer the
same statuses: 400 for a window that cannot be read, 429 or 503 with Retry-After when a new window
cannot be computed now (all time is shown instead, with the reason).
"""

from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest, HttpResponse

from core.throttles import address_digest
from pages.serving import render_page
from rankings import windows
from rankings.current import Lazy, Published
from rankings.windows import Window
from scoring.shapes import PoolDocument


@dataclass(frozen=True)
class Windowed:
    """A ranking page's document in its window: the snapshot's for all time, else scored on demand."""

    window: Window  # as the page shows it, with the reason when it could not be computed
    snapshot: Published | None
    document: PoolDocument | None
    status: int = 200
    retry_after: int = 0

    def answer(self, template: str, context: dict[str, Any]) -> HttpResponse:
        if self.document is None:
            return render_page(template, context)
        response = render_page(template, context, status=self.status)
        if self.status in (429, 503):
            response["Retry-After"] = str(self.retry_after)
        return response


def windowed_document(request: HttpRequest, window: Window, load: Lazy) -> Windowed:
    """The document a ranking page (the leaderboard, the matrix) shows for the window asked for."""
    if window.is_all_time or window.error:
        snapshot = load()
        return Windowed(window, snapshot, snapshot.document if snapshot else None, 400 if window.error else 200)
    try:
        document = windows.scoped_document(since=window.since, until=window.until, requester=address_digest(request))
    except windows.WindowLimited as limited:
        error = f"Too many new windows from your address; try again in {limited.retry_after} seconds."
        return windowed_fallback(Window(window.name, error=error), load, 429, limited.retry_after)
    except windows.WindowBusy as busy:
        # Not cached (only 200s are): the next visit finds the window computed.
        error = "Another window is being computed; reload in a few seconds."
        return windowed_fallback(Window(window.name, error=error), load, 503, busy.retry_after)
    return Windowed(window, None, document)


def windowed_fallback(shown: Window, load: Lazy, status: int, retry_after: int) -> Windowed:
    """All time in place of a window that could not be computed now, with the reason shown."""
    snapshot = load()
    return Windowed(shown, snapshot, snapshot.document if snapshot else None, status, retry_after)
