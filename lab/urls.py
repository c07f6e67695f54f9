from django.urls import path

from lab import downloads, views

urlpatterns = [
    path("lab/", views.lab, name="lab"),
    path("lab/beside/", views.beside, name="lab-beside"),
    path("data/lab.csv", downloads.lab_csv, name="lab-csv"),
    path("data/lab-runs.jsonl", downloads.lab_runs_jsonl, name="lab-runs-jsonl"),
]
