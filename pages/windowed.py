"""A ranking page's window and its document. The window as the query asks for it: ?window= (a preset or custom
days, with &since= and &until=) and ?harness= for the pages, since/until/harness for pool.json, and the window's
part of the links and cache keys that keep it. Its document: the published snapshot's for all time, else scored on
demand (what a window holds, and its scoring, is leaderboard.windows's).

The leaderboard, the matrix, the pairing page, compare and rankings.csv read their window the same way and answer
the same statuses: 400 for a window that cannot be read or a harness the pool does not show, 429 or 503 with
Retry-After when a new window cannot be computed now (all time is shown instead, with the reason). The contract
accepts no cycle before its first day or after tomorrow, so no day outside those is read.
"""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any, Final
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.utils import timezone
from django.utils.cache import patch_cache_control
from pragmatikos_contract.values import TOKEN_RE

from core.http import param
from core.throttles import address_digest
from ingest.contract_rules import FIRST_DAY
from leaderboard import windows
from leaderboard.published import Lazy, Published
from leaderboard.windows import PRESET_DAYS, Window, WindowError, from_snapshot, preset_window
from pages.serving import cached_page, render_page
from scoring.shapes import PoolDocument

# The windows the pages offer: all time, the presets, and custom days.
WINDOW_NAMES: Final = ("all", *(str(days) for days in PRESET_DAYS), "custom")


def read_day(name: str, raw: str | None, *, today: date) -> date | None:
    """A day parameter (YYYY-MM-DD between the contract's first day and tomorrow), None when absent or empty."""
    if raw is None or raw == "":
        return None
    try:
        day = date.fromisoformat(raw) if len(raw) == 10 else None
    except ValueError:
        day = None
    if day is None:
        raise WindowError(f"{name} must be a date written YYYY-MM-DD, for example 2026-09-01.")
    if not FIRST_DAY <= day <= today + timedelta(days=1):
        raise WindowError(f"{name} must lie between {FIRST_DAY} and tomorrow.")
    return day


def read_days(since_raw: str | None, until_raw: str | None, *, today: date) -> tuple[date | None, date | None]:
    """since and until as days in order; WindowError names the one at fault."""
    since = read_day("since", since_raw, today=today)
    until = read_day("until", until_raw, today=today)
    if since is not None and until is not None and since > until:
        raise WindowError("since must not be after until.")
    return since, until


def read_harness(raw: str | None) -> str | None:
    """A harness parameter: a harness name as the contract spells one, None when absent or empty."""
    if raw is None or raw == "":
        return None
    if TOKEN_RE.fullmatch(raw) is None:
        raise WindowError("harness must be the name of a harness of this pool, for example opencode.")
    return raw


# The query parameters read_window reads.
WINDOW_PARAMETERS: Final = ("window", "since", "until", "harness")


def read_window(params: dict[str, str], *, today: date) -> Window:
    """The pages' window from ?window=all|90|30|custom (&since=&until= for custom) and ?harness=; an unknown
    window name is all time."""
    try:
        harness = read_harness(params.get("harness"))
    except WindowError as error:
        return Window("all", error=str(error))
    name = params.get("window", "all")
    if name in WINDOW_NAMES[1:-1]:
        first, last = preset_window(int(name), today=today)
        return Window(name, since=first, until=last, harness=harness)
    if name != "custom":
        return Window("all", harness=harness)
    try:
        since, until = read_days(params.get("since"), params.get("until"), today=today)
    except WindowError as error:
        return Window("custom", error=str(error), harness=harness)
    if since is None and until is None:
        return Window("custom", error="Give a start day, an end day or both.", harness=harness)
    return Window("custom", since=since, until=until, harness=harness)


def window_query(window: Window) -> str:
    """The window's part of a tab link, so switching views keeps the window (and its harness)."""
    if window.error:
        return ""
    query = {}
    if not window.is_all_time:
        query["window"] = window.name
        if window.name == "custom":
            query.update({k: str(v) for k, v in (("since", window.since), ("until", window.until)) if v})
    if window.harness:
        query["harness"] = window.harness
    return "&" + urlencode(query) if query else ""


def lens_query(window: Window) -> str:
    """The harness part of a link to a pairing or a comparison, so following one keeps the lens."""
    return "&" + urlencode({"harness": window.harness}) if window.harness and not window.error else ""


def lens_parts(window: Window) -> tuple[str, ...]:
    """What a lens adds to a page's cache key: nothing without one, so the whole pool's pages keep their keys."""
    return (window.harness or "", window.error) if window.harness or window.error else ()


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
