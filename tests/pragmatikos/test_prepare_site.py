"""`make run`'s preparation, as it runs it: one process, on a fresh SQLite file, then again."""

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import redis

from core.folder_cache import FolderCache
from pragmatikos.management.commands.prepare_site import forget_cache_of_another_database
from tests.redis_servers import OwnRedis, redis_cache

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


def embedded_env(folder: Path) -> dict[str, str]:
    return {
        **{name: value for name, value in os.environ.items() if name not in ("DATABASE_URL", "REDIS_URL")},
        "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}",
        "STATIC_ROOT": str(folder / "staticfiles"),
        "EXPORT_DIR": str(folder / "exports"),
        "SECRET_KEY": "test-key",
        "INSTALL_HASH_KEY": "test-install-hash-key",
        "CACHE_DIR": str(folder / "cache"),
    }


def prepare(folder: Path) -> tuple[str, float]:
    env = embedded_env(folder)
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "manage.py", "prepare_site"], cwd=REPO, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout, time.monotonic() - started


def test_it_loads_the_demo_and_the_lab_once_and_a_later_run_is_quick(tmp_path: Path) -> None:
    first, _ = prepare(tmp_path)
    again, seconds = prepare(tmp_path)

    assert "(demo data)" in first and "135 runs added" in first
    assert "no demo data loaded" in again
    assert again.count(" 0 runs added, 0 updated") == 3
    assert (tmp_path / "staticfiles").is_dir()  # no "No directory at" warning when the server starts
    print(f"prepare_site again: {seconds:.1f} s")
    assert seconds < 10  # a later `make run` serves within seconds


# What a visitor of `make run` meets: the server is a process of its own, started after prepare_site.
PAIRING_PAGE = """
from django.test import Client
from leaderboard.published import current_snapshot
label = current_snapshot().document["views"]["modelCombo"]["groups"][0]["label"]
page = Client(HTTP_HOST="127.0.0.1").get("/pairing/", {"view": "modelCombo", "label": label}).content.decode()
lenses = page.partition('aria-label="Under each harness"')[2].partition("</section>")[0]
print(lenses.count("score-num") + lenses.count("not ranked under"), lenses.count("not computed yet"))
"""


def test_a_server_started_after_it_shows_each_harness_computed_there(tmp_path: Path) -> None:
    # What another database left in the folder (its snapshot ids are the ones this one will use) is dropped.
    FolderCache(str(tmp_path / "cache"), {}).set("left-by-another-database", 1, None)

    prepare(tmp_path)

    done = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", PAIRING_PAGE],
        cwd=REPO,
        env=embedded_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert done.returncode == 0, done.stderr[-2000:]
    shown, pending = map(int, done.stdout.split()[-2:])
    assert (shown, pending) == (6, 0)  # the demo pool's six harnesses, each scored by prepare_site
    assert FolderCache(str(tmp_path / "cache"), {}).get("left-by-another-database") is None


@pytest.mark.django_db
def test_a_new_database_never_empties_a_redis_cache(settings: Any) -> None:
    """Redis holds the broker's queue and the recompute's lock too: only the embedded cache folder is emptied."""
    with OwnRedis() as server:
        settings.CACHES = redis_cache(server.port)
        redis.Redis.from_url(server.url).set("queued-task", "kept")

        forget_cache_of_another_database()

        assert redis.Redis.from_url(server.url).get("queued-task") == b"kept"
