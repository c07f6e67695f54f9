from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView

from ingest.api import PluginContributeApi
from leaderboard.api import PoolApi

urlpatterns = [
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularRedocView.as_view(url_name="api-schema"), name="api-docs"),
    re_path(r"^api/v1/pool\.json/?$", PoolApi.as_view(), name="pool-json"),
    path("api/v1/", include("ingest.urls")),
    # Where the OpenCode plugin posts on its configured host: the same contract as api/v1/contributions.
    re_path(r"^v1/contribute/?$", PluginContributeApi.as_view(), name="plugin-contribute"),
    path("", include("lab.urls")),
    path("", include("leaderboard.urls")),
]

handler404 = "leaderboard.views.page_not_found"
handler500 = "leaderboard.views.server_error"
