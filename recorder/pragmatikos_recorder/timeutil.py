from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Final

# Times a log can truly hold. Outside them a time is crafted or broken; taken as unknown, it also
# keeps `time + 7 days` and the move to UTC clear of datetime's year-1 and year-9999 edges.
EARLIEST: Final = datetime(2000, 1, 1, tzinfo=UTC)
LATEST: Final = datetime(2200, 1, 1, tzinfo=UTC)


def parse_ts(raw: Any) -> datetime | None:
    """An ISO-8601 time from a log (`2025-11-20T10:00:00.123Z`) as an aware UTC datetime, or None."""
    if not isinstance(raw, str) or len(raw) > 64:
        return None
    try:
        ts = datetime.fromisoformat(raw.replace("Z", "+00:00"))
        ts = ts.astimezone(UTC) if ts.tzinfo else ts.replace(tzinfo=UTC)
    except (ValueError, OverflowError):
        return None
    return ts if EARLIEST <= ts < LATEST else None
