"""Windows benchmark: ordinary readers of the preset windows while clients from many /64s ask for new ones.

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/pragmatikos BENCH_REDIS_URL=redis://127.0.0.1:6379/N \
        .venv/bin/python bench/windows.py [--seconds 40]

Production-like: gunicorn with deploy/gunicorn.conf.py (gthread) behind a pretend TLS proxy
(BEHIND_TLS_PROXY=1: each client's address is the X-Forwarded-For it sends) and a Celery worker
(prefork, one child, as deployed), over a scratch database (`<name>_bench_windows`, recreated at the
start, dropped at the end) of generated cycles spread over the last 120 days and two harnesses.
Two phases of --seconds each, on loopback only:

  * normal: READERS threads, each from its own address, read `/`, `/?window=90`, `/?window=30` and
    `/?harness=opencode` (the preset windows and a lens), while one contributor sends a small
    contribution every 3 s (RECOMPUTE_MIN_INTERVAL=2, so each one publishes a new snapshot);
  * windows: the same, and beside it WINDOWERS clients, each from its own IPv6 /64, asking for new custom
    windows one after another, reloading 0.5 s after a 503 as the page asks.

Prints per phase the preset pages' statuses, the readers' p50/p99 for `/` and for every page they read
(each figure is one request's wall time at the client, including the 503/429 answers), the ratio of the
windows phase's page p99 to the normal one's (goal: <= 3x, and every preset page 200), the snapshots
published, and the web workers' peak resident memory (VmHWM, the largest of the workers).

The Redis database of BENCH_REDIS_URL (default: REDIS_URL) is flushed before and after the run.
"""

from __future__ import annotations

import argparse
import datetime as dt
import http.client
import json
import os
import random
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import psycopg
import redis

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench import scratch  # noqa: E402
from bench.downloads import load_cycles, manage  # noqa: E402
from bench.load_ledger import newest_snapshot_id, start_worker  # noqa: E402
from tests.cycles.wire import envelope, wire_cycle  # noqa: E402

PRESETS = ("/?window=90", "/?window=30", "/?harness=opencode")
READ_PATHS = ("/", *PRESETS)
GOAL = 3.0
MAX_REQUESTS_PER_THREAD = 20_000
SPREAD_DAYS = 120


@dataclass
class Phase:
    name: str
    seconds: float
    windowers: int
    latencies: dict[str, list[float]] = field(default_factory=dict)
    statuses: dict[str, Counter[int]] = field(default_factory=dict)
    windower_statuses: Counter[int] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, path: str, status: int, seconds: float) -> None:
        with self.lock:
            self.latencies.setdefault(path, []).append(seconds)
            self.statuses.setdefault(path, Counter())[status] += 1

    def p(self, share: float, paths: tuple[str, ...] = READ_PATHS) -> float:
        ordered = sorted(s for path in paths for s in self.latencies.get(path, []))
        return ordered[min(len(ordered) - 1, int(share * len(ordered)))] * 1000 if ordered else float("nan")


def get(conn: http.client.HTTPConnection, path: str, address: str) -> int:
    conn.request("GET", path, headers={"X-Forwarded-For": address, "X-Forwarded-Proto": "https"})
    response = conn.getresponse()
    response.read()
    return response.status


def get_or_reconnect(
    conn: http.client.HTTPConnection, path: str, address: str
) -> tuple[int, http.client.HTTPConnection]:
    """GET's status (0 when the connection failed), and the connection to use next: a new one after a failure."""
    try:
        return get(conn, path, address), conn
    except (OSError, http.client.HTTPException):
        conn.close()
        return 0, http.client.HTTPConnection(conn.host, conn.port, timeout=60)


def reader(port: int, phase: Phase, stop_at: float, address: str) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    for index in range(MAX_REQUESTS_PER_THREAD):
        if time.perf_counter() >= stop_at:
            break
        path = READ_PATHS[index % len(READ_PATHS)]
        started = time.perf_counter()
        status, conn = get_or_reconnect(conn, path, address)
        phase.record(path, status, time.perf_counter() - started)
        time.sleep(0.05)
    conn.close()


def windower(port: int, phase: Phase, stop_at: float, number: int) -> None:
    """New custom windows from one /64, each address in it new; after a 503, the same window again."""
    rng = random.Random(number)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    today = dt.date.today()
    path = ""
    for index in range(MAX_REQUESTS_PER_THREAD):
        if time.perf_counter() >= stop_at:
            break
        if not path:
            since = today - dt.timedelta(days=rng.randint(10, SPREAD_DAYS))
            until = min(since + dt.timedelta(days=rng.randint(3, 40)), today)
            path = f"/?window=custom&since={since}&until={until}"
        address = f"2001:db8:{number:x}:0:{index:x}::1"
        status, conn = get_or_reconnect(conn, path, address)
        with phase.lock:
            phase.windower_statuses[status] += 1
        if status == 503:
            time.sleep(0.5)
        else:
            path = ""
        if status == 429:
            time.sleep(0.5)
    conn.close()


def contributor(port: int, stop_at: float, sent: list[int]) -> None:
    """A small contribution from a fresh install every 3 s: each one moves the pool, so each publishes."""
    today = dt.date.today().isoformat()
    for index in range(MAX_REQUESTS_PER_THREAD):
        if time.perf_counter() >= stop_at:
            break
        rows = [wire_cycle(index * 3 + i, day=today) for i in range(3)]
        body = json.dumps(envelope(rows, install=uuid.uuid4())).encode()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        try:
            headers = {"Content-Type": "application/json", "X-Forwarded-For": "192.0.2.1", "X-Forwarded-Proto": "https"}
            conn.request("POST", "/api/v1/contributions", body=body, headers=headers)
            response = conn.getresponse()
            response.read()
            sent.append(response.status)
        except (OSError, http.client.HTTPException):
            sent.append(0)
        finally:
            conn.close()
        time.sleep(3)


def web_peak_rss_mb(server_pid: int) -> float:
    """The largest peak resident memory (VmHWM) of the gunicorn master's worker processes, in MB."""
    children = Path(f"/proc/{server_pid}/task/{server_pid}/children").read_text().split()
    peaks = []
    for pid in children:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                peaks.append(int(line.split()[1]) / 1024)
    return max(peaks, default=0.0)


def run_phase(port: int, phase: Phase, readers: int) -> list[int]:
    stop_at = time.perf_counter() + phase.seconds
    sent: list[int] = []
    threads = [threading.Thread(target=contributor, args=(port, stop_at, sent))]
    threads += [
        threading.Thread(target=reader, args=(port, phase, stop_at, f"198.51.100.{i + 1}")) for i in range(readers)
    ]
    threads += [threading.Thread(target=windower, args=(port, phase, stop_at, i + 1)) for i in range(phase.windowers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sent


def wait_for_presets(port: int, seconds: float) -> None:
    """Until every preset page of the first snapshot answers 200 (the worker has warmed them)."""
    deadline = time.monotonic() + seconds
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    while time.monotonic() < deadline:
        if all(get(conn, path, "203.0.113.9") == 200 for path in PRESETS):
            return
        time.sleep(1)
    raise RuntimeError("the preset pages did not answer 200 within the wait")


def seed(scratch_url: str, cycles: int) -> None:
    """Generated cycles, moved into the last SPREAD_DAYS days and split over two harnesses."""
    load_cycles(scratch_url, cycles, contributors=60)
    with psycopg.connect(scratch_url) as conn:
        conn.execute(
            "UPDATE ingest_cycle SET day = current_date - (id %% %s)::int, "
            "harness = CASE WHEN id %% 3 = 0 THEN 'claude-code' ELSE 'opencode' END",
            (SPREAD_DAYS,),
        )
        conn.commit()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=40.0, help="length of each phase")
    parser.add_argument("--readers", type=int, default=4)
    parser.add_argument("--windowers", type=int, default=6, help="clients from distinct /64s asking for new windows")
    parser.add_argument("--cycles", type=int, default=30_000, help="generated cycles loaded before the run")
    parser.add_argument("--resamples", type=int, default=100, help="bootstrap resamples of each computation")
    args = parser.parse_args()

    admin_url = os.environ.get("DATABASE_URL") or "postgresql://postgres@127.0.0.1:5432/pragmatikos"
    redis_url = scratch.bench_redis_url(parser)
    scratch_name = f"{urlsplit(admin_url).path.lstrip('/') or 'pragmatikos'}_bench_windows"
    scratch_url = scratch.with_database(admin_url, scratch_name)
    workdir = Path(tempfile.mkdtemp(prefix="pragmatikos-bench-windows-"))
    env = scratch.server_environment(
        scratch_url,
        redis_url,
        name="windows",
        EXPORT_DIR=str(workdir / "exports"),
        SCORING_RESAMPLES=str(args.resamples),
        INGEST_RATE_PER_ADDRESS="1000000/hour",
        RECOMPUTE_MIN_INTERVAL="2",
        BEHIND_TLS_PROXY="1",
        ALLOWED_HOSTS="127.0.0.1,localhost",
    )
    server = worker = None
    phases = [Phase("normal", args.seconds, 0), Phase("windows", args.seconds, args.windowers)]
    published: list[int] = []
    contributions: list[list[int]] = []
    peaks: list[float] = []
    try:
        scratch.recreate_database(admin_url, scratch_name)
        redis.Redis.from_url(redis_url).flushdb()
        manage(env, "migrate", "--no-input", "-v", "0")
        seed(scratch_url, args.cycles)
        manage(env, "recompute", "--force")
        manage(env, "collectstatic", "--no-input", "-v", "0")
        config = ("-c", str(REPO / "deploy" / "gunicorn.conf.py"), "--error-logfile", str(workdir / "gunicorn.log"))
        server, port = scratch.start_gunicorn(env, workers=2, ready_path="/methodology/", extra=config)
        worker = start_worker({**env, "LOG_LEVEL": "INFO"}, workdir / "worker.log")
        wait_for_presets(port, 300)
        for phase in phases:
            with psycopg.connect(scratch_url) as conn:
                before = newest_snapshot_id(conn)
            contributions.append(run_phase(port, phase, args.readers))
            with psycopg.connect(scratch_url) as conn:
                published.append(newest_snapshot_id(conn) - before)
            peaks.append(web_peak_rss_mb(server.pid))
    finally:
        scratch.tear_down([worker, server], redis_url=redis_url, admin_url=admin_url, database=scratch_name)

    print(f"{args.cycles:,} cycles over {SPREAD_DAYS} days, {args.resamples} resamples, {args.readers} readers, "
          f"{args.windowers} windowers, {args.seconds:.0f} s per phase, {os.cpu_count()} CPUs")  # fmt: skip
    for phase, count, sent, peak in zip(phases, published, contributions, peaks, strict=True):
        print(f"-- {phase.name}: {count} snapshots published, contributions {dict(Counter(sent))}, "
              f"web peak RSS {peak:.0f} MB")  # fmt: skip
        for path in READ_PATHS:
            print(f"   {path:22} {dict(sorted(phase.statuses.get(path, Counter()).items()))}  "
                  f"p50 {phase.p(0.5, (path,)):7.1f} ms  p99 {phase.p(0.99, (path,)):7.1f} ms")  # fmt: skip
        print(f"   every page read        p50 {phase.p(0.5):7.1f} ms  p99 {phase.p(0.99):7.1f} ms")
        if phase.windowers:
            print(f"   windowers' answers     {dict(sorted(phase.windower_statuses.items()))}")
    normal, windows = phases
    ratio = windows.p(0.99) / normal.p(0.99)
    front = windows.p(0.99, ("/",)) / normal.p(0.99, ("/",))
    not_200 = sum(n for path in PRESETS for status, n in windows.statuses.get(path, Counter()).items() if status != 200)
    print(
        f"page p99 windows/normal: {ratio:.2f}x (goal <= {GOAL}x: {'met' if ratio <= GOAL else 'NOT met'}); "
        f"/ alone {front:.2f}x"
    )
    print(f"preset pages not 200 in the windows phase: {not_200} (goal 0)")
    return 0 if ratio <= GOAL and not_200 == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
