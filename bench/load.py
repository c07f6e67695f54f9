"""Load benchmark: submitters, cycles.csv downloaders and page readers at once, then a check of every row.

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/pragmatikos REDIS_URL=redis://127.0.0.1:6379/N \
        .venv/bin/python bench/load.py [--seconds 60]

Production-like: gunicorn started with deploy/gunicorn.conf.py (gthread workers) and a Celery
worker (prefork, one child, as deployed), over a scratch database named after DATABASE_URL's
(`<name>_bench_load`, recreated at the start, dropped at the end) seeded with generated cycles
and a first snapshot. For --seconds, on loopback only:

  * SUBMITTERS threads post contributions of a few shared installs: overlapping windows of the
    same rows, resent with `shipped` flipped and a new cost each time, each send with a later
    `generated` than any before it, so a resend is a real update; a few installs are retracted
    midway (later sends to them must answer 410);
  * DOWNLOADERS clients download /data/cycles.csv.gz (the worker writes it per snapshot);
  * READERS clients read /, /pairing/, /compare/, /api/v1/pool.json and /lab/.

Then, for --abuse-seconds, an abuse phase: the same load again, and beside it ABUSERS threads each
of one kind, in turn:

  * rotating installs: a contribution from a fresh install id every request (the per-install
    limit never bites; the per-address one is lifted for the whole run, as for many addresses);
  * contribute then retract: a fresh install contributes, then retracts at once;
  * random labels: /pairing/?view=modelCombo&label=<random> and /lab/beside/?view=model&label=<random>;
  * Host variants: the readers' pages with `Host: 127.0.0.1:<random port>`.

Prints req/s, p50/p99 and status counts per endpoint and phase; the readers' page p99 in each
phase (the goal: the abuse phase's within 3x of the normal one's); the worker's busy share in each
phase (the seconds its recompute tasks took, from the worker's log, over the phase's wall time);
the snapshots published. Then it checks the database against what was acknowledged in both
phases: every row of a 202 is stored once, with the facts of the latest acknowledged send of it
(lost / duplicated / regressed must all be 0), and retracted installs have no rows. Exits non-zero
when a check fails or a request failed without an answer.

The Redis database of BENCH_REDIS_URL (default: REDIS_URL) is flushed before and after the
run: give it one that is yours.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import psycopg
import redis

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench import load_ledger as books  # noqa: E402
from bench import scratch  # noqa: E402
from bench.downloads import load_cycles, manage  # noqa: E402
from bench.pages import compare_path, fetch  # noqa: E402
from tests.cycles.wire import envelope  # noqa: E402

CONTRIBUTE = "/api/v1/contributions?atomic=1"
RETRACT = "/api/v1/contributions/retract"
UNLIMITED = "1000000/hour"
# Bounds on every loop besides the clock: no thread runs away if the clock misbehaves.
MAX_REQUESTS_PER_THREAD = 100_000


ABUSES = ("rotating installs", "contribute then retract", "random labels", "Host variants")


class Load:
    def __init__(
        self,
        port: int,
        args: argparse.Namespace,
        ledger: books.Ledger,
        page_paths: list[str],
        *,
        seconds: float,
        abusers: int = 0,
        retract: int = 0,
    ) -> None:
        self.port = port
        self.args = args
        self.ledger = ledger
        self.page_paths = page_paths
        self.seconds = seconds
        self.abusers = abusers
        self.retract = retract
        self.tally = books.Tally()
        self.unanswered = 0
        self.download_bytes = 0
        self.stop_at = 0.0
        self.started = 0.0
        # Wall-clock bounds of the phase, to read the worker's log by.
        self.wall_started = 0.0
        self.wall_ended = 0.0

    def connection(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)

    def failed(self, endpoint: str, started: float) -> None:
        with self.tally.lock:
            self.unanswered += 1
        self.tally.record(endpoint, "no answer", time.perf_counter() - started)

    def timed_post(
        self, conn: http.client.HTTPConnection, endpoint: str, path: str, body: dict[str, Any]
    ) -> tuple[http.client.HTTPConnection, tuple[int, bytes] | None]:
        """POSTs and records the latency; a broken connection counts as no answer and is replaced."""
        started = time.perf_counter()
        try:
            status, answer, _ = books.post(conn, path, body)
        except (OSError, http.client.HTTPException):
            conn.close()
            self.failed(endpoint, started)
            return self.connection(), None
        self.tally.record(endpoint, str(status), time.perf_counter() - started)
        return conn, (status, answer)

    def submitter(self, number: int) -> None:
        rng = random.Random(self.args.seed * 100 + number)
        conn = self.connection()
        # Submitter 0 retracts the last `retract` installs at evenly spaced moments of the phase.
        retractions = (
            self.ledger.installs[len(self.ledger.installs) - self.retract :] if number == 0 and self.retract else []
        )
        moments = [self.started + self.seconds * (i + 1) / (len(retractions) + 1) for i in range(len(retractions))]
        for _ in range(MAX_REQUESTS_PER_THREAD):
            if time.perf_counter() >= self.stop_at:
                break
            if retractions and time.perf_counter() >= moments[0]:
                install = retractions.pop(0)
                moments.pop(0)
                conn, answered = self.timed_post(conn, "POST retract", RETRACT, {"install": install})
                if answered is not None and answered[0] == 200:
                    with self.ledger.lock:
                        self.ledger.retracted.add(install)
                continue
            install, generated, rows = self.ledger.next_send(rng)
            body = envelope(rows, install=install, generated=generated)
            conn, answered = self.timed_post(conn, "POST contributions", CONTRIBUTE, body)
            if answered is None:
                continue
            status, answer = answered
            if status == 202 and json.loads(answer)["accepted"] == len(rows):
                self.ledger.acknowledge(install, generated, rows)
            elif status == 410:
                with self.ledger.lock:
                    self.ledger.gone_answers += 1
        conn.close()

    def downloader(self) -> None:
        for _ in range(MAX_REQUESTS_PER_THREAD):
            if time.perf_counter() >= self.stop_at:
                break
            started = time.perf_counter()
            read = 0
            try:
                conn = self.connection()
                conn.request("GET", "/data/cycles.csv.gz")
                response = conn.getresponse()
                while chunk := response.read(1 << 20):
                    read += len(chunk)
                conn.close()
            except (OSError, http.client.HTTPException):
                self.failed("GET /data/cycles.csv.gz", started)
                continue
            self.tally.record("GET /data/cycles.csv.gz", str(response.status), time.perf_counter() - started)
            if response.status == 503:
                # The next snapshot's file is being written: wait as a client honouring Retry-After would, briefly.
                self.stop_wait(1.0)
            with self.tally.lock:
                self.download_bytes += read

    def abuser(self, number: int) -> None:
        """One kind of abuse (ABUSES, by turn), as fast as the server answers."""
        kind = ABUSES[number % len(ABUSES)]
        rng = random.Random(self.args.seed * 1000 + number)
        conn = self.connection()
        for _ in range(MAX_REQUESTS_PER_THREAD):
            if time.perf_counter() >= self.stop_at:
                break
            if kind in ("rotating installs", "contribute then retract"):
                conn = self.send_fresh(conn, rng, retract=kind == "contribute then retract")
                continue
            headers = {}
            if kind == "random labels":
                label = uuid.UUID(int=rng.getrandbits(128)).hex[: rng.randint(4, 32)]
                path = rng.choice(["/pairing/?view=modelCombo&", "/lab/beside/?view=model&"]) + urlencode(
                    {"label": label}
                )
                endpoint = "GET " + urlsplit(path).path + " (random label)"
            else:
                path = rng.choice(self.page_paths)
                headers["Host"] = f"127.0.0.1:{rng.randint(1, 65535)}"
                endpoint = "GET " + urlsplit(path).path + " (Host variant)"
            started = time.perf_counter()
            try:
                conn.request("GET", path, headers=headers)
                response = conn.getresponse()
                response.read()
            except (OSError, http.client.HTTPException):
                conn.close()
                conn = self.connection()
                self.failed(endpoint, started)
                continue
            self.tally.record(endpoint, str(response.status), time.perf_counter() - started)
        conn.close()

    def send_fresh(
        self, conn: http.client.HTTPConnection, rng: random.Random, *, retract: bool
    ) -> http.client.HTTPConnection:
        """A fresh install's contribution, and its retraction at once when `retract`."""
        install, generated, rows = self.ledger.fresh_send(rng)
        endpoint = "POST contributions (fresh install)"
        conn, answered = self.timed_post(
            conn, endpoint, CONTRIBUTE, envelope(rows, install=install, generated=generated)
        )
        if answered is None or answered[0] != 202 or json.loads(answered[1])["accepted"] != len(rows):
            return conn
        self.ledger.acknowledge(install, generated, rows)
        if retract:
            conn, answered = self.timed_post(conn, "POST retract (fresh install)", RETRACT, {"install": install})
            if answered is not None and answered[0] == 200:
                with self.ledger.lock:
                    self.ledger.retracted.add(install)
        return conn

    def stop_wait(self, seconds: float) -> None:
        time.sleep(max(0.0, min(seconds, self.stop_at - time.perf_counter())))

    def reader(self, offset: int) -> None:
        conn = self.connection()
        for index in range(offset, offset + MAX_REQUESTS_PER_THREAD):
            if time.perf_counter() >= self.stop_at:
                break
            path = self.page_paths[index % len(self.page_paths)]
            endpoint = "GET " + urlsplit(path).path
            started = time.perf_counter()
            try:
                status, _ = fetch(self.port, path, conn)
            except (OSError, http.client.HTTPException):
                conn.close()
                conn = self.connection()
                self.failed(endpoint, started)
                continue
            self.tally.record(endpoint, str(status), time.perf_counter() - started)
        conn.close()

    def run(self) -> float:
        threads = [threading.Thread(target=self.submitter, args=(i,)) for i in range(self.args.submitters)]
        threads += [threading.Thread(target=self.downloader) for _ in range(self.args.downloaders)]
        threads += [threading.Thread(target=self.reader, args=(i,)) for i in range(self.args.readers)]
        threads += [threading.Thread(target=self.abuser, args=(i,)) for i in range(self.abusers)]
        self.started = time.perf_counter()
        self.wall_started = time.time()
        self.stop_at = self.started + self.seconds
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=self.seconds + 120)
        self.wall_ended = time.time()
        return time.perf_counter() - self.started

    def page_latencies(self) -> list[float]:
        """The readers' page latencies (the pages every visitor reads; not the abusers' requests)."""
        paths = {"GET " + urlsplit(path).path for path in self.page_paths}
        return [ms for endpoint in paths for ms in self.tally.latencies.get(endpoint, [])]


# Celery's line for each finished task: "[2026-12-01 22:30:01,123: INFO/ForkPoolWorker-1] Task
# leaderboard.tasks.recompute_rankings[<id>] succeeded in 0.0123s: None".


def print_phase(name: str, load: Load, elapsed: float, busy: tuple[float, int], snapshots: int) -> None:
    total = sum(len(v) for v in load.tally.latencies.values())
    print(f"-- {name} phase: {elapsed:.1f} s")
    print(f"{'endpoint':44} {'req/s':>7} {'p50 ms':>8} {'p99 ms':>8}  statuses")
    for endpoint in sorted(load.tally.latencies):
        values = load.tally.latencies[endpoint]
        statuses = ", ".join(f"{s}: {n}" for s, n in sorted(load.tally.statuses[endpoint].items()))
        print(
            f"{endpoint:44} {len(values) / elapsed:7.1f} {books.percentile(values, 0.5):8.1f} "
            f"{books.percentile(values, 0.99):8.1f}  {statuses}"
        )
    print(
        f"{'all':44} {total / elapsed:7.1f}  ({total} requests, {load.unanswered} without an answer; "
        f"{load.download_bytes / 1e6:.0f} MB of cycles.csv; {snapshots} snapshots published)"
    )
    print(
        f"readers' page p99 {books.percentile(load.page_latencies(), 0.99):.1f} ms; worker busy recomputing "
        f"{busy[0]:.1f} s of {elapsed:.1f} s ({busy[0] / elapsed:.0%}, {busy[1]} recompute tasks)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60.0, help="the normal phase")
    parser.add_argument("--abuse-seconds", type=float, default=None, help="the abuse phase (default: --seconds)")
    parser.add_argument("--abusers", type=int, default=8, help="abuse threads, each of one kind in turn")
    parser.add_argument("--submitters", type=int, default=8)
    parser.add_argument("--downloaders", type=int, default=2, help="2 to 4 in the load goal")
    parser.add_argument("--readers", type=int, default=4)
    parser.add_argument("--installs", type=int, default=6, help="installs the submitters share")
    parser.add_argument("--keys", type=int, default=200, help="distinct rows per install")
    parser.add_argument("--retract", type=int, default=2, help="installs retracted midway")
    parser.add_argument("--cycles", type=int, default=50_000, help="generated cycles loaded before the run")
    parser.add_argument("--resamples", type=int, default=50, help="bootstrap resamples of each recompute")
    parser.add_argument("--seed", type=int, default=20261130)
    args = parser.parse_args()
    if args.retract >= args.installs:
        parser.error("--retract must leave some installs")

    admin_url = os.environ.get("DATABASE_URL") or "postgresql://postgres@127.0.0.1:5432/pragmatikos"
    redis_url = scratch.bench_redis_url(parser)
    scratch_name = f"{urlsplit(admin_url).path.lstrip('/') or 'pragmatikos'}_bench_load"
    scratch_url = scratch.with_database(admin_url, scratch_name)
    workdir = Path(tempfile.mkdtemp(prefix="pragmatikos-bench-load-"))
    export_dir = workdir / "exports"
    export_dir.mkdir()
    env = scratch.server_environment(
        scratch_url,
        redis_url,
        name="load",
        EXPORT_DIR=str(export_dir),
        SCORING_RESAMPLES=str(args.resamples),
        INGEST_RATE_PER_INSTALL=UNLIMITED,
        INGEST_RATE_PER_ADDRESS=UNLIMITED,
    )
    rng = random.Random(args.seed)
    installs = [str(uuid.UUID(int=rng.getrandbits(128), version=4)) for _ in range(args.installs)]
    ledger = books.Ledger(installs, args.keys, args.seed)
    server = worker = None
    try:
        scratch.recreate_database(admin_url, scratch_name)
        redis.Redis.from_url(redis_url).flushdb()
        manage(env, "migrate", "--no-input", "-v", "0")
        load_cycles(scratch_url, args.cycles, contributors=60)
        manage(env, "recompute", "--force")
        manage(env, "shell", "-c", "from leaderboard import recompute; recompute.export_newest_cycles()")
        config = ("-c", str(REPO / "deploy" / "gunicorn.conf.py"), "--error-logfile", str(workdir / "gunicorn.log"))
        server, port = scratch.start_gunicorn(env, workers=2, ready_path="/methodology/", extra=config)
        worker = books.start_worker({**env, "LOG_LEVEL": "INFO"}, workdir / "worker.log")
        compare = compare_path(port)
        best = parse_qs(urlsplit(compare).query)["a"][0]
        page_paths = [
            "/",
            "/pairing/?" + urlencode({"view": "modelCombo", "label": best}),
            compare,
            "/api/v1/pool.json",
            "/lab/",
        ]
        abuse_seconds = args.seconds if args.abuse_seconds is None else args.abuse_seconds
        normal = Load(port, args, ledger, page_paths, seconds=args.seconds, retract=args.retract)
        abuse = Load(port, args, ledger, page_paths, seconds=abuse_seconds, abusers=args.abusers)
        published: list[int] = []
        elapsed: list[float] = []
        for load in (normal, abuse):
            with psycopg.connect(scratch_url) as conn:
                before = books.newest_snapshot_id(conn)
            elapsed.append(load.run())
            with psycopg.connect(scratch_url) as conn:
                published.append(books.newest_snapshot_id(conn) - before)
        # Let the worker publish what the last sends owed (the interval and a recompute) before the check.
        time.sleep(int(env.get("RECOMPUTE_MIN_INTERVAL", "5")) + 10)
        verdict = books.verify(scratch_url, env["INSTALL_HASH_KEY"], ledger)
        busy = [
            books.recompute_busy_seconds(workdir / "worker.log", load.wall_started, load.wall_ended)
            for load in (normal, abuse)
        ]
    finally:
        scratch.tear_down(
            [server, worker], redis_url=redis_url, admin_url=admin_url, database=scratch_name, folders=[workdir]
        )

    print(
        f"gunicorn -c deploy/gunicorn.conf.py (2 gthread workers x 8 threads) + Celery worker (prefork, 1), "
        f"{os.cpu_count()} CPUs; {args.submitters} submitters, {args.downloaders} downloaders, "
        f"{args.readers} readers, then {args.abusers} abusers beside them; {args.cycles:,} cycles loaded first"
    )
    print_phase("normal", normal, elapsed[0], busy[0], published[0])
    print_phase("abuse", abuse, elapsed[1], busy[1], published[1])
    normal_p99, abuse_p99 = (books.percentile(load.page_latencies(), 0.99) for load in (normal, abuse))
    ratio = abuse_p99 / normal_p99
    print(
        f"readers' page p99: abuse {abuse_p99:.1f} ms / normal {normal_p99:.1f} ms = {ratio:.2f}x "
        f"(goal: within 3x): {'met' if ratio <= 3 else 'MISSED'}"
    )
    kept_retracted = len(ledger.retracted & set(ledger.installs))
    print(
        f"sends {ledger.sends} + {len(ledger.fresh)} fresh installs; rows acknowledged (distinct, installs kept) "
        f"{verdict.acknowledged}; installs retracted {kept_retracted} of {args.retract} shared and "
        f"{len(ledger.retracted) - kept_retracted} fresh, 410 answers after {ledger.gone_answers}"
    )
    print(
        f"lost {verdict.faults['lost']}, duplicated {verdict.faults['duplicated']}, "
        f"regressed {verdict.faults['regressed']}, rows of retracted installs {verdict.faults['retracted rows']}: "
        f"{'OK' if verdict.ok else 'FAILED'}"
    )
    unanswered = normal.unanswered + abuse.unanswered
    return 0 if verdict.ok and not unanswered and kept_retracted == args.retract else 1


if __name__ == "__main__":
    raise SystemExit(main())
