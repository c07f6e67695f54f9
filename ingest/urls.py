from django.urls import URLPattern, re_path

from ingest import api

# Each path answers with and without a trailing slash (cycle-record.md, "Envelope").
urlpatterns: list[URLPattern] = [
    re_path(r"^contributions/?$", api.ContributeApi.as_view(), name="contributions"),
    re_path(r"^contributions/preview/?$", api.PreviewApi.as_view(), name="contributions-preview"),
    re_path(r"^contributions/retract/?$", api.RetractApi.as_view(), name="contributions-retract"),
    re_path(r"^contributions/counts/?$", api.InstallCountsApi.as_view(), name="contributions-counts"),
    re_path(r"^stats/?$", api.StatsApi.as_view(), name="stats"),
    re_path(r"^(?P<path>.*)$", api.api_not_found, name="api-not-found"),
]
