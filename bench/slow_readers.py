"""Slow readers and held uploads through the real proxy: pages while 50 clients read each download at
512 bytes a second, and Caddy's memory while 12 uploads of 64 MiB are held one byte short.

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/pragmatikos BENCH_REDIS_URL=redis://127.0.0.1:6379/N \
        .venv/bin/python bench/slow_readers.py [--cycles 100000] [--hold 30]

Loads N generated cycles into a scratch database of this run's own (dropped at the end), publishes
a snapshot, writes its cycles.csv.gz as the worker does, then runs gunicorn as deployed
(deploy/gunicorn.conf.py: 2 workers of 8 threads) behind deploy/Caddyfile under Debian's caddy, all
on loopback, over HTTPS. In the same run:

  1. pages alone: one page request at a time on a fresh TLS connection (the baseline; each
     figure includes the handshake), for --hold seconds;
  2. for each download (cycles.csv.gz, cycles.csv gzip-encoded and plain, pool.json and a
     rankings.csv), the same probes while 50 clients read it at 512 bytes a second; a probe
     that fails or takes over 10 s counts as 10 s;
  3. Caddy's resident memory before, while 12 uploads announcing 64 MiB are held one byte short,
     and 10 s after they are closed.

Prints each phase's p50/p99 and its p99 over the baseline's (goal: at most 3x), and the memory.
BENCH_REDIS_URL's database (default REDIS_URL's) is flushed before and after: give it one of yours.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import redis

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench import scratch  # noqa: E402
from bench.downloads import load_cycles, manage  # noqa: E402
from tests.caddy import (  # noqa: E402
    SlowReaders,
    held_uploads,
    percentile,
    probe,
    start_caddy,
    stop_caddy,
    wait_for_tls,
)

GOAL_RATIO = 3.0
PAGES = ["/", "/methodology/", "/data/", "/api/v1/stats"]
DOWNLOADS = [
    ("cycles.csv.gz", "/data/cycles.csv.gz", {}),
    ("cycles.csv, gzip-encoded", "/data/cycles.csv", {"Accept-Encoding": "gzip"}),
    ("cycles.csv, plain", "/data/cycles.csv", {}),
    ("pool.json", "/api/v1/pool.json", {}),
    ("rankings.csv", "/data/rankings.csv?view=modelCombo", {}),
]
UPLOAD_BYTES = 64 * 1024 * 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cycles", type=int, default=100_000)
    parser.add_argument("--contributors", type=int, default=200)
    parser.add_argument("--readers", type=int, default=50, help="slow readers per download")
    parser.add_argument("--hold", type=float, default=30.0, help="seconds each phase holds its readers")
    parser.add_argument("--uploads", type=int, default=12, help="uploads of 64 MiB held one byte short")
    parser.add_argument("--only", default="", help="run only the downloads whose name holds this")
    args = parser.parse_args()

    admin_url = os.environ.get("DATABASE_URL") or "postgresql://postgres@127.0.0.1:5432/pragmatikos"
    redis_url = scratch.bench_redis_url(parser)
    scratch_name = f"pragmatikos_bench_slow_{os.getpid()}"
    folder = Path(tempfile.mkdtemp(prefix="pragmatikos-bench-slow-"))
    export_dir = folder / "exports"
    env = scratch.server_environment(
        scratch.with_database(admin_url, scratch_name),
        redis_url,
        name="slow",
        EXPORT_DIR=str(export_dir),
        SCORING_RESAMPLES="50",
        ALLOWED_HOSTS="localhost",
        BEHIND_TLS_PROXY="1",
        EXPORTS_SERVED_BY_PROXY="1",
    )
    server = caddy = None
    try:
        scratch.recreate_database(admin_url, scratch_name)
        redis.Redis.from_url(redis_url).flushdb()
        manage(env, "migrate", "--no-input", "-v", "0")
        load_cycles(scratch.with_database(admin_url, scratch_name), args.cycles, args.contributors)
        manage(env, "recompute", "--force")
        manage(env, "shell", "-c", "from leaderboard import recompute; recompute.export_newest_cycles()")
        size = sum(path.stat().st_size for path in export_dir.iterdir())
        print(f"{args.cycles:,} cycles; cycles.csv.gz {size / 1e6:.1f} MB")
        server, app_port = scratch.deployed_gunicorn(env)
        caddy = start_caddy(folder, app_port, export_dir)
        tls = wait_for_tls(caddy)
        probe(caddy.https_port, tls, PAGES, 3)  # warm: each page built once
        baseline = probe(caddy.https_port, tls, PAGES, args.hold)
        base_p99 = percentile(baseline, 0.99)
        print(f"{'pages alone':38} p50 {percentile(baseline, 0.5) * 1000:7.0f} ms  p99 {base_p99 * 1000:7.0f} ms")
        failed = False
        for name, path, headers in DOWNLOADS:
            if args.only not in name:
                continue
            with SlowReaders(caddy.https_port, tls, path, count=args.readers, headers=headers) as readers:
                time.sleep(3)  # their first bytes are read; the buffers between fill
                timings = probe(caddy.https_port, tls, PAGES, args.hold)
                connected, read = readers.connected, readers.bytes_read
            p99 = percentile(timings, 0.99)
            verdict = "met" if p99 <= GOAL_RATIO * base_p99 else "NOT met"
            failed |= verdict != "met"
            timeouts = sum(seconds >= 10 for seconds in timings)
            print(
                f"{args.readers} slow readers of {name:24} p50 {percentile(timings, 0.5) * 1000:7.0f} ms  "
                f"p99 {p99 * 1000:7.0f} ms  {p99 / base_p99:6.1f}x ({verdict}); {len(timings)} probes, "
                f"{timeouts} at 10 s; {connected} readers connected, {read / 1e3:.0f} kB read"
            )
        if args.uploads:
            before = caddy.rss_bytes()
            held = held_uploads(caddy.https_port, tls, count=args.uploads, size=UPLOAD_BYTES)
            time.sleep(2)
            during = caddy.rss_bytes()
            for upload in held:
                upload.close()
            time.sleep(10)
            after = caddy.rss_bytes()
            print(
                f"caddy RSS: {before / 1e6:.0f} MB before, {during / 1e6:.0f} MB while {args.uploads} uploads of "
                f"64 MiB are held one byte short, {after / 1e6:.0f} MB 10 s after they close"
            )
    finally:
        if caddy is not None:
            stop_caddy(caddy)
        scratch.tear_down([server], redis_url=redis_url, admin_url=admin_url, database=scratch_name, folders=[folder])
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
