from django.apps import AppConfig


class LabConfig(AppConfig):
    name = "lab"
    default_auto_field = "django.db.models.BigAutoField"
    verbose_name = "Lab: published benchmark runs"

    def ready(self) -> None:
        # The field's pages sit below the lab and never import it: they ask this hook whether to link to it.
        from lab.presence import in_the_lab
        from pages.lab_links import lab_presence

        lab_presence.provide(in_the_lab)
