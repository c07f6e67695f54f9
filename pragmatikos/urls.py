from django.http import HttpRequest, HttpResponse
from django.urls import include, path, re_path
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView

from ingest.api import PluginContributeApi
from pages import views as leaderboard_views
from pages.api import PoolApi

plugin_contribute = PluginContributeApi.as_view()


@csrf_exempt  # a POST here is the API's (JSON, no session); GET and HEAD are the leaderboard, which sets no state
def front_door(request: HttpRequest) -> HttpResponse:
    """The leaderboard, and the contribution contract for a POST: people give the plugin the host alone."""
    if request.method == "POST":
        return plugin_contribute(request)
    return leaderboard_views.leaderboard(request)


urlpatterns = [
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularRedocView.as_view(url_name="api-schema"), name="api-docs"),
    re_path(r"^api/v1/pool\.json/?$", PoolApi.as_view(), name="pool-json"),
    path("api/v1/", include("ingest.urls")),
    # Where the OpenCode plugin posts on its configured host: the same contract as api/v1/contributions.
    re_path(r"^v1/contribute/?$", plugin_contribute, name="plugin-contribute"),
    path("", front_door),
    path("", include("lab.urls")),
    path("", include("pages.urls")),
]

handler404 = "pages.views.page_not_found"
handler500 = "pages.views.server_error"
