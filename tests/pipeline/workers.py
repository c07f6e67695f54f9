"""Real processes for pipeline tests: a Celery worker and a recompute, on the test database."""

import http.client
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from django.conf import settings
from django.db import connection

from leaderboard.coordination import Coordinator, coordinator
from leaderboard.models import Snapshot
from leaderboard.recompute import publish
from pragmatikos.celery import app as celery_app
from scoring.shapes import INTERVALS_KEY, INTERVALS_PENDING
from tests.cycles.stored import make_contributor, make_cycles
from tests.ports import free_port

REPO = Path(__file__).resolve().parents[2]


def child_database_env() -> dict[str, str]:
    """The environment of a child process that must see this test's database."""
    db = connection.settings_dict
    url = f"postgresql://{db['USER']}:{db['PASSWORD']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    env = dict(os.environ)
    env.update(DATABASE_URL=url, REDIS_URL=settings.REDIS_URL, SECRET_KEY=settings.SECRET_KEY, PYTHONUNBUFFERED="1")
    env["INSTALL_HASH_KEY"] = settings.INSTALL_HASH_KEY
    # The public-label rule as this test runs it (tests/conftest.py), in the worker too.
    env["PUBLIC_LABEL_MIN_CONTRIBUTORS"] = str(settings.PUBLIC_LABEL_MIN_CONTRIBUTORS)
    env["PUBLIC_LABEL_MIN_TENURE_HOURS"] = str(settings.PUBLIC_LABEL_MIN_TENURE_HOURS)
    env["PUBLIC_LABEL_MIN_DAYS"] = str(settings.PUBLIC_LABEL_MIN_DAYS)
    env["EXPORT_DIR"] = str(settings.EXPORT_DIR)
    # The checkout's own contract and recorder before any installed copy, as pytest's pythonpath gives this process.
    checkout = [str(REPO / "contract"), str(REPO / "recorder")]
    env["PYTHONPATH"] = os.pathsep.join([*checkout, *filter(None, [os.environ.get("PYTHONPATH")])])
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


def wait_for_line(process: subprocess.Popen[bytes], marker: bytes, seconds: float) -> bytes:
    """What the process printed up to the line holding `marker`; fails, with its output, after `seconds`."""
    assert process.stdout is not None
    seen = b""
    deadline = time.monotonic() + seconds
    while marker not in seen and time.monotonic() < deadline and process.poll() is None:
        # Wait for output no longer than the deadline: a silent process must fail the test, not hang it.
        ready, _, _ = select.select([process.stdout], [], [], max(0.0, deadline - time.monotonic()))
        if ready:
            seen += process.stdout.readline()
    assert marker in seen, seen.decode(errors="replace")[-3000:]
    return seen


def wait_for_worker(process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while not celery_app.control.ping(timeout=0.5):
        if process.poll() is not None:
            said = process.stdout.read().decode(errors="replace")[-2000:] if process.stdout else ""
            raise AssertionError(f"the worker exited at start\n{said}")
        assert time.monotonic() < deadline, "the worker did not start within 30 s"


def stop(process: subprocess.Popen[bytes]) -> None:
    """Ask the process to end; kill it if it has not within 30 s."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def kill(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL, as the OOM killer sends: the process gets no chance to clean up."""
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)


def reap(process: subprocess.Popen[bytes]) -> None:
    """Kill the process if a failed test left it running."""
    if process.poll() is None:
        process.kill()
        process.wait()


def forget_queued_recomputes(coord: Coordinator) -> None:
    """No recompute left queued or owed by an earlier test."""
    celery_app.control.purge()
    clear_owed(coord)


def clear_owed(coord: Coordinator) -> None:
    """No recompute owed, whoever marked it (no worker runs meanwhile to mark it again)."""
    mark = coord.pending_mark()
    if mark is not None:
        coord.clear_pending(mark)


def whole_snapshots() -> int:
    """The snapshots with their intervals: one per recompute, each after points of its own (leaderboard.recompute)."""
    documents = Snapshot.objects.values_list("document", flat=True)
    return sum((document.get("meta") or {}).get(INTERVALS_KEY) != INTERVALS_PENDING for document in documents)


def publish_then_store_more() -> Snapshot:
    """A published snapshot of 4,000 cycles, then 4,000 more stored that no snapshot has scored yet."""
    make_cycles(make_contributor(), count=4000, seed=7)
    old = publish()
    assert old is not None
    make_cycles(make_contributor(), count=4000, seed=8, key_offset=10_000)
    return old


@contextmanager
def running_worker() -> Iterator[subprocess.Popen[bytes]]:
    """A Celery worker that has started, with no recompute queued before it; stopped after."""
    forget_queued_recomputes(coordinator())
    process = start_worker()
    try:
        wait_for_worker(process)
        yield process
    finally:
        stop(process)


@contextmanager
def deployed_gunicorn(**env: str) -> Iterator[tuple[int, Path]]:
    """gunicorn as deployed (deploy/gunicorn.conf.py) on a free loopback port over this test's database:
    (port, log file), once it answers; stopped after the block."""
    with gunicorn_from(sys.executable, REPO, env) as running:
        yield running


@contextmanager
def gunicorn_from(python: str, cwd: Path, env: dict[str, str]) -> Iterator[tuple[int, Path]]:
    """deployed_gunicorn run by another installation's Python from `cwd` (tests/deploy/test_install.py's
    virtualenv, outside the checkout)."""
    port = free_port()
    environment = {**child_database_env(), "GUNICORN_BIND": f"127.0.0.1:{port}", **env}
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "gunicorn.log"
        with log.open("wb") as output:
            config = str(REPO / "deploy" / "gunicorn.conf.py")
            command = [python, "-m", "gunicorn", "-c", config, "pragmatikos.wsgi"]
            process = subprocess.Popen(command, cwd=cwd, env=environment, stdout=output, stderr=subprocess.STDOUT)
            try:
                deadline = time.monotonic() + 30
                while True:
                    assert process.poll() is None, log.read_text(errors="replace")[-3000:]
                    try:
                        probe = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
                        probe.request("GET", "/static/pragmatikos.css", headers={"Host": "localhost"})
                        probe.getresponse().read()
                        probe.close()
                        break
                    except OSError:
                        assert time.monotonic() < deadline, "gunicorn did not answer within 30 s"
                        time.sleep(0.2)
                yield port, log
            finally:
                stop(process)
