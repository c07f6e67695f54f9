from django.apps import AppConfig


class LeaderboardConfig(AppConfig):
    name = "leaderboard"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The ingest announces changed cycles, and a publish its snapshot, through signals, so that neither
        # imports what follows from them: connected here (with the ingest's hook), once, whatever module is
        # imported first.
        from ingest import hooks
        from leaderboard import published, tasks

        hooks.cycles_changed.connect(tasks.request_recompute, dispatch_uid="leaderboard.recompute")
        # The ingest reports the newest published ranking's id (its 202, the stats) without importing this app.
        hooks.newest_snapshot_reader.provide(published.newest_snapshot_id)
        # In this order: the pages serve the new snapshot before the worker is asked for its export and windows.
        published.snapshot_published.connect(published.serve_new_snapshot, dispatch_uid="leaderboard.serve")
        published.snapshot_published.connect(tasks.queue_after_publish, dispatch_uid="leaderboard.after_publish")
