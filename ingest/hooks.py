"""What the ingest tells the rest of the service, and asks of it, without importing it.

The ingest sits below the rankings: it announces that stored cycles changed (the rankings connect to
the signal when they start, LeaderboardConfig.ready), and it asks for the id of the newest published
ranking (the 202 reports it) of the function the rankings provide to newest_snapshot_reader (also in
LeaderboardConfig.ready).
"""

import logging

from django.dispatch import Signal

from core.hooks import Hook

log = logging.getLogger(__name__)

# Sent after a commit that changed stored cycles: a contribution that inserted or updated rows, a retraction.
cycles_changed = Signal()

# The newest published ranking's id, None before any.
newest_snapshot_reader: Hook[[], int | None] = Hook("the newest published snapshot's id")


def newest_snapshot_id() -> str | None:
    """The id of the newest published ranking, as the 202 body and the stats report it; None before any (or with
    no rankings installed)."""
    reader = newest_snapshot_reader.provider()
    newest = None if reader is None else reader()
    return None if newest is None else str(newest)


def announce_cycles_changed() -> None:
    """Tell every listener that stored cycles changed; a listener that fails is logged, never raised."""
    for receiver, outcome in cycles_changed.send_robust(sender=announce_cycles_changed):
        if isinstance(outcome, Exception):
            log.error("a listener of cycles_changed failed: %s", receiver, exc_info=outcome)
