"""Process start benchmark: how long each of the service's processes takes before it can work.

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/pragmatikos REDIS_URL=redis://127.0.0.1:6379/0 \
        .venv/bin/python bench/startup.py [--runs 5]

Over a scratch database (<name>_bench_startup, dropped at the end) it times, from the process's spawn:
`manage.py check` to its exit (Django set up, every URL and view imported), `manage.py recompute` to its exit on an
unchanged, empty pool (the command's own start, the engine's import and one look at the pool), a gunicorn worker
(deploy/gunicorn.conf.py, one worker) to its first 200 on /healthz, and a Celery worker (prefork, one child, as
deployed) to its first answer to a ping: the worker imports the engine before it says it is ready, so a
contribution's recompute finds it warm. Each is the best and the median of --runs starts; the goal is 1.5 s for
a command or a web process. It also says which heavy packages `manage.py check` imported (from -X importtime).
First it compiles the bytecode of the virtualenv's packages and of the checkout, as pip does at install
(deploy/install.sh) and make: where none is written (PYTHONDONTWRITEBYTECODE, a virtualenv synced without it) every
process would compile what it imports, about 1.4 s more for `manage.py check` on a 2-core machine.
"""

import argparse
import http.client
import os
import statistics
import subprocess
import sys
import sysconfig
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.scratch import drop_database, recreate_database, server_environment, with_database  # noqa: E402
from tests.ports import free_port  # noqa: E402

HEAVY = ("scipy", "pandas", "statsmodels", "genai_prices")
PYTHON = sys.executable


def manage_seconds(env: dict[str, str], *args: str) -> float:
    started = time.perf_counter()
    subprocess.run([PYTHON, "manage.py", *args], cwd=REPO, env=env, check=True, capture_output=True)
    return time.perf_counter() - started


def heavy_imports(env: dict[str, str]) -> list[str]:
    """The heavy packages `manage.py check` imports, by -X importtime's top-level lines."""
    done = subprocess.run(
        [PYTHON, "-X", "importtime", "manage.py", "check"], cwd=REPO, env=env, check=True, capture_output=True
    )
    names = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.decode().splitlines() if "|" in line}
    return [name for name in HEAVY if name in names]


def gunicorn_seconds(env: dict[str, str]) -> float:
    port = free_port()
    config = str(REPO / "deploy" / "gunicorn.conf.py")
    started = time.perf_counter()
    process = subprocess.Popen(
        [PYTHON, "-m", "gunicorn", "-c", config, "pragmatikos.wsgi"],
        cwd=REPO,
        env={**env, "GUNICORN_BIND": f"127.0.0.1:{port}", "WEB_WORKERS": "1"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        while True:
            if process.poll() is not None:
                sys.exit("gunicorn exited at start")
            try:
                probe = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                probe.request("GET", "/healthz", headers={"Host": "127.0.0.1"})
                if probe.getresponse().status == 200:
                    return time.perf_counter() - started
            except OSError:
                time.sleep(0.02)
    finally:
        process.terminate()
        process.wait(timeout=30)


def celery_seconds(env: dict[str, str]) -> float:
    from celery import Celery

    app = Celery(broker=env["REDIS_URL"])
    name = f"bench-startup-{os.getpid()}-{time.monotonic_ns()}@localhost"
    started = time.perf_counter()
    command = [PYTHON, "-m", "celery", "-A", "pragmatikos", "worker", "--pool", "prefork", "--concurrency", "1"]
    process = subprocess.Popen(
        [*command, "--hostname", name, "--loglevel", "WARNING"],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        while not app.control.ping(destination=[name], timeout=0.1):
            if process.poll() is not None:
                sys.exit("the Celery worker exited at start")
        return time.perf_counter() - started
    finally:
        process.terminate()
        process.wait(timeout=60)


def figures(seconds: Callable[[], float], runs: int) -> tuple[float, float]:
    times = [seconds() for _ in range(runs)]
    return min(times), statistics.median(times)


# The checkout's packages, beside the virtualenv's.
PACKAGES = ("contract", "core", "ingest", "lab", "leaderboard", "pages", "pragmatikos", "recorder", "scoring")


def compile_bytecode() -> float:
    """Seconds to write the bytecode an install writes (nothing is rewritten that is up to date)."""
    started = time.perf_counter()
    paths = [sysconfig.get_paths()["purelib"], *(str(REPO / package) for package in PACKAGES)]
    subprocess.run([sys.executable, "-m", "compileall", "-q", "-j", "0", *paths], check=False, capture_output=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    base_url = os.environ.get("DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/pragmatikos")
    redis_url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    scratch = f"{urlsplit(base_url).path.lstrip('/') or 'pragmatikos'}_bench_startup"
    recreate_database(base_url, scratch)
    env = server_environment(with_database(base_url, scratch), redis_url, name="startup")
    print(f"bytecode compiled first, as an install does: {compile_bytecode():.1f} s")
    try:
        manage_seconds(env, "migrate", "-v0")
        manage_seconds(env, "recompute")  # the first publishes the empty pool; the rest find it unchanged
        print(f"heavy packages `manage.py check` imports: {', '.join(heavy_imports(env)) or 'none'}")
        for what, seconds in (
            ("manage.py check, spawn to exit", lambda: manage_seconds(env, "check")),
            ("manage.py recompute, unchanged pool, spawn to exit", lambda: manage_seconds(env, "recompute")),
            ("gunicorn worker, spawn to the first /healthz 200", lambda: gunicorn_seconds(env)),
            ("Celery worker (engine imported), spawn to ready", lambda: celery_seconds(env)),
        ):
            best, median = figures(seconds, args.runs)
            print(f"{what + ':':55s} best {best:5.2f} s, median {median:5.2f} s (of {args.runs})")
    finally:
        drop_database(base_url, scratch)


if __name__ == "__main__":
    main()
