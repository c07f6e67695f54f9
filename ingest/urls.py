from django.urls import URLPattern, path, re_path

from ingest import api

urlpatterns: list[URLPattern] = [
    path("contributions", api.ContributeApi.as_view(), name="contributions"),
    path("contributions/preview", api.PreviewApi.as_view(), name="contributions-preview"),
    path("contributions/retract", api.RetractApi.as_view(), name="contributions-retract"),
    path("stats", api.StatsApi.as_view(), name="stats"),
    re_path(r"^(?P<path>.*)$", api.api_not_found, name="api-not-found"),
]
