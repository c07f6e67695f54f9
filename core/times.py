"""Times as the service writes them in documents and headers: ISO 8601, UTC, with a Z."""

from datetime import UTC, datetime


def iso_z(moment: datetime) -> str:
    """2026-11-30T00:15:00.123456+00:00 as 2026-11-30T00:15:00.123456Z (an aware time, in UTC)."""
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")
