"""Recompute benchmark: N generated cycles in PostgreSQL, the full recompute, and a GROUP BY baseline.

    DATABASE_URL=postgresql://postgres@127.0.0.1:5432/pragmatikos .venv/bin/python bench/recompute.py [--cycles N]

Creates a scratch database next to DATABASE_URL's (dropped at the end), loads N cycles
with COPY, and times in the same run one PostgreSQL GROUP BY computing the modelCombo sums:
the baseline every ratio divides by. Then, in a child process, the service's path: reading
the cells PostgreSQL keeps as cycles arrive (one query), scoring them (six views, B resamples, B3 and rank
stability), `leaderboard.recompute.publish` from read to published (fingerprint, document, samples,
history rows; the worker's tasks it queues, the export of cycles.csv and the warming of the
day windows, timed apart), a contribution of 10 cycles from stored (through the ingest's own
validate_envelope and contribute) to published and its retraction from deleted to published, and
the peak memory: publish's own (the high-water mark is reset before it) and the child's in all. `--cycles-path` adds, in
a second child, the engine's stages on every cycle read into pandas (the path before cells).
The scratch database is named after DATABASE_URL's (<name>_bench_recompute), so people
benchmarking from their own databases on one server do not drop each other's.
"""

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit

import psycopg

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.scratch import seconds_of, with_database  # noqa: E402

PAIRINGS = [
    ("claude-opus-4.8", "max", "claude-opus-4.8", "max"),
    ("claude-opus-5", "max", "claude-opus-5", "max"),
    ("claude-fable-5", "max", "grok-4.6", "xhigh"),
    ("claude-fable-5.1", "high", "muse-spark-1.3", "max"),
    ("gpt-6-astra", "high", "muse-spark-1.3", "max"),
    ("grok-4.6", "xhigh", "grok-4.6", "xhigh"),
    ("claude-opus-4.6", "default", "claude-opus-4.6", "max"),
    ("deepseek-v4", "high", "claude-sonnet-5", "default"),
    ("gemini-3-pro", "high", "gemini-3-flash", "default"),
    ("minimax-m3", "", "minimax-m3", ""),
    ("", "", "", ""),
]
# The modelCombo sums of spec A2 in SQL; a plain median stands in for the weighted one.
GROUP_BY = """
SELECT planner_model, builder_model, count(*), sum(human_turns), sum(assistant_steps),
       count(*) FILTER (WHERE ship_status = 0), sum(shipped),
       count(*) FILTER (WHERE shipped = 1 AND cost_usd > 0), sum(human_turns) FILTER (WHERE shipped = 1),
       sum(active_hours) FILTER (WHERE shipped = 1), sum(cost_usd) FILTER (WHERE shipped = 1),
       count(*) FILTER (WHERE shipped = 1 AND (human_turns = 1 OR (planner_model <> '' AND human_turns <= 2))),
       sum(edits), sum(edit_errors), sum(verified), sum(intervened),
       percentile_disc(0.5) WITHIN GROUP (ORDER BY step_seconds_median) FILTER (WHERE step_seconds_median >= 0)
FROM ingest_cycle
WHERE assistant_steps > 0 AND edits > 0 AND edit_paths = 1 AND planner_model <> '' AND builder_model <> ''
GROUP BY planner_model, builder_model
"""


def generate(conn: psycopg.Connection, cycles: int, contributors: int, seed: int) -> None:
    rng = random.Random(seed)
    now = "2026-11-01T00:00:00Z"
    # Contributors who have sent for months: they count for the public-label rule, as a real pool's do.
    first_seen = "2026-08-01T00:00:00Z"
    with conn.cursor() as cur:
        with cur.copy("COPY ingest_contributor (id, install_hash, first_seen, last_seen) FROM STDIN") as copy:
            for c in range(1, contributors + 1):
                copy.write_row((c, f"{rng.getrandbits(256):064x}", first_seen, now))
        cur.execute("SELECT setval('ingest_contributor_id_seq', %s)", (contributors,))
        columns = (
            "contributor_id cycle_key day model provider role planner_model planner_provider builder_model "
            "builder_provider human_turns assistant_steps edits edit_paths edit_errors cost_usd shipped "
            "active_hours verified intervened step_seconds_median ship_status effort planner_effort "
            "builder_effort harness harness_version generated received_at"
        ).split()
        with cur.copy(f"COPY ingest_cycle ({', '.join(columns)}) FROM STDIN") as copy:
            for i in range(cycles):
                pm, pv, bm, bv = PAIRINGS[min(int(rng.expovariate(0.35)), len(PAIRINGS) - 1)]
                edits = rng.randint(0, 40)
                status = 0 if rng.random() < 0.87 else rng.choice((1, 2))
                shipped = int(edits > 0 and status == 0 and rng.random() < 0.8)
                copy.write_row(
                    (
                        1 + i % contributors,
                        f"{i:016x}",
                        f"2026-{1 + i % 10:02d}-{1 + i % 28:02d}",
                        bm or "claude-opus-4.8",
                        "anthropic",
                        2,
                        pm,
                        "anthropic" if pm else "",
                        bm,
                        "anthropic" if bm else "",
                        rng.randint(0, 8),
                        rng.randint(0, 90),
                        edits,
                        1,
                        rng.randint(0, 2) if edits else 0,
                        round(rng.uniform(0, 30), 4) if rng.random() < 0.9 else 0,
                        shipped,
                        round(rng.uniform(0.01, 3), 4),
                        rng.randint(0, 1) if edits else 0,
                        rng.randint(0, 1),
                        round(rng.uniform(1, 60), 2) if rng.random() < 0.95 else -1,
                        status,
                        bv,
                        pv,
                        bv,
                        "opencode",
                        "1.4.0",
                        now,
                        now,
                    )
                )
    conn.commit()


def best_group_by(conn: psycopg.Connection) -> float:
    """The baseline every recompute figure is a ratio of: seconds of the modelCombo GROUP BY, best of 3."""
    seconds = []
    for _ in range(3):
        started = time.perf_counter()
        conn.execute(GROUP_BY).fetchall()
        seconds.append(time.perf_counter() - started)
    return min(seconds)


def _django() -> None:
    sys.path.insert(0, str(REPO))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pragmatikos.settings")
    import django

    django.setup()


def measure_cycles(resamples: int) -> dict[str, float]:
    """Runs in the child: the engine on every cycle read into pandas (the path before cells), stage by stage."""
    _django()
    from dataclasses import replace

    from leaderboard.selectors import cycles_frame, scoring_config
    from scoring import enrich_document, score_pool
    from scoring.bootstrap import bootstrap_scores, view_rng
    from scoring.document import Prepared, prepare, score_view
    from scoring.scorecard import point_scorecard
    from scoring.shapes import VIEWS

    frame, read_seconds = seconds_of(cycles_frame)
    config = scoring_config()
    point_config = replace(config, resamples=0)
    _, point_seconds = seconds_of(lambda: score_pool(frame, point_config))

    def combo_and_bootstrap() -> tuple[float, float]:  # the prepared frame is let go of afterwards
        def combo() -> Prepared:  # the like-for-like match of the GROUP BY: the modelCombo view alone
            prepared = prepare(frame, point_config, None, None)
            score_view(prepared, "modelCombo", point_config)
            return prepared

        prepared, combo_seconds = seconds_of(combo)
        # The cluster bootstrap's own time: the resamples of every view, without preparing or point scoring.
        part, k = prepared.contributions, config.evidence_k
        cards = {view: point_scorecard(prepared.groupings[view], part, config.min_judged, k) for view in VIEWS}
        _, bootstrap_seconds = seconds_of(
            lambda: [
                bootstrap_scores(
                    prepared.groupings[view].codes,
                    cards[view].ranked,
                    prepared.contributions,
                    prepared.judged.contributor_code,
                    resamples=resamples,
                    rng=view_rng(config.seed, index),
                    evidence_k=config.evidence_k,
                )
                for index, view in enumerate(VIEWS)
            ]
        )
        return combo_seconds, bootstrap_seconds

    combo_seconds, bootstrap_seconds = combo_and_bootstrap()
    frame = cycles_frame()
    document, full_seconds = seconds_of(lambda: score_pool(frame, replace(config, resamples=resamples)).document)
    _, enrich_seconds = seconds_of(lambda: enrich_document(document, frame, config))
    return {
        "read": read_seconds,
        "point": point_seconds,
        "combo": combo_seconds,
        "bootstrap": bootstrap_seconds,
        "full": full_seconds,
        "enrich": enrich_seconds,
    }


def _high_water_mb() -> float:
    """This process's peak resident set since start or since the last reset (VmHWM), in MB."""
    status = Path("/proc/self/status").read_text()
    return int(status.split("VmHWM:")[1].split()[0]) / 1024


def measure_service(resamples: int) -> dict[str, float]:
    """Runs in the child: the service's own path on cells, and what a contribution and a retraction cost.

    With no worker (as here) the tasks a publish queues would run in-process; they are taken aside and timed
    apart: the export of cycles.csv and the warming of the day windows are a worker's tasks in production.
    """
    _django()
    from dataclasses import replace

    from django.utils import timezone

    from ingest import hooks
    from ingest.contract import validate_envelope
    from ingest.services import contribute, retract
    from leaderboard import cycles_file, recompute, windows
    from leaderboard.cells import pool_cells
    from leaderboard.published import snapshot_published
    from leaderboard.selectors import scoring_config
    from scoring.cells import prepare_cells, score_cells
    from tests.cycles.wire import envelope

    # Nor is the recompute a contribution or retraction queues run in-process at its commit: it is timed here.
    hooks.cycles_changed.disconnect(dispatch_uid="leaderboard.recompute")
    snapshot_published.disconnect(dispatch_uid="leaderboard.after_publish")
    config = replace(scoring_config(), resamples=resamples)

    def read_and_score() -> tuple[float, float, int, int]:  # the cells are let go of before publishing
        cells, read = seconds_of(pool_cells)
        rows, histogram = len(cells.frame), len(cells.bag_cell)
        # Prepared, then let go of before scoring, as publish does.
        held = [cells]
        del cells
        _, score = seconds_of(lambda: score_cells(prepare_cells(held.pop(), config), config))
        return read, score, rows, histogram

    cells_read, cells_score, rows, histogram = read_and_score()
    # The goal's peak is publish's own: the high-water mark is reset before it (Linux's clear_refs).
    Path("/proc/self/clear_refs").write_text("5")

    def publish(**options: bool) -> int:
        snapshot = recompute.publish(**options)
        assert snapshot is not None
        return snapshot.id

    snapshot_id, published = seconds_of(lambda: publish(force=True))
    publish_peak = _high_water_mb()
    _, export_seconds = seconds_of(lambda: cycles_file.write_cycles_export(snapshot_id=snapshot_id))
    _, warm_seconds = seconds_of(lambda: windows.warm_windows(snapshot_id=snapshot_id))

    # A contribution of 10 cycles from a new install, through the ingest's own checks and store, then
    # its snapshot published.
    install = uuid.uuid4()
    checked = validate_envelope(envelope(10, install=install), now=timezone.now(), max_rows=10)
    assert checked.envelope is not None, checked.errors[:3]
    contribution = checked.envelope
    _, contribution_seconds = seconds_of(lambda: (contribute(envelope=contribution, now=timezone.now()), publish()))
    # Its retraction: the cycles deleted, then the snapshot without them published.
    _, retraction_seconds = seconds_of(lambda: (retract(install=install, now=timezone.now()), publish()))
    return {
        "cells_read": cells_read,
        "cells_score": cells_score,
        "cell_rows": rows,
        "histogram_rows": histogram,
        "published": published,
        "publish_peak": publish_peak,
        "export": export_seconds,
        "warm": warm_seconds,
        "contribution": contribution_seconds,
        "retraction": retraction_seconds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=1_000_000)
    parser.add_argument("--contributors", type=int, default=400)
    parser.add_argument("--resamples", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--cycles-path", action="store_true", help="also time the engine on every cycle read into pandas (before cells)"
    )
    parser.add_argument("--measure", choices=("service", "cycles"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        measure = measure_service if args.measure == "service" else measure_cycles
        print(json.dumps(measure(args.resamples)))
        return

    base_url = os.environ.get("DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/pragmatikos")
    scratch = f"{urlsplit(base_url).path.lstrip('/') or 'pragmatikos'}_bench_recompute"
    scratch_url = with_database(base_url, scratch)
    with psycopg.connect(base_url, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{scratch}"')
        admin.execute(f'CREATE DATABASE "{scratch}"')
    env = dict(
        os.environ,
        DATABASE_URL=scratch_url,
        SECRET_KEY=os.environ.get("SECRET_KEY", "bench-key"),
        INSTALL_HASH_KEY=os.environ.get("INSTALL_HASH_KEY", "bench-install-hash-key"),
    )
    env.pop("REDIS_URL", None)
    # Its own cache folder: snapshot ids restart with each scratch database, so the checkout's var/cache would
    # hold another run's windows under the same keys.
    env["CACHE_DIR"] = tempfile.mkdtemp(prefix="pragmatikos-bench-recompute-cache-")

    def child(mode: str) -> tuple[dict[str, float], float]:
        done = subprocess.run(
            [sys.executable, __file__, "--measure", mode, "--resamples", str(args.resamples)],
            cwd=REPO,
            env=env,
            check=False,
            capture_output=True,
            text=True,
        )
        if done.returncode:
            sys.exit(f"the {mode} child failed:\n{done.stderr[-4000:]}")
        # The largest resident set of any child so far: the migrate child is far smaller than either.
        return json.loads(done.stdout.strip().splitlines()[-1]), resource.getrusage(
            resource.RUSAGE_CHILDREN
        ).ru_maxrss / 1024

    try:
        subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=REPO, env=env, check=True)
        with psycopg.connect(scratch_url) as conn:
            started = time.perf_counter()
            generate(conn, args.cycles, args.contributors, args.seed)
            print(
                f"generated {args.cycles:,} cycles from {args.contributors:,} contributors (one COPY, the cells' "
                f"triggers included) in "
                f"{time.perf_counter() - started:.1f} s"
            )
            conn.execute("ANALYZE")
            conn.commit()
            baseline = best_group_by(conn)
        service, peak_mb = child("service")
        print(f"PostgreSQL GROUP BY, modelCombo sums (baseline):  {baseline:8.2f} s  (best of 3)")
        print(
            f"cells read (the kept cells, one query, folded):   {service['cells_read']:8.2f} s  "
            f"({service['cell_rows']:,.0f} cells, {service['histogram_rows']:,.0f} histogram entries)"
        )
        print(f"score from cells, six views, B={args.resamples}, enriched: {service['cells_score']:8.2f} s")
        print(
            f"publish, read to published:                       {service['published']:8.2f} s  "
            f"= {service['published'] / baseline:5.1f}x GROUP BY (goal <= 60 s at 10M; <= 4x at 2M)"
        )
        print(f"  then export of cycles.csv (worker task, COPY to gzip): {service['export']:6.2f} s")
        print(f"  then warming the 90- and 30-day windows (worker task): {service['warm']:6.2f} s")
        print(
            f"contribution of 10 cycles: stored to published:   {service['contribution']:8.2f} s  "
            f"= {service['contribution'] / baseline:5.1f}x GROUP BY (goal <= 10 s at 1M), plus the spacing "
            "interval and a recompute already running"
        )
        print(
            f"retraction: deleted to published:                 {service['retraction']:8.2f} s  "
            f"= {service['retraction'] / baseline:5.1f}x GROUP BY (goal <= 10 s at 1M)"
        )
        print(
            f"peak memory of publish, read to published:        {service['publish_peak']:8.0f} MB "
            "(goal <= 2048 MB at 10M)"
        )
        print(f"peak memory of the recompute process, all steps:  {peak_mb:8.0f} MB")
        if args.cycles_path:
            timings, peak_mb = child("cycles")
            print("the engine on every cycle read into pandas (the path before cells):")
            print(f"  read cycles (one COPY query):            {timings['read']:8.2f} s")
            print(f"  point scoring, six views, no bootstrap:  {timings['point']:8.2f} s")
            print(
                f"  point scoring, modelCombo alone:         {timings['combo']:8.2f} s  "
                f"= {timings['combo'] / baseline:5.2f}x GROUP BY"
            )
            print(
                f"  cluster bootstrap alone, six views, B={args.resamples}: {timings['bootstrap']:6.2f} s  (one thread)"
            )
            print(f"  full recompute, six views, B={args.resamples}:       {timings['full']:8.2f} s  (two threads)")
            print(f"  enrichment (B3 fits, rank stability):    {timings['enrich']:8.2f} s")
            print(f"  peak memory of either child:             {peak_mb:8.0f} MB")
    finally:
        with psycopg.connect(base_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{scratch}"')


if __name__ == "__main__":
    main()
