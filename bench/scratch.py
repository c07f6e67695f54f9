"""What the benchmarks share: a scratch database and a gunicorn serving it on loopback."""

from __future__ import annotations

import argparse
import http.client
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO, TypeVar
from urllib.parse import urlsplit, urlunsplit

import psycopg
import redis
from psycopg import sql

from tests.ports import free_port

REPO = Path(__file__).resolve().parent.parent
T = TypeVar("T")


def seconds_of(call: Callable[[], T]) -> tuple[T, float]:
    """What the call returned, and the wall-clock seconds it took."""
    started = time.perf_counter()
    result = call()
    return result, time.perf_counter() - started


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + name, parts.query, parts.fragment))


def drop_database(admin_url: str, name: str) -> None:
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def recreate_database(admin_url: str, name: str) -> None:
    drop_database(admin_url, name)
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def server_environment(database_url: str, redis_url: str, *, name: str, **extra: str) -> dict[str, str]:
    """The environment of a production-like server on scratch data (keys made up for the run)."""
    env = dict(os.environ)
    env.update(
        {
            "DATABASE_URL": database_url,
            "REDIS_URL": redis_url,
            "SECRET_KEY": f"bench-{name}-scratch-key",
            "INSTALL_HASH_KEY": f"bench-{name}-scratch-hash-key",
            "DEBUG": "0",
            "ALLOWED_HOSTS": "127.0.0.1",
            "LOG_LEVEL": "WARNING",
            **extra,
        }
    )
    return env


def bench_redis_url(parser: argparse.ArgumentParser) -> str:
    """The Redis database a benchmark may flush: BENCH_REDIS_URL, else REDIS_URL; an error naming them without."""
    url = os.environ.get("BENCH_REDIS_URL") or os.environ.get("REDIS_URL")
    if not url:
        parser.error("set BENCH_REDIS_URL (or REDIS_URL) to a Redis database of your own; it is flushed")
    return url


def start_gunicorn(
    env: dict[str, str], *, workers: int, ready_path: str, extra: tuple[str, ...] = ()
) -> tuple[subprocess.Popen[bytes], int]:
    """gunicorn on a free loopback port, once ready_path answers 200; the caller terminates it."""
    port = free_port()
    gunicorn = str(Path(sys.executable).with_name("gunicorn"))
    command = [gunicorn, "pragmatikos.wsgi:application", "-w", str(workers), "-b", f"127.0.0.1:{port}", "-t", "120"]
    command += extra
    log = tempfile.TemporaryFile()  # noqa: SIM115 - open as long as the server writes to it
    server = subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=log)
    return _when_ready(server, port, ready_path, log), port


def deployed_gunicorn(env: dict[str, str], *, ready_path: str = "/healthz") -> tuple[subprocess.Popen[bytes], int]:
    """gunicorn as deployed (deploy/gunicorn.conf.py) on a free loopback port, once ready_path answers 200."""
    port = free_port()
    config = str(REPO / "deploy" / "gunicorn.conf.py")
    log = tempfile.TemporaryFile()  # noqa: SIM115 - open as long as the server writes to it
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", config, "pragmatikos.wsgi"],
        cwd=REPO,
        env={**env, "GUNICORN_BIND": f"127.0.0.1:{port}"},
        stdout=subprocess.DEVNULL,
        stderr=log,
    )
    return _when_ready(server, port, ready_path, log), port


def _when_ready(server: subprocess.Popen[bytes], port: int, ready_path: str, log: IO[bytes]) -> subprocess.Popen[bytes]:
    """The server once ready_path answers 200. Its log goes to a file, not a pipe nobody reads (a full pipe would
    stop its workers mid-run); the file's end is shown when it exits before it is ready."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            log.seek(0)
            raise RuntimeError("gunicorn exited: " + log.read().decode(errors="replace")[-4000:])
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        try:
            conn.request("GET", ready_path, headers={"Host": "127.0.0.1"})
            if conn.getresponse().status == 200:
                return server
        except OSError:
            pass
        finally:
            conn.close()
        time.sleep(0.2)
    server.terminate()
    raise RuntimeError("gunicorn did not answer within 60 s")


def tear_down(
    processes: Iterable[subprocess.Popen[bytes] | None],
    *,
    redis_url: str,
    admin_url: str,
    database: str | None,
    folders: Iterable[Path] = (),
) -> None:
    """Stops the run's servers, then empties its Redis database and drops its scratch database (unless
    None: kept for a look) and folders."""
    for process in processes:
        if process is not None:
            process.terminate()
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                # A worker still busy (a cycles export at ten million rows) finishes its task before a warm
                # shutdown: the run is over, so it is stopped.
                process.kill()
                process.wait()
    redis.Redis.from_url(redis_url).flushdb()
    if database is not None:
        drop_database(admin_url, database)
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)
