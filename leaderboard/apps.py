from django.apps import AppConfig


class LeaderboardConfig(AppConfig):
    name = "leaderboard"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The ingest announces changed cycles through a signal, so that it never imports the leaderboard:
        # connected here, once, whatever module is imported first.
        from ingest import hooks
        from leaderboard import recompute

        hooks.cycles_changed.connect(recompute.request, dispatch_uid="leaderboard.recompute")
