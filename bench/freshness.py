"""Freshness benchmark: from a contribution's POST to the board that counts it, through the API and a real worker.

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/pragmatikos REDIS_URL=redis://127.0.0.1:6379/0 \
        .venv/bin/python bench/freshness.py [--cycles 1000000]

Loads N generated cycles into a scratch database (<name>_bench_freshness, dropped at the end) with COPY (bench/
recompute.py's pool, the cells' triggers included), times one PostgreSQL GROUP BY of the modelCombo sums (the
baseline every ratio divides by), then runs `manage.py recompute` as an operator would (its time from spawn to
exit, and the snapshot's own compute time). Then it starts the processes a user meets: gunicorn as deployed
(deploy/gunicorn.conf.py) behind Caddy (deploy/Caddyfile, TLS on localhost) and a Celery worker (prefork, one
child, as deployed), waits until the worker is idle and no new snapshot has appeared for --settle seconds, POSTs
10 cycles from a new install to /api/v1/contributions over HTTPS through Caddy, and polls /api/v1/pool.json until
a snapshot that read them is served (their points, counts and order) and until one with their intervals is (meta
"intervals" not "pending").
"""

import argparse
import http.client
import json
import os
import ssl
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psycopg
import redis

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.recompute import best_group_by, generate  # noqa: E402
from bench.scratch import deployed_gunicorn, recreate_database, server_environment, tear_down, with_database  # noqa: E402
from tests.caddy import LocalhostHTTPS, start_caddy, wait_for_tls  # noqa: E402

POLL_SECONDS = 0.05
CONTRIBUTED_ROWS = 10


def manage(env: dict[str, str], *args: str) -> float:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "manage.py", *args], cwd=REPO, env=env, capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"manage.py {' '.join(args)} failed:\n{done.stderr[-4000:]}")
    return time.perf_counter() - started


class Api:
    """One keep-alive HTTPS connection to Caddy (deploy/Caddyfile) in front of the gunicorn under test."""

    def __init__(self, port: int, tls: ssl.SSLContext) -> None:
        self.port, self.tls = port, tls
        self.conn = self.connect()

    def connect(self) -> http.client.HTTPConnection:
        return LocalhostHTTPS("127.0.0.1", self.port, timeout=30, context=self.tls)

    def request(self, method: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, bytes]:
        headers = {"Host": "localhost"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        try:
            self.conn.request(method, path, body=data, headers=headers)
            response = self.conn.getresponse()
        except (OSError, http.client.HTTPException):
            self.conn.close()
            self.conn = self.connect()
            return 0, b""
        return response.status, response.read()

    def pool_meta(self) -> dict[str, Any] | None:
        status, body = self.request("GET", "/api/v1/pool.json")
        return json.loads(body)["meta"] if status == 200 else None


def start_worker(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "celery", "-A", "pragmatikos", "worker", "--pool", "prefork"]
    with log.open("wb") as output:
        return subprocess.Popen(
            [*command, "--concurrency", "1", "--loglevel", "INFO"],
            cwd=REPO,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
        )


def worker_idle(redis_url: str) -> bool:
    """No task queued, and none started without having ended (the worker's log lines)."""
    return int(redis.Redis.from_url(redis_url).llen("celery")) == 0


def settle(api: Api, redis_url: str, log: Path, quiet: float) -> dict[str, Any]:
    """Wait until the worker has taken every queued task and ended it, and no new snapshot has been served for
    `quiet` seconds: the worker's export and window warming for the recompute's snapshot are done."""
    last, since = None, time.monotonic()
    while True:
        meta = api.pool_meta()
        text = log.read_text(errors="replace")
        busy = text.count("] received") > text.count("] succeeded") + text.count("] raised")
        snapshot = meta["snapshot"] if meta else None
        if snapshot != last or busy or not worker_idle(redis_url):
            last, since = snapshot, time.monotonic()
        elif meta is not None and time.monotonic() - since >= quiet:
            return meta
        time.sleep(0.2)


def contribute_and_watch(api: Api, before: dict[str, Any], timeout: float) -> tuple[float, float, float, int]:
    """POST 10 cycles of a new install; seconds to the 202, to the first pool.json that read them, and to the
    first one with their intervals; and the judged cycles the board gained."""
    from tests.cycles.wire import envelope

    body = envelope(CONTRIBUTED_ROWS, install=uuid.uuid4())
    started = time.perf_counter()
    status, answer = api.request("POST", "/api/v1/contributions", body)
    answered = time.perf_counter() - started
    if status != 202:
        sys.exit(f"the contribution was refused: {status} {answer[:500]!r}")
    points = intervals = None
    meta = before
    while intervals is None and time.perf_counter() - started < timeout:
        meta = api.pool_meta() or before
        if meta["snapshot"] != before["snapshot"]:
            now = time.perf_counter() - started
            points = now if points is None else points
            if meta.get("intervals", "ok") != "pending":
                intervals = now
        time.sleep(POLL_SECONDS)
    if points is None or intervals is None:
        sys.exit(f"the contribution was not on the board within {timeout:.0f} s")
    return answered, points, intervals, int(meta["judged"]) - int(before["judged"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=1_000_000)
    parser.add_argument("--contributors", type=int, help="default: one per 2,500 cycles, as bench/recompute.py")
    parser.add_argument("--settle", type=float, default=15.0, help="seconds without a new snapshot before the POST")
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    contributors = args.contributors or max(1, args.cycles // 2500)
    base_url = os.environ.get("DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/pragmatikos")
    redis_url = os.environ.get("REDIS_URL")
    if not redis_url:
        sys.exit("set REDIS_URL: the worker takes its tasks from Redis")
    scratch = f"{urlsplit(base_url).path.lstrip('/') or 'pragmatikos'}_bench_freshness"
    scratch_url = with_database(base_url, scratch)
    recreate_database(base_url, scratch)
    redis.Redis.from_url(redis_url).flushdb()
    # Contributions from one loopback address: the ingest's per-address limit is not what is measured.
    env = server_environment(
        scratch_url,
        redis_url,
        name="freshness",
        INGEST_RATE_PER_ADDRESS="100000/hour",
        ALLOWED_HOSTS="localhost",
        BEHIND_TLS_PROXY="1",
    )
    folder = Path(tempfile.mkdtemp(prefix="bench-freshness-"))
    log = folder / "worker.log"
    processes: list[subprocess.Popen[bytes] | None] = []
    try:
        manage(env, "migrate", "-v0")
        with psycopg.connect(scratch_url) as conn:
            started = time.perf_counter()
            generate(conn, args.cycles, contributors, args.seed)
            print(f"generated {args.cycles:,} cycles from {contributors:,} contributors (COPY) in "
                  f"{time.perf_counter() - started:.1f} s")  # fmt: skip
            conn.execute("ANALYZE")
            conn.commit()
            baseline = best_group_by(conn)
        recompute_seconds = manage(env, "recompute", "--force")
        with psycopg.connect(scratch_url) as conn:
            row = conn.execute("SELECT compute_seconds FROM leaderboard_snapshot ORDER BY id DESC LIMIT 1").fetchone()
        compute = float(row[0]) if row and row[0] is not None else float("nan")
        web, port = deployed_gunicorn(env)
        processes.append(web)
        caddy = start_caddy(folder, port)
        processes.append(caddy.process)
        api = Api(caddy.https_port, wait_for_tls(caddy))
        processes.append(start_worker(env, log))
        before = settle(api, redis_url, log, args.settle)
        answered, points, intervals, gained = contribute_and_watch(api, before, args.timeout)
        print(f"PostgreSQL GROUP BY, modelCombo sums (baseline):       {baseline:7.2f} s  (best of 3)")
        print(
            f"manage.py recompute --force, spawn to exit:             {recompute_seconds:7.2f} s  "
            f"= {recompute_seconds / baseline:5.1f}x GROUP BY"
        )
        print(
            f"  of which read to published (the snapshot's own time):{compute:7.2f} s  "
            f"= {compute / baseline:5.1f}x GROUP BY; the rest is the process's start and exit"
        )
        print(f"POST of {CONTRIBUTED_ROWS} cycles from a new install, to its 202:         {answered:7.2f} s")
        print(
            f"POST -> first pool.json counting them (points):         {points:7.2f} s  "
            f"= {points / baseline:5.1f}x GROUP BY (goal <= 3 s at 1M, <= 10 s at 10M)"
        )
        print(
            f"POST -> first pool.json with their intervals:           {intervals:7.2f} s  "
            f"= {intervals / baseline:5.1f}x GROUP BY (goal <= 30 s at 1M, <= 60 s at 10M)"
        )
        print(f"  judged cycles the board gained: {gained}")
        print(
            "  each POST figure includes: Caddy's TLS and proxying both ways (one kept-alive connection), the API's "
            "checks and COPY (the cells' triggers), the commit's queueing "
            "of a recompute, the warm worker taking it, reading the cells, scoring, publishing, and gunicorn "
            "serving the new snapshot (each web process looks again within 1 s); polled every "
            f"{POLL_SECONDS * 1000:.0f} ms"
        )
    finally:
        tear_down(processes, redis_url=redis_url, admin_url=base_url, database=scratch, folders=[folder])


if __name__ == "__main__":
    main()
