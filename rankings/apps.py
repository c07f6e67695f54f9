from django.apps import AppConfig


class RankingsConfig(AppConfig):
    name = "rankings"
    # The app's old label: deployed databases keep their leaderboard_* tables and migration history.
    label = "leaderboard"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The ingest announces changed cycles through a signal, so that it never imports the rankings:
        # connected here, once, whatever module is imported first.
        from ingest import hooks
        from rankings import recompute

        hooks.cycles_changed.connect(recompute.request, dispatch_uid="leaderboard.recompute")
