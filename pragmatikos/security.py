"""The Content-Security-Policy header (Django 5.2 has none of its own).

One strict policy for every response: scripts, styles, images and fonts from this site
only, nothing inline but the hashed style of the error page, no frames, no plugins, forms
posting only here. A path may carry its own policy (settings.CONTENT_SECURITY_POLICY_PATHS),
as the API docs page must: Redoc styles itself with <style> elements it writes at run time.
"""

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse


def policy_for(path: str) -> str:
    for prefix, policy in settings.CONTENT_SECURITY_POLICY_PATHS.items():
        if path.startswith(prefix):
            return str(policy)
    return str(settings.CONTENT_SECURITY_POLICY)


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", policy_for(request.path))
        return response
