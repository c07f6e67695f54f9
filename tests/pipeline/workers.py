"""Real processes for pipeline tests: a Celery worker and a recompute, on the test database."""

import os
import subprocess
import sys
from pathlib import Path
from typing import IO

from django.conf import settings
from django.db import connection

REPO = Path(__file__).resolve().parents[2]


def child_database_env() -> dict[str, str]:
    """The environment of a child process that must see this test's database."""
    db = connection.settings_dict
    url = f"postgresql://{db['USER']}:{db['PASSWORD']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    env = dict(os.environ)
    env.update(DATABASE_URL=url, REDIS_URL=settings.REDIS_URL, SECRET_KEY=settings.SECRET_KEY, PYTHONUNBUFFERED="1")
    env["INSTALL_HASH_KEY"] = settings.INSTALL_HASH_KEY
    env["PUBLIC_LABEL_MIN_CONTRIBUTORS"] = str(settings.PUBLIC_LABEL_MIN_CONTRIBUTORS)
    env["EXPORT_DIR"] = str(settings.EXPORT_DIR)
    return env


def start_worker(
    *extra_env: tuple[str, str], output: IO[bytes] | int = subprocess.PIPE, pool: str = "solo"
) -> subprocess.Popen[bytes]:
    """A worker running tasks in its own process (solo), or in one child process (prefork, as in production)."""
    env = child_database_env()
    env.update(dict(extra_env))
    command = [sys.executable, "-m", "celery", "-A", "pragmatikos", "worker", "--pool", pool, "--loglevel", "INFO"]
    if pool == "prefork":
        command += ["--concurrency", "1"]
    return subprocess.Popen(command, cwd=REPO, env=env, stdout=output, stderr=subprocess.STDOUT)


def start_recompute(*extra_env: tuple[str, str]) -> subprocess.Popen[bytes]:
    env = child_database_env()
    env.update(dict(extra_env))
    command = [sys.executable, "manage.py", "recompute", "--force"]
    return subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
