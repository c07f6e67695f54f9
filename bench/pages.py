"""Pages benchmark: the leaderboard and a comparison against static files of the same size.

Starts gunicorn on a free loopback port over a scratch database holding the demo pool,
then, in the same run and against the same server, drives bounded concurrent clients at
`/` and `/compare/?...` and at two static files (served by WhiteNoise) whose sizes equal
those two pages. Prints both throughputs, their ratio (goal: pages >= 0.5 of static) and
the p50/p99 latencies.

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/pragmatikos .venv/bin/python bench/pages.py

Only loopback is used. The Redis database of BENCH_REDIS_URL (default db 12) is the
bench's own: it is flushed before and after the run. The static copies are written under
staticfiles/bench/ (git-ignored) and removed afterwards.
"""

from __future__ import annotations

import argparse
import csv
import http.client
import io
import os
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

import redis

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench import scratch  # noqa: E402

SCRATCH_DATABASE = "pragmatikos_bench_pages"
STATIC_COPIES = REPO / "staticfiles" / "bench"
GOAL = 0.5


def manage(env: dict[str, str], *args: str) -> None:
    subprocess.run([sys.executable, "manage.py", *args], cwd=REPO, env=env, check=True, stdout=subprocess.DEVNULL)


def start_server(env: dict[str, str], workers: int) -> tuple[subprocess.Popen[bytes], int]:
    return scratch.start_gunicorn(env, workers=workers, ready_path="/methodology/")


def fetch(port: int, path: str, conn: http.client.HTTPConnection | None = None) -> tuple[int, bytes]:
    own = conn or http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        own.request("GET", path)
        response = own.getresponse()
        return response.status, response.read()
    finally:
        if conn is None:
            own.close()


@dataclass
class Phase:
    name: str
    paths: list[str]
    latencies: list[float] = field(default_factory=list)
    bytes_read: int = 0
    errors: int = 0
    seconds: float = 0.0

    @property
    def requests(self) -> int:
        return len(self.latencies)

    @property
    def rate(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    def percentile(self, share: float) -> float:
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(share * len(ordered)))] * 1000 if ordered else float("nan")


def drive(port: int, phase: Phase, *, clients: int, seconds: float) -> Phase:
    """`clients` threads, each one request at a time on its own connection, for `seconds`."""
    lock = threading.Lock()
    stop_at = time.perf_counter() + seconds

    def client(offset: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        latencies: list[float] = []
        read = errors = 0
        index = offset
        while time.perf_counter() < stop_at:
            path = phase.paths[index % len(phase.paths)]
            index += 1
            started = time.perf_counter()
            try:
                status, body = fetch(port, path, conn)
            except (OSError, http.client.HTTPException):
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                errors += 1
                continue
            latencies.append(time.perf_counter() - started)
            read += len(body)
            errors += status != 200
        conn.close()
        with lock:
            phase.latencies.extend(latencies)
            phase.bytes_read += read
            phase.errors += errors

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    phase.seconds = time.perf_counter() - started
    return phase


def compare_path(port: int) -> str:
    """The comparison of the demo's two best pairings, read from the rankings download."""
    status, body = fetch(port, "/data/rankings.csv?view=modelCombo")
    if status != 200:
        raise RuntimeError(f"/data/rankings.csv answered {status}")
    rows = list(csv.DictReader(io.StringIO(body.decode())))
    return "/compare/?" + urlencode({"view": "modelCombo", "a": rows[0]["label"], "b": rows[1]["label"]})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=8, help="concurrent client connections")
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each phase")
    parser.add_argument("--workers", type=int, default=(os.cpu_count() or 2) * 2, help="gunicorn workers")
    parser.add_argument("--cycles", type=int, default=3000, help="size of the demo pool")
    parser.add_argument("--keep", action="store_true", help="keep the scratch database afterwards")
    args = parser.parse_args()

    admin_url = os.environ.get("DATABASE_URL") or "postgresql://postgres@127.0.0.1:5432/pragmatikos"
    redis_url = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/12")
    env = scratch.server_environment(scratch.with_database(admin_url, SCRATCH_DATABASE), redis_url, name="pages")
    server = None
    try:
        scratch.recreate_database(admin_url, SCRATCH_DATABASE)
        redis.Redis.from_url(redis_url).flushdb()
        manage(env, "migrate", "--no-input", "-v", "0")
        manage(env, "load_demo", "--cycles", str(args.cycles))
        manage(env, "collectstatic", "--no-input", "-v", "0")

        # A first server renders the two pages once to learn their sizes; the static copies
        # must exist before the measuring server starts, since WhiteNoise indexes files at startup.
        server, port = start_server(env, 1)
        page_paths = ["/", compare_path(port)]
        sizes = [len(fetch(port, path)[1]) for path in page_paths]
        server.terminate()
        server.wait(timeout=30)
        STATIC_COPIES.mkdir(parents=True, exist_ok=True)
        static_paths = []
        for index, size in enumerate(sizes):
            name = f"page-{index}.html"
            (STATIC_COPIES / name).write_bytes(b"x" * size)
            static_paths.append(f"/static/bench/{name}")

        server, port = start_server(env, args.workers)
        for path in page_paths + static_paths:  # warm: fill the page cache in every worker's reach
            for _ in range(args.workers * 2):
                status, _ = fetch(port, path)
                if status != 200:
                    raise RuntimeError(f"{path} answered {status}")
        pages = drive(port, Phase("pages", page_paths), clients=args.clients, seconds=args.seconds)
        static = drive(port, Phase("static", static_paths), clients=args.clients, seconds=args.seconds)
    finally:
        scratch.tear_down(
            [server],
            redis_url=redis_url,
            admin_url=admin_url,
            database=None if args.keep else SCRATCH_DATABASE,
            folders=[STATIC_COPIES],
        )

    print(f"pages {page_paths[0]} and {page_paths[1][:60]}...: {sizes[0]:,} and {sizes[1]:,} bytes")
    setup = f"gunicorn {args.workers} sync workers, {args.clients} clients, {args.seconds:.0f} s per phase"
    print(f"{setup}, {os.cpu_count()} CPUs")
    for phase in (pages, static):
        print(
            f"{phase.name:6} {phase.rate:8,.0f} req/s  {phase.bytes_read / phase.seconds / 1e6:6.1f} MB/s  "
            f"p50 {phase.percentile(0.50):6.1f} ms  p99 {phase.percentile(0.99):6.1f} ms  "
            f"({phase.requests} requests, {phase.errors} errors)"
        )
    ratio = pages.rate / static.rate if static.rate else 0.0
    print(f"ratio {ratio:.2f} of static (goal >= {GOAL}: {'met' if ratio >= GOAL else 'NOT met'})")
    print(f"mean page latency {statistics.fmean(pages.latencies) * 1000:.1f} ms")
    return 0 if pages.errors == 0 and static.errors == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
