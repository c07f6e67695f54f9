"""Day windows of a ranking: the pages' presets and custom days, and pool.json's since/until.

One parser of days for both. The contract accepts no cycle before its first day or after tomorrow,
so no window reaching outside those days could differ from one inside them.
"""

from dataclasses import dataclass
from datetime import date, timedelta
from typing import Final
from urllib.parse import urlencode

from ingest.contract import FIRST_DAY

# The day windows the pages offer besides all time, and warm after each publish.
PRESET_DAYS: Final = (90, 30)
WINDOW_NAMES: Final = ("all", *(str(days) for days in PRESET_DAYS), "custom")


class WindowError(ValueError):
    """A day or window that cannot be read: the message names the parameter and says what it wants."""


def preset_window(days: int, *, today: date) -> tuple[date, date]:
    """The last `days` days up to today."""
    return today - timedelta(days=days - 1), today


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


@dataclass(frozen=True)
class Window:
    """A window the pages show: its name (all, 90, 30, custom), its days, or why it cannot be shown."""

    name: str
    since: date | None = None
    until: date | None = None
    error: str = ""

    @property
    def is_all_time(self) -> bool:
        return self.since is None and self.until is None


def read_window(params: dict[str, str], *, today: date) -> Window:
    """The pages' window from ?window=all|90|30|custom (&since=&until= for custom); an unknown name is all time."""
    name = params.get("window", "all")
    if name in WINDOW_NAMES[1:-1]:
        first, last = preset_window(int(name), today=today)
        return Window(name, since=first, until=last)
    if name != "custom":
        return Window("all")
    try:
        since, until = read_days(params.get("since"), params.get("until"), today=today)
    except WindowError as error:
        return Window("custom", error=str(error))
    if since is None and until is None:
        return Window("custom", error="Give a start day, an end day or both.")
    return Window("custom", since=since, until=until)


def window_query(window: Window) -> str:
    """The window's part of a tab link, so switching views keeps the window."""
    if window.is_all_time or window.error:
        return ""
    query = {"window": window.name}
    if window.name == "custom":
        query.update({k: str(v) for k, v in (("since", window.since), ("until", window.until)) if v})
    return "&" + urlencode(query)
