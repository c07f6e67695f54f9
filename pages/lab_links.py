"""Whether a field model's or pairing's page links to the lab: only where some lab source has runs of it.

The lab sits above this app, so the pages never import it: they ask the function that
settings.LAB_PRESENCE names (lab.presence.in_the_lab), and the lab retires this app's pages whenever
its runs or aliases change. With the setting empty, no page links to the lab.
"""

from collections.abc import Callable

from django.conf import settings
from django.utils.module_loading import import_string


def in_the_lab(view: str, label: str) -> bool:
    if not settings.LAB_PRESENCE:
        return False
    finder: Callable[[str, str], bool] = import_string(settings.LAB_PRESENCE)
    return finder(view, label)
