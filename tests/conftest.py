from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    """Throttle counters and page caches live in the caches (the shared one and the process's own): each test
    starts clean."""
    from django.core.cache import cache

    from core import soft_cache
    from core.backend import in_process_counts
    from core.page_cache import forget_process_copies

    cache.clear()
    forget_process_copies()
    in_process_counts.clear()
    soft_cache.reset()


@pytest.fixture(autouse=True)
def _every_name_shown(request: pytest.FixtureRequest, settings: Any) -> None:
    """Tests name invented models sent by one new contributor; only the tests of the public-label rule
    (marked public_labels) run with the production rule: 2 contributors, each seen a day apart."""
    if request.node.get_closest_marker("public_labels") is None:
        settings.PUBLIC_LABEL_MIN_CONTRIBUTORS = 1
        settings.PUBLIC_LABEL_MIN_TENURE_HOURS = 0


@pytest.fixture(autouse=True)
def _own_export_dir(settings: Any, tmp_path: Path) -> None:
    """Each test writes cycles.csv files into its own directory, never into the checkout's var/."""
    settings.EXPORT_DIR = tmp_path / "exports"
