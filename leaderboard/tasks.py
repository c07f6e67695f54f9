"""Thin tasks: the work is in leaderboard.recompute, windows and cycles_file; and the receivers that queue them
(connected in LeaderboardConfig.ready): a recompute when cycles changed, the export and the windows' warming
when a snapshot is published.

Tasks are acknowledged late and put back when their worker dies (settings), and the
recompute ones are safe to run twice: the lock and the pending flag decide what runs.

The work's modules (and through them numpy, pandas and scipy) are imported where a task runs, not here: every
process imports this module as Django starts, and only the worker scores. The worker imports them once as it
starts (_warm_on_start), so its first task does not wait for them.
"""

import logging
from typing import Any

from celery import shared_task
from celery.signals import worker_init, worker_ready

from leaderboard.coordination import coordinator

log = logging.getLogger(__name__)

# Tasks keep the names of the module they were first written in: a deployed broker may still hold
# queued ones, and beat names them (settings.CELERY_BEAT_SCHEDULE).


def _check_again_in(seconds: int | None) -> None:
    if seconds is not None:
        recompute_if_owed.apply_async(countdown=seconds)


@shared_task(name="leaderboard.tasks.recompute_rankings", ignore_result=True)
def recompute_rankings() -> None:
    """Recompute while one is owed (queued after each accepted contribution)."""
    from leaderboard import recompute

    _check_again_in(recompute.run_owed().check_again_in)


@shared_task(name="leaderboard.tasks.recompute_if_owed", ignore_result=True)
def recompute_if_owed() -> None:
    """Beat's check every minute, and the check once a blocking lock has lapsed; one Redis read when nothing is owed."""
    from leaderboard import recompute

    _check_again_in(recompute.run_owed().check_again_in)


@shared_task(name="leaderboard.tasks.scheduled_recompute", ignore_result=True)
def scheduled_recompute() -> None:
    """Celery beat's periodic recompute, which also covers contributions whose request for one
    was lost (the broker down at commit); unchanged data publishes nothing new."""
    from leaderboard import recompute, windows

    _check_again_in(recompute.run_owed(owe=True).check_again_in)
    # A new day moves the preset windows: the newest snapshot's are warmed for it (a cache read when they are).
    windows.warm_newest()
    # An export lost with a worker that died after publishing is written here, late but not never.
    recompute.export_newest_cycles()


@shared_task(name="leaderboard.tasks.warm_windows", ignore_result=True)
def warm_windows(snapshot_id: int) -> None:
    """Compute a new snapshot's preset day windows ahead of the first visitor."""
    from leaderboard import windows

    windows.warm_windows(snapshot_id=snapshot_id)


@shared_task(name="leaderboard.tasks.export_cycles", ignore_result=True)
def export_cycles(snapshot_id: int) -> None:
    """Write the new snapshot's cycles.csv file (queued after each publish)."""
    from leaderboard import cycles_file

    cycles_file.write_cycles_export(snapshot_id=snapshot_id)


@shared_task(name="leaderboard.tasks.recompute_on_start", ignore_result=True)
def recompute_on_start() -> None:
    """A starting worker's check: what a crash left owed, and a snapshot a new release cannot serve."""
    from leaderboard import recompute

    _check_again_in(recompute.run_owed(owe=recompute.newest_is_unreadable()).check_again_in)


@worker_init.connect
def _warm_on_start(**_: Any) -> None:
    # Before the pool forks: each worker process then holds the engine from its start, and a contribution's
    # recompute pays no import; and the pool's cells, read whole, so that the first contribution's points read
    # only the cells it changed (leaderboard.cells.changed_pool_cells).
    from leaderboard import cycles_file, recompute, windows  # noqa: F401

    recompute.remember_pool()


@worker_ready.connect
def _check_owed_on_start(**_: Any) -> None:
    # A worker starting after a crash picks up the recompute the crash left owed; one starting after a release
    # that moved the document version republishes at once, so the pages are not left without a ranking.
    recompute_on_start.delay()


@worker_ready.connect
def _parent_lets_its_cells_go(sender: Any = None, **_: Any) -> None:
    # Ready comes once the pool has forked: the processes that recompute hold their copy of the pool's cells, and
    # the prefork parent, which never recomputes, lets its own go (~300 MB at ten million cycles). `sender` is the
    # worker's consumer; under the solo or threads pool this process recomputes itself and keeps them.
    if type(getattr(sender, "pool", None)).__module__ != "celery.concurrency.prefork":
        return
    from core.memory import return_freed_memory
    from leaderboard.cells import forget_whole_read

    forget_whole_read()
    return_freed_memory()
    log.info("worker: the pool has forked; the parent let its copy of the pool's cells go")


def request_recompute(**signal: object) -> None:
    """A recompute is owed: mark it and queue a run. ingest.hooks.cycles_changed's receiver (a contribution or
    retraction committed)."""
    coordinator().mark_pending()
    recompute_rankings.delay()


def queue_after_publish(*, snapshot_id: int, points_only: bool = False, **signal: object) -> None:
    """leaderboard.published.snapshot_published's receiver: write the new snapshot's cycles.csv and warm its
    windows, on the worker; not for points alone, which the whole snapshot replaces within seconds."""
    if points_only:
        return
    export_cycles.delay(snapshot_id)
    warm_windows.delay(snapshot_id)
