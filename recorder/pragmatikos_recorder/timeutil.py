from __future__ import annotations

from datetime import UTC, datetime
from typing import Any


def parse_ts(raw: Any) -> datetime | None:
    """An ISO-8601 time from a log (`2025-11-20T10:00:00.123Z`) as an aware UTC datetime, or None."""
    if not isinstance(raw, str):
        return None
    try:
        ts = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        return None
    return ts.astimezone(UTC) if ts.tzinfo else ts.replace(tzinfo=UTC)
