"""What the ingest tells the rest of the service, and asks of it, without importing it.

The ingest sits below the leaderboard: it announces that stored cycles changed, and it asks for the
id of the newest published ranking (the 202 reports it), through these two hooks. The leaderboard
connects to both when it starts (LeaderboardConfig.ready).
"""

import logging
from collections.abc import Callable

from django.dispatch import Signal

log = logging.getLogger(__name__)

# Sent after a commit that changed stored cycles: a contribution that inserted or updated rows, a retraction.
cycles_changed = Signal()

_newest_snapshot: Callable[[], int | None] = lambda: None  # noqa: E731 (replaced at start-up)


def provide_newest_snapshot(reader: Callable[[], int | None]) -> None:
    """Say who answers newest_snapshot_id(): the app that publishes rankings."""
    global _newest_snapshot
    _newest_snapshot = reader


def newest_snapshot_id() -> str | None:
    """The id of the newest published ranking, as the 202 body and the stats report it; None before any."""
    newest = _newest_snapshot()
    return None if newest is None else str(newest)


def announce_cycles_changed() -> None:
    """Tell every listener that stored cycles changed; a listener that fails is logged, never raised."""
    for receiver, outcome in cycles_changed.send_robust(sender=announce_cycles_changed):
        if isinstance(outcome, Exception):
            log.error("a listener of cycles_changed failed: %s", receiver, exc_info=outcome)
