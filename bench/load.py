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

Prints req/s, p50/p99 and status counts per endpoint, then checks the database against what
was acknowledged: every row of a 202 is stored once, with the facts of the latest acknowledged
send of it (lost / duplicated / regressed must all be 0), and retracted installs have no rows.
Exits non-zero when a check fails or a request failed without an answer.

The Redis database of BENCH_REDIS_URL (default: REDIS_URL) is flushed before and after the
run: give it one that is yours.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import psycopg
import redis
from django.conf import settings

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench import scratch  # noqa: E402
from bench.downloads import load_cycles, manage  # noqa: E402
from bench.pages import compare_path, fetch  # noqa: E402
from ingest.keys import install_hash  # noqa: E402
from tests.cycles.wire import envelope, wire_cycle  # noqa: E402

CONTRIBUTE = "/api/v1/contributions?atomic=1"
RETRACT = "/api/v1/contributions/retract"
UNLIMITED = "1000000/hour"
# Bounds on every loop besides the clock: no thread runs away if the clock misbehaves.
MAX_REQUESTS_PER_THREAD = 100_000


@dataclass
class Sent:
    """The latest acknowledged send of one row: its `generated` and the facts it carried."""

    generated: datetime
    shipped: int
    cost: float


@dataclass
class Tally:
    """Per-endpoint latencies and status counts, shared by every thread under one lock."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    statuses: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))

    def record(self, endpoint: str, status: str, seconds: float) -> None:
        with self.lock:
            self.latencies[endpoint].append(seconds * 1000)
            self.statuses[endpoint][status] += 1


class Ledger:
    """What the server acknowledged: per (install, cycle_key) the latest 202 by `generated`."""

    def __init__(self, installs: list[str], keys_per_install: int, seed: int) -> None:
        self.lock = threading.Lock()
        self.installs = installs
        self.keys_per_install = keys_per_install
        self.rng = random.Random(seed)
        self.sends = 0
        # Each send's cost is its number (stored to 4 decimals): a stored row tells which send it came from.
        # Times strictly increasing from 20 minutes ago, one millisecond apart (the plugin's precision).
        self.base = datetime.now(UTC).replace(microsecond=0) - timedelta(minutes=20)
        self.acknowledged: dict[tuple[str, str], Sent] = {}
        self.retracted: set[str] = set()
        self.gone_answers = 0

    def next_send(self, rng: random.Random) -> tuple[str, datetime, list[dict[str, Any]]]:
        """One send: an install, a fresh `generated` and an overlapping window of its rows, facts varied."""
        with self.lock:
            self.sends += 1
            number = self.sends
        generated = self.base + timedelta(milliseconds=number)
        which = rng.randrange(len(self.installs))
        size = rng.randint(5, 40)
        start = rng.randrange(self.keys_per_install - size)
        rows = []
        for key in range(start, start + size):
            facts = wire_cycle(which * 10_000 + key, tcost=round(number * 0.001, 4))
            if facts["tedits"] and facts["tpaths"] == 1 and facts["tshipe"] == 0:
                facts["tship"] = rng.randint(0, 1)
            rows.append(facts)
        return self.installs[which], generated, rows

    def acknowledge(self, install: str, generated: datetime, rows: list[dict[str, Any]]) -> None:
        with self.lock:
            for facts in rows:
                key = (install, facts["cycle_key"])
                known = self.acknowledged.get(key)
                if known is None or known.generated < generated:
                    self.acknowledged[key] = Sent(generated, facts["tship"], facts["tcost"])


def post(conn: http.client.HTTPConnection, path: str, body: dict[str, Any]) -> tuple[int, bytes, dict[str, str]]:
    conn.request("POST", path, body=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    response = conn.getresponse()
    return response.status, response.read(), {k.lower(): v for k, v in response.getheaders()}


class Load:
    def __init__(self, port: int, args: argparse.Namespace, ledger: Ledger, page_paths: list[str]) -> None:
        self.port = port
        self.args = args
        self.ledger = ledger
        self.page_paths = page_paths
        self.tally = Tally()
        self.unanswered = 0
        self.download_bytes = 0
        self.stop_at = 0.0
        self.started = 0.0

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
            status, answer, _ = post(conn, path, body)
        except (OSError, http.client.HTTPException):
            conn.close()
            self.failed(endpoint, started)
            return self.connection(), None
        self.tally.record(endpoint, str(status), time.perf_counter() - started)
        return conn, (status, answer)

    def submitter(self, number: int) -> None:
        rng = random.Random(self.args.seed * 100 + number)
        conn = self.connection()
        # Submitter 0 retracts the last --retract installs at evenly spaced moments of the run.
        retractions = self.ledger.installs[len(self.ledger.installs) - self.args.retract :] if number == 0 else []
        moments = [self.started + self.args.seconds * (i + 1) / (len(retractions) + 1) for i in range(len(retractions))]
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
        self.started = time.perf_counter()
        self.stop_at = self.started + self.args.seconds
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=self.args.seconds + 120)
        return time.perf_counter() - self.started


@dataclass
class Verdict:
    """The distinct rows acknowledged, and how often the database disagrees with the ledger, by kind."""

    acknowledged: int = 0
    faults: Counter[str] = field(default_factory=Counter)

    @property
    def ok(self) -> bool:
        return not any(self.faults.values())


def verify(database_url: str, hash_key: str, ledger: Ledger) -> Verdict:
    """The database against the ledger of acknowledged sends."""
    # The server's own keyed hash, under the key the run gave the server (nothing else of Django is used here).
    settings.configure(INSTALL_HASH_KEY=hash_key)
    by_digest = {install_hash(uuid.UUID(install)): install for install in ledger.installs}
    with psycopg.connect(database_url) as conn:
        stored = conn.execute(
            "SELECT c.install_hash, y.cycle_key, y.shipped, y.cost_usd, y.generated "
            "FROM ingest_cycle y JOIN ingest_contributor c ON c.id = y.contributor_id "
            "WHERE c.install_hash = ANY(%s)",
            (list(by_digest),),
        ).fetchall()
    copies: dict[tuple[str, str], list[tuple[int, float, datetime]]] = defaultdict(list)
    verdict = Verdict()
    for digest, key, shipped, cost, generated in stored:
        install = by_digest[digest]
        if install in ledger.retracted:
            verdict.faults["retracted rows"] += 1
            continue
        copies[(install, key)].append((shipped, cost, generated))
    verdict.faults["duplicated"] = sum(len(found) - 1 for found in copies.values() if len(found) > 1)
    for (install, key), sent in ledger.acknowledged.items():
        if install in ledger.retracted:
            continue
        verdict.acknowledged += 1
        found = copies.get((install, key))
        if not found:
            verdict.faults["lost"] += 1
            continue
        shipped, cost, generated = found[0]
        # A later copy than the latest acknowledged one can only come from a send left unanswered.
        if generated < sent.generated or (
            generated == sent.generated and (shipped != sent.shipped or round(cost, 4) != sent.cost)
        ):
            verdict.faults["regressed"] += 1
    return verdict


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def snapshot_count(conn: psycopg.Connection[Any]) -> int:
    row = conn.execute("SELECT count(*) FROM leaderboard_snapshot").fetchone()
    return int(row[0]) if row else 0


def start_worker(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "celery", "-A", "pragmatikos", "worker", "--pool", "prefork"]
    command += ["--concurrency", "1", "--loglevel", "WARNING"]
    with log.open("wb") as output:
        return subprocess.Popen(command, cwd=REPO, env=env, stdout=output, stderr=subprocess.STDOUT)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60.0)
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
    redis_url = os.environ.get("BENCH_REDIS_URL") or os.environ.get("REDIS_URL")
    if not redis_url:
        parser.error("set BENCH_REDIS_URL (or REDIS_URL) to a Redis database of your own; it is flushed")
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
    ledger = Ledger(installs, args.keys, args.seed)
    server = worker = None
    try:
        scratch.recreate_database(admin_url, scratch_name)
        redis.Redis.from_url(redis_url).flushdb()
        manage(env, "migrate", "--no-input", "-v", "0")
        load_cycles(scratch_url, args.cycles, contributors=60)
        manage(env, "recompute", "--force")
        manage(env, "shell", "-c", "from leaderboard import services; services.export_newest_cycles()")
        config = ("-c", str(REPO / "deploy" / "gunicorn.conf.py"), "--error-logfile", str(workdir / "gunicorn.log"))
        server, port = scratch.start_gunicorn(env, workers=2, ready_path="/methodology/", extra=config)
        worker = start_worker(env, workdir / "worker.log")
        compare = compare_path(port)
        best = parse_qs(urlsplit(compare).query)["a"][0]
        page_paths = [
            "/",
            "/pairing/?" + urlencode({"view": "modelCombo", "label": best}),
            compare,
            "/api/v1/pool.json",
            "/lab/",
        ]
        with psycopg.connect(scratch_url) as conn:
            snapshots_before = snapshot_count(conn)
        load = Load(port, args, ledger, page_paths)
        elapsed = load.run()
        # Let the worker finish what the last sends queued before the database is read and dropped.
        time.sleep(2)
        verdict = verify(scratch_url, env["INSTALL_HASH_KEY"], ledger)
        with psycopg.connect(scratch_url) as conn:
            snapshots = snapshot_count(conn) - snapshots_before
    finally:
        scratch.tear_down(
            [server, worker], redis_url=redis_url, admin_url=admin_url, database=scratch_name, folders=[workdir]
        )

    total = sum(len(v) for v in load.tally.latencies.values())
    print(
        f"gunicorn -c deploy/gunicorn.conf.py (2 gthread workers x 8 threads) + Celery worker (prefork, 1), "
        f"{os.cpu_count()} CPUs; {args.submitters} submitters, {args.downloaders} downloaders, "
        f"{args.readers} readers; {elapsed:.1f} s; {args.cycles:,} cycles loaded first"
    )
    print(f"{'endpoint':24} {'req/s':>7} {'p50 ms':>8} {'p99 ms':>8}  statuses")
    for endpoint in sorted(load.tally.latencies):
        values = load.tally.latencies[endpoint]
        statuses = ", ".join(f"{s}: {n}" for s, n in sorted(load.tally.statuses[endpoint].items()))
        print(
            f"{endpoint:24} {len(values) / elapsed:7.1f} {percentile(values, 0.5):8.1f} "
            f"{percentile(values, 0.99):8.1f}  {statuses}"
        )
    print(
        f"{'all':24} {total / elapsed:7.1f}  ({total} requests, {load.unanswered} without an answer; "
        f"{load.download_bytes / 1e6:.0f} MB of cycles.csv; {snapshots} snapshots published during the run)"
    )
    print(
        f"sends {ledger.sends}; rows acknowledged (distinct, installs kept) {verdict.acknowledged}; "
        f"installs retracted {len(ledger.retracted)} of {args.retract}, 410 answers after {ledger.gone_answers}"
    )
    print(
        f"lost {verdict.faults['lost']}, duplicated {verdict.faults['duplicated']}, "
        f"regressed {verdict.faults['regressed']}, rows of retracted installs {verdict.faults['retracted rows']}: "
        f"{'OK' if verdict.ok else 'FAILED'}"
    )
    return 0 if verdict.ok and not load.unanswered and len(ledger.retracted) == args.retract else 1


if __name__ == "__main__":
    raise SystemExit(main())
