from django.urls import path

from pages import downloads, views

page_paths = [
    path("", views.leaderboard, name="leaderboard"),
    path("pairing/", views.pairing, name="pairing"),
    path("matrix/", views.pairing_matrix, name="matrix"),
    path("compare/", views.compare, name="compare"),
    path("methodology/", views.methodology, name="methodology"),
    path("methodology/changes/", views.methodology_changes, name="methodology-changes"),
    path("glossary/", views.glossary, name="glossary"),
    path("contribute/", views.contribute, name="contribute"),
    path("contribute/retract/", views.retract_form, name="retract-form"),
]

# The data page and the files it offers.
data_paths = [
    path("data/", views.data, name="data"),
    path("data/cycles.csv", downloads.cycles_csv, name="cycles-csv"),
    path("data/cycles.csv.gz", downloads.cycles_csv_gz, name="cycles-csv-gz"),
    path("data/rankings.csv", downloads.rankings_csv, name="rankings-csv"),
]

urlpatterns = [*page_paths, *data_paths]
