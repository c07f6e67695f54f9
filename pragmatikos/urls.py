from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView

from leaderboard.api import PoolApi

urlpatterns = [
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularRedocView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/v1/pool.json", PoolApi.as_view(), name="pool-json"),
    path("api/v1/", include("ingest.urls")),
    path("", include("lab.urls")),
    path("", include("leaderboard.urls")),
]

handler404 = "leaderboard.views.page_not_found"
handler500 = "leaderboard.views.server_error"
