from django.apps import AppConfig


class LabConfig(AppConfig):
    name = "lab"
    default_auto_field = "django.db.models.BigAutoField"
    verbose_name = "Lab: published benchmark runs"

    def ready(self) -> None:
        # The field's pages link to the lab where it has runs of the model or pairing.
        from lab import presence
        from pages import lab_links

        lab_links.register(presence.in_the_lab)
