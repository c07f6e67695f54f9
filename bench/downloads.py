"""Downloads benchmark: pages while clients download cycles.csv, at a million cycles.

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/pragmatikos REDIS_URL=redis://127.0.0.1:6379/N \
        .venv/bin/python bench/downloads.py [--cycles 1000000]

Loads N generated cycles with COPY into a scratch database of this run's own (named after the
process id, dropped at the end), publishes a snapshot (`manage.py recompute`), writes its
cycles.csv as the worker does (timed), then starts gunicorn on a free loopback port and, in the
same run against the same server, drives page readers at the leaderboard, a pairing, a
comparison, the methodology and rankings.csv:

  1. alone (the baseline),
  2. while DOWNLOADERS clients download /data/cycles.csv.gz (the file, sendfile) back to back.

Prints both phases' p50/p99, the ratio of the p99s and whether the p99 with downloads is
within the goal (200 ms), and the downloads' count and throughput.

Then it times one download of each representation of the cycles, each read whole by one
client on loopback: cycles.csv.gz (the file as written: sendfile, the baseline), cycles.csv to
a client that accepts gzip (the same bytes, Content-Encoding: gzip) and cycles.csv to one that
does not (the file unpacked by the web process while it sends), with the ratio of each to the
first. The last is the one that costs the web process CPU per byte.

The Redis database of BENCH_REDIS_URL (default: REDIS_URL) is flushed before and after the run:
give it one that is yours. The export directory is a temporary one, removed at the end.
"""

from __future__ import annotations

import argparse
import http.client
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import psycopg
import redis

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench import scratch  # noqa: E402
from bench.pages import Phase, compare_path, drive, fetch  # noqa: E402
from bench.recompute import generate  # noqa: E402

GOAL_MS = 200.0


def manage(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=REPO, env=env, check=True, capture_output=True, text=True
    )
    return done.stdout.strip()


def load_cycles(database_url: str, cycles: int, contributors: int) -> None:
    with psycopg.connect(database_url) as conn:
        generate(conn, cycles, contributors, seed=20261130)
        # The export's pseudonyms are c<number>; the generator leaves numbers to ingest.
        conn.execute("UPDATE ingest_contributor SET number = id")
        conn.commit()
        conn.execute("ANALYZE")


class Downloads:
    """Clients downloading cycles.csv back to back until stopped, reading as fast as loopback allows."""

    def __init__(self, port: int, clients: int) -> None:
        self.port = port
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.completed = 0
        self.errors = 0
        self.bytes_read = 0
        self.seconds: list[float] = []
        self.threads = [threading.Thread(target=self.client) for _ in range(clients)]

    def client(self) -> None:
        while not self.stop.is_set():
            started = time.perf_counter()
            read = 0
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
                conn.request("GET", "/data/cycles.csv.gz")
                response = conn.getresponse()
                while chunk := response.read(1 << 20):
                    read += len(chunk)
                ok = response.status == 200 and read == int(response.getheader("Content-Length") or -1)
                conn.close()
            except (OSError, http.client.HTTPException):
                ok = False
            with self.lock:
                self.bytes_read += read
                if ok:
                    self.completed += 1
                    self.seconds.append(time.perf_counter() - started)
                else:
                    self.errors += 1

    def __enter__(self) -> Downloads:
        self.started = time.perf_counter()
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join()
        self.elapsed = time.perf_counter() - self.started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cycles", type=int, default=1_000_000)
    parser.add_argument("--contributors", type=int, default=400)
    parser.add_argument("--downloaders", type=int, default=4, help="clients downloading cycles.csv at once")
    parser.add_argument("--readers", type=int, default=4, help="clients reading pages at once")
    parser.add_argument("--seconds", type=float, default=20.0, help="length of each phase")
    parser.add_argument("--workers", type=int, default=(os.cpu_count() or 2) * 2, help="gunicorn workers")
    parser.add_argument("--threads", type=int, default=1, help="threads per worker (above 1: gthread workers)")
    parser.add_argument("--resamples", type=int, default=200, help="bootstrap resamples of the recompute")
    args = parser.parse_args()

    admin_url = os.environ.get("DATABASE_URL") or "postgresql://postgres@127.0.0.1:5432/pragmatikos"
    redis_url = scratch.bench_redis_url(parser)
    scratch_name = f"pragmatikos_bench_downloads_{os.getpid()}"
    export_dir = Path(tempfile.mkdtemp(prefix="pragmatikos-bench-exports-"))
    env = scratch.server_environment(
        scratch.with_database(admin_url, scratch_name),
        redis_url,
        name="downloads",
        EXPORT_DIR=str(export_dir),
        SCORING_RESAMPLES=str(args.resamples),
    )
    server = None
    try:
        scratch.recreate_database(admin_url, scratch_name)
        redis.Redis.from_url(redis_url).flushdb()
        manage(env, "migrate", "--no-input", "-v", "0")
        started = time.perf_counter()
        load_cycles(scratch.with_database(admin_url, scratch_name), args.cycles, args.contributors)
        print(f"loaded {args.cycles:,} cycles in {time.perf_counter() - started:.1f} s")
        print(manage(env, "recompute", "--force"))
        started = time.perf_counter()
        manage(env, "shell", "-c", "from leaderboard import recompute; recompute.export_newest_cycles()")
        export_seconds = time.perf_counter() - started
        written = list(export_dir.iterdir())
        size = written[0].stat().st_size
        print(f"export {written[0].name}: {size / 1e6:.1f} MB gzip, written in {export_seconds:.1f} s (a process)")

        threads = ("-k", "gthread", "--threads", str(args.threads)) if args.threads > 1 else ()
        server, port = scratch.start_gunicorn(env, workers=args.workers, ready_path="/methodology/", extra=threads)
        status, body = fetch(port, "/data/cycles.csv.gz")
        if status != 200 or body != written[0].read_bytes():
            raise RuntimeError(f"/data/cycles.csv.gz answered {status} with {len(body)} bytes")
        # A middle range through the server's sendfile path: exactly those bytes.
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", "/data/cycles.csv.gz", headers={"Range": "bytes=1000-1999"})
        ranged = conn.getresponse()
        if ranged.status != 206 or ranged.read() != body[1000:2000]:
            raise RuntimeError(f"a Range request answered {ranged.status} with other bytes")
        conn.close()
        page_paths = [
            "/",
            "/?" + urlencode({"view": "model"}),
            compare_path(port),
            "/methodology/",
            "/data/",
            "/data/rankings.csv?view=modelCombo",
        ]
        best = parse_qs(urlsplit(page_paths[2]).query)["a"][0]
        page_paths.append("/pairing/?" + urlencode({"view": "modelCombo", "label": best}))
        for path in page_paths:  # warm: every worker builds or fetches each page once
            for _ in range(args.workers * 2):
                status, _ = fetch(port, path)
                if status != 200:
                    raise RuntimeError(f"{path} answered {status}")

        alone = drive(port, Phase("pages alone", page_paths), clients=args.readers, seconds=args.seconds)
        with Downloads(port, args.downloaders) as downloads:
            loaded = drive(port, Phase("pages + downloads", page_paths), clients=args.readers, seconds=args.seconds)
        representations = [
            ("cycles.csv.gz (file)", "/data/cycles.csv.gz", {}),
            ("cycles.csv, gzip-encoded", "/data/cycles.csv", {"Accept-Encoding": "gzip"}),
            ("cycles.csv, unpacked", "/data/cycles.csv", {}),
        ]
        timed = [(name, *timed_download(port, path, headers)) for name, path, headers in representations]
    finally:
        scratch.tear_down(
            [server], redis_url=redis_url, admin_url=admin_url, database=scratch_name, folders=[export_dir]
        )

    kind = f"gthread workers of {args.threads} threads" if args.threads > 1 else "sync workers"
    print(
        f"gunicorn {args.workers} {kind}, "
        f"{args.readers} page readers, {args.downloaders} downloaders, "
        f"{args.seconds:.0f} s per phase, {os.cpu_count()} CPUs"
    )
    for phase in (alone, loaded):
        print(
            f"{phase.name:18} {phase.rate:7,.0f} req/s  p50 {phase.percentile(0.50):7.1f} ms  "
            f"p99 {phase.percentile(0.99):7.1f} ms  ({phase.requests} requests, {phase.errors} errors)"
        )
    mean_download = sum(downloads.seconds) / len(downloads.seconds) if downloads.seconds else float("nan")
    print(
        f"downloads          {downloads.completed} complete ({downloads.errors} failed), "
        f"{downloads.bytes_read / downloads.elapsed / 1e6:,.0f} MB/s, {mean_download * 1000:.0f} ms each on average"
    )
    p99_alone, p99_loaded = alone.percentile(0.99), loaded.percentile(0.99)
    verdict = "met" if p99_loaded <= GOAL_MS else "NOT met"
    print(
        f"p99 with downloads / without: {p99_loaded / p99_alone:.2f}x "
        f"({p99_loaded:.1f} ms vs {p99_alone:.1f} ms; goal <= {GOAL_MS:.0f} ms: {verdict})"
    )
    baseline = timed[0][1]
    for name, seconds, size in timed:
        ratio = seconds / baseline
        print(f"one download of {name:26} {seconds:6.2f} s  {size / 1e6:7.1f} MB  {ratio:5.1f}x the file's")
    failed = alone.errors or loaded.errors or downloads.errors or not downloads.completed
    return 1 if failed else 0


def timed_download(port: int, path: str, headers: dict[str, str]) -> tuple[float, int]:
    """Seconds to read one whole answer (request to last byte) and its size in bytes as sent."""
    started = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    conn.request("GET", path, headers=headers)
    response = conn.getresponse()
    size = 0
    while chunk := response.read(1 << 20):
        size += len(chunk)
    conn.close()
    if response.status != 200:
        raise RuntimeError(f"{path} answered {response.status}")
    return time.perf_counter() - started, size


if __name__ == "__main__":
    raise SystemExit(main())
