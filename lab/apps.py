from django.apps import AppConfig


class LabConfig(AppConfig):
    name = "lab"
    default_auto_field = "django.db.models.BigAutoField"
    verbose_name = "Lab: published benchmark runs"
