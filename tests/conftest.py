import pytest


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    """Throttle counters and page caches live in the cache: each test starts clean."""
    from django.core.cache import cache

    from leaderboard import soft_cache

    cache.clear()
    soft_cache.reset()
