"""Request memory benchmark: does a web process give back what a request body took?

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/pragmatikos REDIS_URL=redis://127.0.0.1:6379/N \
        .venv/bin/python bench/request_memory.py [--big-bodies 20] [--contributions 10] [--flood-seconds 15]

Production-like: gunicorn started with deploy/gunicorn.conf.py (2 gthread workers x 8 threads),
over a scratch database named after DATABASE_URL's (`<name>_bench_memory`, recreated at the start,
dropped at the end) seeded with generated cycles and a snapshot, the throttles as deployed. On
loopback only, three phases, the Redis counters emptied before each:

  * big bodies: --big-bodies sequential bodies of just under 64 MiB (the cap), an envelope whose
    `rows` are millions of `{}` objects (answered 413);
  * contributions: --contributions valid contributions of --rows rows each (100,000: a heavy
    user's whole history in one request), each from a new install (answered 202);
  * flood: --readers clients read pages for --flood-seconds alone (normal), then again while
    --flooders clients post 1 MiB bodies of `{}` objects from the same address back to back.

For each of the first two phases it prints every web worker's resident memory (VmRSS) before the
first request and two seconds after the last answer, and its peak while the phase ran (VmHWM, reset
first); the goal is each worker back within 100 MB of where it started. For the flood, the readers'
page p99 during it over the one without it (goal: within 3x). Then it checks that every row a 202
acknowledged is stored. A phase stops early (and says so) when a worker's RSS passes --rss-limit-mb,
so the machine is never pushed into swap or the OOM killer. Exits non-zero when a goal is missed or
an acknowledged row is missing.

The Redis database of BENCH_REDIS_URL (default: REDIS_URL) is flushed before and after the run:
give it one that is yours.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit

import psycopg
import redis

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench import scratch  # noqa: E402
from bench.downloads import load_cycles, manage  # noqa: E402
from bench.ingest import generated_envelopes, memory_kib, worker_pids  # noqa: E402
from bench.pages import Phase, compare_path, drive  # noqa: E402
from ingest.columns import SCHEMA_3_COLUMNS  # noqa: E402

CONTRIBUTE = "/api/v1/contributions"
MIB = 1024 * 1024
CAP = 64 * MIB  # INGEST_MAX_BODY_BYTES as deployed
GOAL_RETURN_MB = 100
GOAL_P99_RATIO = 3.0
MAX_FLOOD_REQUESTS_PER_THREAD = 100_000  # a bound besides the clock


def objects_body(size: int) -> bytes:
    """An envelope of just under `size` bytes whose rows are `{}` objects: cheap to send, dear to parse.
    Each from an install of its own, so only the address's rate applies to a flood of them."""
    cols = json.dumps(list(SCHEMA_3_COLUMNS), separators=(",", ":")).encode()
    head = (
        b'{"schema":3,"extractor":"26.9.0","install":"' + str(uuid.uuid4()).encode() + b'",'
        b'"generated":"2026-01-01T00:00:00.000Z","cols":' + cols + b',"rows":['
    )
    count = (size - len(head) - 8) // 3
    return head + b",".join([b"{}"] * count) + b"]}"


def contribution_body(number: int, rows: int, seed: int) -> bytes:
    """A valid contribution of `rows` rows from an install of its own, with cycle keys no other one uses."""
    body = generated_envelopes(rows, rows, 1, seed + number, "habits")[0]
    for index, row in enumerate(body["rows"]):
        row[0] = f"{0xC000_0000 + number * rows + index:016x}"
    return json.dumps(body, separators=(",", ":")).encode()


def post(port: int, body: bytes, timeout: float = 600) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("POST", CONTRIBUTE, body=body, headers={"Content-Type": "application/json"})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


class Rss:
    """Every web worker's VmRSS at the start of a phase, and its peak since (VmHWM, reset at the start)."""

    def __init__(self, pids: list[int]) -> None:
        self.pids = pids
        self.before = {}
        for pid in pids:
            Path(f"/proc/{pid}/clear_refs").write_text("5")  # resets VmHWM to the current RSS
            self.before[pid] = memory_kib(pid, "VmRSS")

    def largest_now(self) -> int:
        return max(memory_kib(pid, "VmRSS") for pid in self.pids)

    def report(self, name: str) -> bool:
        """Prints each worker's before -> after (peak), MB; True when every one is back within the goal."""
        met = True
        for pid in self.pids:
            before, after, peak = self.before[pid], memory_kib(pid, "VmRSS"), memory_kib(pid, "VmHWM")
            grew = (after - before) / 1024
            met = met and grew <= GOAL_RETURN_MB
            print(
                f"  {name}: worker RSS {before / 1024:.0f} MB -> {after / 1024:.0f} MB "
                f"({grew:+.0f} MB; peak {peak / 1024:.0f} MB)"
            )
        return met


def big_bodies(port: int, pids: list[int], count: int, limit_mb: int) -> bool:
    body = objects_body(CAP - 1024)
    rss = Rss(pids)
    statuses: dict[int, int] = {}
    started = time.perf_counter()
    sent = 0
    for _ in range(count):
        if rss.largest_now() > limit_mb * 1024:
            print(f"  stopped after {sent} bodies: a worker's RSS passed {limit_mb} MB")
            break
        status, _ = post(port, body)
        statuses[status] = statuses.get(status, 0) + 1
        sent += 1
    seconds = time.perf_counter() - started
    time.sleep(2)
    print(
        f"big bodies: {sent} sequential bodies of {len(body) / MIB:.1f} MiB ({len(body) // 3:,} `{{}}` rows), "
        f"{seconds / max(sent, 1):.2f} s each, answers {statuses}"
    )
    return rss.report("big bodies") and sent == count


def contributions(port: int, pids: list[int], count: int, rows: int, seed: int) -> tuple[bool, int]:
    """The ten valid histories; (every worker back within the goal, rows the 202s said were inserted)."""
    bodies = [contribution_body(number, rows, seed) for number in range(count)]
    rss = Rss(pids)
    inserted = 0
    started = time.perf_counter()
    for body in bodies:
        status, answer = post(port, body)
        if status != 202:
            raise RuntimeError(f"a contribution got {status}: {answer[:300]!r}")
        inserted += int(json.loads(answer)["inserted"])
    seconds = time.perf_counter() - started
    time.sleep(2)
    print(
        f"contributions: {count} valid contributions of {rows:,} rows ({len(bodies[0]) / MIB:.1f} MiB each), "
        f"{seconds / count:.2f} s each, {inserted:,} rows inserted"
    )
    return rss.report("contributions"), inserted


class Flood:
    """`clients` threads posting 1 MiB bodies of `{}` objects back to back from this one address."""

    def __init__(self, port: int, clients: int) -> None:
        self.port = port
        self.size = MIB - 1024
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.statuses: dict[str, int] = {}
        self.threads = [threading.Thread(target=self.client) for _ in range(clients)]

    def client(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        for _ in range(MAX_FLOOD_REQUESTS_PER_THREAD):
            if self.stop.is_set():
                break
            body = objects_body(self.size)
            try:
                conn.request("POST", CONTRIBUTE, body=body, headers={"Content-Type": "application/json"})
                response = conn.getresponse()
                response.read()
                outcome = str(response.status)
                if response.getheader("Connection", "").lower() == "close":
                    conn.close()
            except (OSError, http.client.HTTPException):
                conn.close()
                outcome = "no answer"
            with self.lock:
                self.statuses[outcome] = self.statuses.get(outcome, 0) + 1
        conn.close()

    def __enter__(self) -> Flood:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join()


def flood(port: int, pids: list[int], paths: list[str], args: argparse.Namespace) -> bool:
    normal = drive(port, Phase("normal", paths), clients=args.readers, seconds=args.flood_seconds)
    rss = Rss(pids)
    with Flood(port, args.flooders) as flooding:
        flooded = drive(port, Phase("flood", paths), clients=args.readers, seconds=args.flood_seconds)
    ratio = flooded.percentile(0.99) / normal.percentile(0.99)
    print(
        f"flood: {args.readers} readers of {len(paths)} pages, {args.flood_seconds:.0f} s alone, then as long beside "
        f"{args.flooders} clients posting {flooding.size / MIB:.1f} MiB `{{}}` bodies from one address; "
        f"their answers {dict(sorted(flooding.statuses.items()))}"
    )
    rss.report("flood")
    print(
        f"  page p99: flood {flooded.percentile(0.99):.1f} ms / normal {normal.percentile(0.99):.1f} ms = "
        f"{ratio:.2f}x (goal: within {GOAL_P99_RATIO:.0f}x; {normal.requests} and {flooded.requests} page reads, "
        f"{normal.errors + flooded.errors} not 200)"
    )
    return ratio <= GOAL_P99_RATIO


def stored_cycles(database_url: str) -> int:
    with psycopg.connect(database_url) as conn:
        row = conn.execute("SELECT count(*) FROM ingest_cycle").fetchone()
    return int(row[0]) if row else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--big-bodies", type=int, default=20)
    parser.add_argument("--contributions", type=int, default=10)
    parser.add_argument("--rows", type=int, default=100_000, help="rows of each valid contribution")
    parser.add_argument("--flood-seconds", type=float, default=15.0)
    parser.add_argument("--flooders", type=int, default=4)
    parser.add_argument("--readers", type=int, default=4)
    parser.add_argument("--cycles", type=int, default=20_000, help="generated cycles loaded before the run")
    parser.add_argument("--rss-limit-mb", type=int, default=8000, help="a phase stops when a worker passes this")
    parser.add_argument("--seed", type=int, default=20261201)
    args = parser.parse_args()

    admin_url = os.environ.get("DATABASE_URL") or "postgresql://postgres@127.0.0.1:5432/pragmatikos"
    redis_url = scratch.bench_redis_url(parser)
    scratch_name = f"{urlsplit(admin_url).path.lstrip('/') or 'pragmatikos'}_bench_memory"
    scratch_url = scratch.with_database(admin_url, scratch_name)
    workdir = Path(tempfile.mkdtemp(prefix="pragmatikos-bench-memory-"))
    env = scratch.server_environment(
        scratch_url, redis_url, name="memory", EXPORT_DIR=str(workdir), WEB_WORKERS="2", WEB_THREADS="8"
    )
    counters = redis.Redis.from_url(redis_url)
    server = None
    try:
        scratch.recreate_database(admin_url, scratch_name)
        counters.flushdb()
        manage(env, "migrate", "--no-input", "-v", "0")
        load_cycles(scratch_url, args.cycles, contributors=60)
        manage(env, "recompute", "--force")
        config = ("-c", str(REPO / "deploy" / "gunicorn.conf.py"), "--error-logfile", str(workdir / "gunicorn.log"))
        server, port = scratch.start_gunicorn(env, workers=2, ready_path="/api/v1/stats", extra=config)
        pids = worker_pids(server)
        paths = ["/", "/methodology/", compare_path(port), "/api/v1/pool.json"]
        print(
            f"gunicorn -c deploy/gunicorn.conf.py ({len(pids)} gthread workers x 8 threads), {os.cpu_count()} CPUs, "
            f"{args.cycles:,} cycles loaded first; throttles as deployed, their counters emptied before each phase"
        )
        counters.flushdb()
        bodies_met = big_bodies(port, pids, args.big_bodies, args.rss_limit_mb)
        counters.flushdb()
        stored_before = stored_cycles(scratch_url)
        contributions_met, inserted = contributions(port, pids, args.contributions, args.rows, args.seed)
        stored = stored_cycles(scratch_url) - stored_before
        counters.flushdb()
        flood_met = flood(port, pids, paths, args)
    finally:
        scratch.tear_down([server], redis_url=redis_url, admin_url=admin_url, database=scratch_name, folders=[workdir])

    kept = stored == inserted == args.contributions * args.rows
    print(
        f"acknowledged rows stored: {stored:,} of {inserted:,} inserted ({args.contributions * args.rows:,} sent): "
        f"{'OK' if kept else 'LOST'}"
    )
    verdicts = {"big bodies": bodies_met, "contributions": contributions_met, "flood p99": flood_met}
    print("goals: " + ", ".join(f"{name} {'met' if met else 'MISSED'}" for name, met in verdicts.items()))
    return 0 if kept and all(verdicts.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
