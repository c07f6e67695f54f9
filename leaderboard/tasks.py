"""Thin tasks: the work is in leaderboard.services."""

from celery import shared_task

from leaderboard import exports, services
from leaderboard.coordination import coordinator


@shared_task(ignore_result=True)
def recompute_rankings() -> None:
    """Recompute while one is owed (queued after each accepted contribution)."""
    services.run_pending_recomputes()


@shared_task(ignore_result=True)
def scheduled_recompute() -> None:
    """Celery beat's periodic recompute; unchanged data publishes nothing new."""
    coordinator().mark_pending()
    services.run_pending_recomputes()
    # An export lost with a worker that died after publishing is written here, late but not never.
    services.export_newest_cycles()


@shared_task(ignore_result=True)
def warm_windows(snapshot_id: int) -> None:
    """Compute a new snapshot's preset day windows ahead of the first visitor."""
    services.warm_windows(snapshot_id=snapshot_id)


@shared_task(ignore_result=True)
def export_cycles(snapshot_id: int) -> None:
    """Write the new snapshot's cycles.csv file (queued after each publish)."""
    exports.write_cycles_export(snapshot_id=snapshot_id)
