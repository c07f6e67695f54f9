"""Ingest benchmark: the contribution API against PostgreSQL's COPY, on the same rows.

Posts --rows generated valid schema-3 rows in --batch-row requests to a running server
(by default one it starts: gunicorn, 2 workers, on a free loopback port, over a scratch
database it creates and migrates), then loads the same rows with COPY into a scratch
table of the same shape, and prints both rates and their ratio; three rounds, each from new installs,
and the median ratio is the figure (one round's ratio moved by a third between runs). The API's time
includes the cells
PostgreSQL keeps as cycles arrive (ingest.models.Cell, maintained by triggers in the statement that stores
the cycles); COPY's does not. Goal: API >= 0.4 of COPY. The rows are a contributor's habits by default:
each install keeps two or three pairings over 600 days, so cycles share cells; --spread random draws
every row's names and day afresh, about one cell per row, the worst case for the cells.

Then one request of --big-rows rows (100,000: a heavy user's whole history, which the real client
sends in one request and cannot split) from a new install, three times (three installs): its wall-clock
time from the first byte sent to the 202 read (JSON parse, every check, the contributor lock, the COPY
with the cells' trigger, the commit) against COPY of the same rows alone (as stored, into an empty
table of the cycle table's shape), the median of the three ratios (goal >= 0.4), and the web
process's peak memory growth while it was served (the worker's VmHWM after the request less its VmRSS
before, with the peak reset first; goal <= 400 MB). Last, the same history sent again with the same
facts and a later `generated`, as the real client resends it: its time, from first byte to 202.

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/pragmatikos .venv/bin/python bench/ingest.py

Only loopback is used. The Redis database of BENCH_REDIS_URL (default db 11) is the
bench's own: it is flushed before and after the run.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import queue
import random
import statistics
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psycopg
import redis
from psycopg import sql

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench import scratch  # noqa: E402
from ingest.columns import SCHEMA_3_COLUMNS  # noqa: E402
from ingest.contract import STORED_FIELDS, validate_envelope  # noqa: E402

SCRATCH_DATABASE = "pragmatikos_bench_ingest"
COPY_TABLE = "bench_ingest_copy"
MODELS = ("claude-opus-4.7", "claude-opus-5", "grok-4.6", "muse-spark-1.3", "gpt-6-astra", "claude-fable-5.1")
PROVIDERS = {"claude": "anthropic", "grok": "xai", "muse": "meta", "gpt": "openai"}
EFFORTS = ("", "default", "high", "max", "xhigh")
HISTORY_DAYS = 600  # how far back a history reaches
GOAL_RATIO = 0.4  # the API's rate against COPY's, with the cells kept


@dataclass(frozen=True)
class Habits:
    """What one install's rows share: the pairings it uses, with their efforts (none: every row draws its own).
    Its rows run over the HISTORY_DAYS up to today, in order."""

    pairings: tuple[tuple[str, str, str, str], ...]  # planner, planner effort, builder, builder effort


def install_habits(rng: random.Random, spread: str) -> Habits:
    """A real contributor works with two or three pairings over many days, so its cycles share cells; the
    "random" spread draws every row's names, efforts and day afresh, nearly one cell per row: the worst case."""
    if spread == "random":
        return Habits(pairings=())
    pairings = tuple(
        (rng.choice(MODELS), rng.choice(EFFORTS), rng.choice(MODELS), rng.choice(EFFORTS))
        for _ in range(rng.randint(2, 3))
    )
    return Habits(pairings=pairings)


def generated_row(rng: random.Random, key: int, day: date, habits: Habits) -> list[Any]:
    """One valid schema-3 row, as the plugin sends it."""
    if habits.pairings:
        planner, planner_effort, builder, builder_effort = rng.choice(habits.pairings)
    else:
        planner, planner_effort, builder, builder_effort = (
            rng.choice(MODELS),
            rng.choice(EFFORTS),
            rng.choice(MODELS),
            rng.choice(EFFORTS),
        )
    edits = rng.randint(0, 40)
    paths = 1 if edits and rng.random() < 0.9 else 0
    ship_status = rng.choice((0, 0, 0, 1, 2))
    shipped = 1 if edits and paths and ship_status == 0 and rng.random() < 0.7 else 0
    facts = {
        "cycle_key": f"{key:016x}",
        "day": day.isoformat(),
        "model": builder,
        "prov": PROVIDERS[builder.split("-")[0]],
        "role": rng.randint(0, 2),
        "pm": planner,
        "pp": PROVIDERS[planner.split("-")[0]],
        "bm": builder,
        "bp": PROVIDERS[builder.split("-")[0]],
        "u": rng.randint(0, 30),
        "a": rng.randint(0, 400),
        "tedits": edits,
        "tpaths": paths,
        "teerr": rng.randint(0, edits),
        "tcost": round(rng.uniform(0, 12), 6),
        "tship": shipped,
        "thrs": round(rng.uniform(0, 6), 6),
        "tver": 1 if edits and rng.random() < 0.5 else 0,
        "tabort": rng.randint(0, 1),
        "latmed": -1 if rng.random() < 0.05 else round(rng.uniform(0, 90), 3),
        "tshipe": ship_status,
        "variant": builder_effort,
        "pv": planner_effort,
        "bv": builder_effort,
        "harness": "opencode",
        "hversion": "1.14.2",
    }
    return [facts[col] for col in SCHEMA_3_COLUMNS]


def generated_envelopes(rows: int, batch: int, installs: int, seed: int, spread: str) -> list[dict[str, Any]]:
    """Batches of rows from `installs` installs in turn; each install's rows run over its days in order."""
    rng = random.Random(seed)
    today = datetime.now(UTC).date()
    generated = (datetime.now(UTC) - timedelta(minutes=1)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    install_ids = [str(uuid.UUID(int=rng.getrandbits(128), version=4)) for _ in range(installs)]
    habits = [install_habits(rng, spread) for _ in range(installs)]
    starts = range(0, rows, batch)
    per_install = [sum(min(batch, rows - start) for start in starts[owner::installs]) for owner in range(installs)]
    done = [0] * installs
    bodies = []
    for number, start in enumerate(starts):
        owner = number % installs
        mine = habits[owner]
        body_rows = []
        for i in range(min(batch, rows - start)):
            if mine.pairings:
                back = HISTORY_DAYS - 1 - done[owner] * HISTORY_DAYS // per_install[owner]
            else:
                back = rng.randint(0, HISTORY_DAYS - 1)
            done[owner] += 1
            body_rows.append(generated_row(rng, 0xB000_0000 + start + i, today - timedelta(days=back), mine))
        bodies.append(
            {
                "schema": 3,
                "extractor": "26.9.0",
                "install": install_ids[owner],
                "generated": generated,
                "cols": list(SCHEMA_3_COLUMNS),
                "rows": body_rows,
            }
        )
    return bodies


# Validating the largest request the contract allows, in memory: goal under a second.
VALIDATION_ROWS = 20_000
VALIDATION_GOAL_SECONDS = 1.0


def validation_seconds(seed: int) -> float:
    """The best of three wall-clock times to validate one VALIDATION_ROWS-row envelope (no database)."""
    body = generated_envelopes(VALIDATION_ROWS, VALIDATION_ROWS, 1, seed, "random")[0]
    timings = []
    for _ in range(3):
        started = time.perf_counter()
        validation = validate_envelope(body, now=datetime.now(UTC), max_rows=VALIDATION_ROWS)
        timings.append(time.perf_counter() - started)
        assert validation.is_valid, validation.errors[:3]
    return min(timings)


def worker_pids(server: subprocess.Popen[bytes]) -> list[int]:
    """gunicorn's workers: the master's children."""
    children = Path(f"/proc/{server.pid}/task/{server.pid}/children").read_text().split()
    return [int(pid) for pid in children]


def memory_kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"no {field} for process {pid}")


# The big request is timed this many times (each its own install) and its median ratio is the figure: one
# 5-second request on a noisy 2-core machine ranged from 0.30 to 0.52 of COPY over six runs of the same code.
BIG_REQUESTS = 3
ROUNDS = 3  # the batched posts too, each round from new installs; the median ratio is the figure


@dataclass(frozen=True)
class Batched:
    api_seconds: float  # every request of the round posted and answered
    copy_seconds: float  # one COPY of the round's rows, as stored
    cells: int  # cells the database added for them


@dataclass(frozen=True)
class BigRequest:
    seconds: float  # first byte sent to the 202 read
    copy_seconds: float  # COPY of the same rows, as stored
    growth: int  # the largest peak memory growth of a web worker while it was served, KiB
    cells: int  # cells the database added for it


def big_request(url: str, body: bytes, pids: list[int], rows: int) -> tuple[float, int]:
    """Post one body that must be accepted whole; (seconds to the 202, the largest peak memory growth of a
    worker in KiB)."""
    before = {}
    for pid in pids:
        Path(f"/proc/{pid}/clear_refs").write_text("5")  # resets VmHWM to the current RSS
        before[pid] = memory_kib(pid, "VmRSS")
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port or 80, timeout=600)
    started = time.perf_counter()
    conn.request("POST", "/v1/contribute", body=body, headers={"Content-Type": "application/json"})
    response = conn.getresponse()
    answer = response.read()
    seconds = time.perf_counter() - started
    conn.close()
    if response.status != 202:
        raise RuntimeError(f"the big request got {response.status}: {answer[:300]!r}")
    growth = max(memory_kib(pid, "VmHWM") - before[pid] for pid in pids)
    if int(json.loads(answer)["accepted"]) != rows:
        raise RuntimeError(f"the big request accepted {json.loads(answer)['accepted']} of {rows} rows")
    return seconds, growth


def start_server(env: dict[str, str], workers: int) -> tuple[subprocess.Popen[bytes], str]:
    python = sys.executable
    subprocess.run([python, "manage.py", "migrate", "--no-input", "-v", "0"], cwd=REPO, env=env, check=True)
    server, port = scratch.start_gunicorn(env, workers=workers, ready_path="/api/v1/stats")
    return server, f"http://127.0.0.1:{port}"


def post_all(url: str, bodies: list[bytes], clients: int) -> tuple[float, dict[str, int]]:
    """Post every body once over keep-alive connections; returns (seconds, summed answer counts)."""
    parts = urlsplit(url)
    work: queue.Queue[bytes] = queue.Queue()
    for body in bodies:
        work.put(body)
    totals = {"accepted": 0, "inserted": 0, "updated": 0, "unchanged": 0}
    failures: list[str] = []
    lock = threading.Lock()

    def client() -> None:
        conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port or 80, timeout=120)
        while True:
            try:
                body = work.get_nowait()
            except queue.Empty:
                break
            conn.request("POST", "/api/v1/contributions", body=body, headers={"Content-Type": "application/json"})
            response = conn.getresponse()
            answer = response.read()
            with lock:
                if response.status != 202:
                    failures.append(f"{response.status}: {answer[:300]!r}")
                    continue
                counts = json.loads(answer)
                for key in totals:
                    totals[key] += counts[key]
        conn.close()

    threads = [threading.Thread(target=client) for _ in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    seconds = time.perf_counter() - started
    if failures:
        raise RuntimeError(f"{len(failures)} requests were not accepted; first: {failures[0]}")
    return seconds, totals


def copy_rows(database_url: str, envelopes: list[dict[str, Any]]) -> tuple[float, int]:
    """COPY the same rows, as stored, into a scratch table shaped like the cycle table.

    Same columns, indexes, unique constraint and foreign key to the contributors (LIKE copies
    all but the foreign key, which is added back), so COPY pays the same per-row checks.
    """
    now = datetime.now(UTC)
    table = sql.Identifier(COPY_TABLE)
    with psycopg.connect(database_url) as conn:
        contributors = [row[0] for row in conn.execute("SELECT id FROM ingest_contributor ORDER BY id")]
        stored: list[tuple[Any, ...]] = []
        for number, body in enumerate(envelopes):
            validation = validate_envelope(body, now=now, max_rows=len(body["rows"]))
            assert validation.envelope is not None, validation.errors[:3]
            contributor = contributors[number % len(contributors)] if contributors else number
            generated = validation.envelope.generated
            stored += [(contributor, *row, generated, now) for row in validation.envelope.rows]
        columns = ["contributor_id", *STORED_FIELDS, "generated", "received_at"]
        conn.execute(sql.SQL("DROP TABLE IF EXISTS {}").format(table))
        conn.execute(sql.SQL("CREATE TABLE {} (LIKE ingest_cycle INCLUDING ALL)").format(table))
        if contributors:
            conn.execute(
                sql.SQL("ALTER TABLE {} ADD FOREIGN KEY (contributor_id) REFERENCES ingest_contributor (id)").format(
                    table
                )
            )
        conn.commit()
        # The same binary COPY the API uses, so the two differ only by what the API adds.
        types = [
            conn.execute(
                "SELECT format_type(atttypid, NULL) FROM pg_attribute WHERE attrelid = %s::regclass AND attname = %s",
                (COPY_TABLE, column),
            ).fetchone()[0]  # type: ignore[index]
            for column in columns
        ]
        started = time.perf_counter()
        statement = sql.SQL("COPY {} ({}) FROM STDIN (FORMAT BINARY)").format(
            sql.Identifier(COPY_TABLE), sql.SQL(", ").join(map(sql.Identifier, columns))
        )
        with conn.cursor() as cursor, cursor.copy(statement) as copy:
            copy.set_types(types)
            for values in stored:
                copy.write_row(values)
        conn.commit()
        seconds = time.perf_counter() - started
        count = conn.execute(sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(COPY_TABLE))).fetchone()
        conn.execute(sql.SQL("DROP TABLE {}").format(sql.Identifier(COPY_TABLE)))
    return seconds, int(count[0]) if count else 0


def cells_stored(database_url: str) -> int:
    with psycopg.connect(database_url) as conn:
        row = conn.execute("SELECT count(*) FROM ingest_cell").fetchone()
    return int(row[0]) if row else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", help="a running server to post to (default: start gunicorn on a scratch database)")
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--batch", type=int, default=1_000)
    parser.add_argument("--installs", type=int, default=10)
    parser.add_argument("--clients", type=int, default=3, help="concurrent client connections")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers when starting the server")
    parser.add_argument("--big-rows", type=int, default=100_000, help="rows of the one big request (0: skip it)")
    parser.add_argument(
        "--spread",
        choices=("habits", "random"),
        default="habits",
        help="habits: each install keeps two or three pairings over its days (cells of several cycles); "
        "random: every row's names and day drawn afresh (about one cell per row, the worst case for the cells)",
    )
    parser.add_argument("--seed", type=int, default=20260909)
    parser.add_argument("--keep", action="store_true", help="keep the scratch database afterwards")
    args = parser.parse_args()

    admin_url = os.environ.get("DATABASE_URL") or "postgresql://postgres@127.0.0.1:5432/pragmatikos"
    redis_url = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/11")
    # Each round's rows come from installs of their own: every round is a first send.
    rounds = [
        generated_envelopes(args.rows, args.batch, args.installs, args.seed + 100 * number, args.spread)
        for number in range(ROUNDS)
    ]
    print(
        f"rows {args.rows} in {len(rounds[0])} requests of {args.batch} from {args.installs} installs, "
        f"{ROUNDS} rounds; body ~{len(json.dumps(rounds[0][0])) / 1024:.0f} KiB"
    )

    server = None
    scratch_url = admin_url if args.url else scratch.with_database(admin_url, SCRATCH_DATABASE)
    try:
        if args.url:
            url = args.url
        else:
            scratch.recreate_database(admin_url, SCRATCH_DATABASE)
            redis.Redis.from_url(redis_url).flushdb()
            server, url = start_server(
                scratch.server_environment(
                    scratch_url,
                    redis_url,
                    name="ingest",
                    INGEST_RATE_PER_INSTALL="100000000/hour",
                    INGEST_RATE_PER_ADDRESS="100000000/hour",
                ),
                args.workers,
            )
        batched: list[Batched] = []
        for envelopes in rounds:
            before = cells_stored(scratch_url)
            api_seconds, totals = post_all(url, [json.dumps(body).encode() for body in envelopes], args.clients)
            if totals["accepted"] != args.rows or totals["inserted"] != args.rows:
                raise RuntimeError(f"accepted {totals['accepted']} and inserted {totals['inserted']} of {args.rows}")
            cells = cells_stored(scratch_url) - before
            copy_seconds, copied = copy_rows(scratch_url, envelopes)
            if copied != args.rows:
                raise RuntimeError(f"COPY loaded {copied} of {args.rows} rows")
            batched.append(Batched(api_seconds, copy_seconds, cells))
        big: list[BigRequest] = []
        resend = None
        if args.big_rows and server is not None:
            for attempt in range(BIG_REQUESTS):
                # Each from a new install: a first send, with no stored copies.
                envelope = generated_envelopes(args.big_rows, args.big_rows, 1, args.seed + 1 + attempt, args.spread)[0]
                before = cells_stored(scratch_url)
                seconds, growth = big_request(url, json.dumps(envelope).encode(), worker_pids(server), args.big_rows)
                copy_seconds, _ = copy_rows(scratch_url, [envelope])
                big.append(BigRequest(seconds, copy_seconds, growth, cells_stored(scratch_url) - before))
            # The last history again, extracted a minute later with the same facts: the real client's usual send.
            envelope["generated"] = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")
            resend, _ = big_request(url, json.dumps(envelope).encode(), worker_pids(server), args.big_rows)
    finally:
        if server is not None:  # with --url, the server and its data are not ours to clean
            scratch.tear_down(
                [server], redis_url=redis_url, admin_url=admin_url, database=None if args.keep else SCRATCH_DATABASE
            )

    for number, one in enumerate(batched, 1):
        print(
            f"round {number}: api {args.rows / one.api_seconds:,.0f} rows/s ({one.api_seconds:.2f} s), "
            f"copy {args.rows / one.copy_seconds:,.0f} rows/s ({one.copy_seconds:.2f} s), "
            f"ratio {one.copy_seconds / one.api_seconds:.2f}; cells kept {one.cells:,} "
            f"({args.rows / max(one.cells, 1):.1f} cycles a cell)"
        )
    ratio = statistics.median(one.copy_seconds / one.api_seconds for one in batched)
    met = "met" if ratio >= GOAL_RATIO else "NOT met"
    print(f"batched: median ratio {ratio:.2f} of COPY (goal >= {GOAL_RATIO}: {met}; spread {args.spread})")
    if big:
        ratios = sorted(request.copy_seconds / request.seconds for request in big)
        ratio = statistics.median(ratios)
        print(
            f"one request of {args.big_rows:,} rows from a new install, {len(big)} times: "
            + "; ".join(f"{r.seconds:.2f} s against COPY's {r.copy_seconds:.2f} s" for r in big)
        )
        print(
            f"  ratio of COPY {', '.join(f'{r:.2f}' for r in ratios)}; median {ratio:.2f} "
            f"(goal >= {GOAL_RATIO}: {'met' if ratio >= GOAL_RATIO else 'NOT met'}); "
            f"cells kept for each: {', '.join(f'{r.cells:,}' for r in big)}"
        )
        growth = max(request.growth for request in big)
        met = "met" if growth <= 400 * 1024 else "NOT met"
        print(
            f"  web process peak memory growth, the largest of the {len(big)}: {growth / 1024:.0f} MB "
            f"(goal <= 400 MB: {met})"
        )
    if resend is not None:
        print(f"the last of them sent again, same facts, generated a minute later: {resend:.2f} s (all unchanged)")
    validate = validation_seconds(args.seed)
    met = "met" if validate < VALIDATION_GOAL_SECONDS else "NOT met"
    print(f"validate {VALIDATION_ROWS:,} rows in {validate:.3f} s (goal < {VALIDATION_GOAL_SECONDS:g} s: {met})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
