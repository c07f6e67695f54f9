from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView

urlpatterns = [
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularRedocView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/v1/", include("ingest.urls")),
    path("", include("leaderboard.urls")),
]

handler404 = "leaderboard.views.page_not_found"
handler500 = "leaderboard.views.server_error"
