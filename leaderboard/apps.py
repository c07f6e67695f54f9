from django.apps import AppConfig


class LeaderboardConfig(AppConfig):
    name = "leaderboard"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The ingest announces changed cycles and asks for the newest ranking through hooks, so that it
        # never imports the leaderboard: connected here, once, whatever module is imported first.
        from ingest import hooks
        from leaderboard import selectors, services

        hooks.cycles_changed.connect(services.recompute_after_new_cycles, dispatch_uid="leaderboard.recompute")
        hooks.provide_newest_snapshot(selectors.newest_snapshot_id)
