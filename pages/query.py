"""A ranking's window as the query asks for it: ?window= (a preset or custom days, with &since= and &until=) and
?harness= for the pages, since/until/harness for pool.json; and the window's part of the links and cache keys that
keep it. What a window holds, and its scoring, is leaderboard.windows's.

The contract accepts no cycle before its first day or after tomorrow, so no day outside those is read.
"""

from datetime import date, timedelta
from typing import Final
from urllib.parse import urlencode

from pragmatikos_contract.values import TOKEN_RE

from ingest.contract_rules import FIRST_DAY
from leaderboard.windows import PRESET_DAYS, Window, WindowError, preset_window

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
