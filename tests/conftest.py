from typing import Any

import pytest


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    """Throttle counters and page caches live in the cache: each test starts clean."""
    from django.core.cache import cache

    cache.clear()


@pytest.fixture(autouse=True)
def _every_name_shown(request: pytest.FixtureRequest, settings: Any) -> None:
    """Tests name invented models sent by one contributor; only the tests of the public-label rule
    (marked public_labels) run with the production threshold of 2 contributors."""
    if request.node.get_closest_marker("public_labels") is None:
        settings.PUBLIC_LABEL_MIN_CONTRIBUTORS = 1
