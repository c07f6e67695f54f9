import atexit
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest

# The published demo pool, for any test that names it (tests/demo_pool.py): published once per test process.
from tests.demo_pool import demo_snapshot, published_demo, warmed_demo_snapshot

__all__ = ["demo_snapshot", "published_demo", "warmed_demo_snapshot"]


# The fixtures through which a test reaches the database (the demo pool's too, through db).
_DATABASE_FIXTURES = frozenset({"db", "transactional_db", "django_db_setup", "live_server"})
_SLOW_FOLDERS = frozenset({"deploy", "e2e"})


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark what each test needs, so a run can choose (-m "not slow") and a run without PostgreSQL skips rather
    than fails: `postgres` on every test that touches the database (the service's queries, COPY and the cells'
    triggers are PostgreSQL's), `slow` on those that start real workers, servers or browsers."""
    from django.db import connection

    on_postgres = connection.vendor == "postgresql"
    no_postgres = pytest.mark.skip(reason="needs PostgreSQL: set DATABASE_URL (make test does)")
    for item in items:
        if item.get_closest_marker("django_db") or _DATABASE_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.postgres)
            if not on_postgres:
                item.add_marker(no_postgres)
        folder = item.path.relative_to(config.rootpath).parts[1:2]
        if item.get_closest_marker("worker") or item.get_closest_marker("browser") or set(folder) & _SLOW_FOLDERS:
            item.add_marker(pytest.mark.slow)


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist each worker process gets a Redis database of its own (the next numbers after
    REDIS_URL's), since the tests clear the cache and run Celery workers over it; the test database is
    already per worker (pytest-django suffixes its name)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if worker.startswith("gw") and worker[2:].isdigit():
        _use_redis_database_offset(int(worker[2:]))
    _use_own_cache_folder()


def _use_own_cache_folder() -> None:
    """Without Redis the shared cache is a folder (var/cache by default): each test process gets its own, so the
    tests' clearing touches neither another process's nor a running `make run`'s."""
    from django.conf import settings

    if settings.REDIS_URL:
        return
    folder = tempfile.mkdtemp(prefix="pragmatikos-test-cache-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    settings.CACHES["default"]["LOCATION"] = folder


def _use_redis_database_offset(offset: int) -> None:
    from django.conf import settings

    from pragmatikos.celery import app

    if not settings.REDIS_URL or offset == 0:
        return
    parts = urlsplit(settings.REDIS_URL)
    base = int(parts.path.strip("/") or 0)
    url = urlunsplit(parts._replace(path=f"/{base + offset}"))
    settings.REDIS_URL = url
    settings.CELERY_BROKER_URL = url
    settings.CACHES["default"]["LOCATION"] = url
    app.conf.broker_url = url
    os.environ["REDIS_URL"] = url


@pytest.fixture(autouse=True)
def _no_whole_read_remembered() -> None:
    """A recompute remembers the pool it read whole (leaderboard.cells): no test starts from another's."""
    from leaderboard.cells import forget_whole_read

    forget_whole_read()


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
    (marked public_labels) run with the production rule: 2 contributors, each seen a day apart, that sent the
    name on 3 days since."""
    if request.node.get_closest_marker("public_labels") is None:
        settings.PUBLIC_LABEL_MIN_CONTRIBUTORS = 1
        settings.PUBLIC_LABEL_MIN_TENURE_HOURS = 0
        settings.PUBLIC_LABEL_MIN_DAYS = 0


@pytest.fixture(autouse=True)
def _own_export_dir(settings: Any, tmp_path: Path) -> None:
    """Each test writes cycles.csv files into its own directory, never into the checkout's var/."""
    settings.EXPORT_DIR = tmp_path / "exports"
