"""Benchmark of the scoring engine at a million generated cycles (not collected by pytest).

    .venv/bin/python bench/engine.py [--cycles 1000000] [--resamples 200] [--postgres URL]

Prints wall and CPU seconds and peak memory of score_pool without and with the
bootstrap, and, with --postgres, the time PostgreSQL takes for the plain A2 sums of the
six views as GROUP BY queries over the same cycles (in a scratch table it drops again).
"""

import argparse
import io
import resource
import sys
import time
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from scoring import ScoringConfig, score_pool  # noqa: E402
from tests.cycles.frames import synthetic_cycles  # noqa: E402

# The A2 sums of one view; {key} is the view's grouping expression. Built from constants only.
SUMS_SELECT = (
    "SELECT {key} AS label, count(*), sum(human_turns), sum(assistant_steps),"
    " count(*) FILTER (WHERE ship_status = 0), sum(shipped),"
    " count(*) FILTER (WHERE shipped = 1 AND cost_usd > 0),"
    " sum(human_turns) FILTER (WHERE shipped = 1), sum(active_hours) FILTER (WHERE shipped = 1),"
    " sum(cost_usd) FILTER (WHERE shipped = 1),"
    " count(*) FILTER (WHERE shipped = 1 AND (human_turns = 1 OR (planner_model <> '' AND human_turns <= 2))),"
    " sum(edits), sum(edit_errors), sum(verified), sum(intervened)"
    " FROM bench_cycle WHERE assistant_steps > 0 AND edits > 0 AND edit_paths = 1 {paired} GROUP BY 1"
)
PAIRED = "AND planner_model <> '' AND builder_model <> ''"
VIEW_KEYS = {
    "model": ("model", ""),
    "family": ("substring(model from '^(claude-(?:opus|sonnet|haiku|fable)|grok|gpt|gemini|muse-spark)')", ""),
    "modelEffort": ("model || ':' || effort", ""),
    "modelCombo": ("planner_model || ' → ' || builder_model", PAIRED),
    "famCombo": (
        "substring(planner_model from '^(claude|grok|gpt)')"
        " || ' → ' || substring(builder_model from '^(claude|grok|gpt)')",
        PAIRED,
    ),
    "modelEffortCombo": (
        "planner_model || ':' || planner_effort || ' → ' || builder_model || ':' || builder_effort",
        PAIRED,
    ),
}


def peak_megabytes() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def time_engine(frame: pd.DataFrame, resamples: int) -> None:
    wall, cpu = time.perf_counter(), time.process_time()
    document = score_pool(frame, ScoringConfig(resamples=resamples)).document
    groups = sum(len(body["groups"]) for body in document["views"].values())
    print(
        f"score_pool resamples={resamples}: wall {time.perf_counter() - wall:.2f} s,"
        f" cpu {time.process_time() - cpu:.2f} s, {groups} ranked groups, peak RSS {peak_megabytes():.0f} MB"
    )


def time_postgres(frame: pd.DataFrame, url: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("DROP TABLE IF EXISTS bench_cycle")
        connection.execute(
            "CREATE UNLOGGED TABLE bench_cycle (contributor int, day date, model text, effort text,"
            " planner_model text, planner_effort text, builder_model text, builder_effort text,"
            " human_turns int, assistant_steps int, edits int, edit_paths smallint, edit_errors int,"
            " cost_usd float8, shipped smallint, active_hours float8, verified smallint, intervened smallint,"
            " step_seconds_median float8, ship_status smallint)"
        )
        columns = [
            "contributor", "day", "model", "effort", "planner_model", "planner_effort", "builder_model",
            "builder_effort", "human_turns", "assistant_steps", "edits", "edit_paths", "edit_errors", "cost_usd",
            "shipped", "active_hours", "verified", "intervened", "step_seconds_median", "ship_status",
        ]  # fmt: skip
        buffer = io.StringIO()
        frame[columns].to_csv(buffer, index=False, header=False)
        with connection.cursor() as cursor, cursor.copy("COPY bench_cycle FROM STDIN WITH (FORMAT csv)") as copy:
            copy.write(buffer.getvalue())
        connection.execute("ANALYZE bench_cycle")
        for _ in range(2):  # the second pass is the warm one reported
            wall = time.perf_counter()
            for key, paired in VIEW_KEYS.values():
                connection.execute(SUMS_SELECT.format(key=key, paired=paired)).fetchall()  # type: ignore[arg-type]
            elapsed = time.perf_counter() - wall
        print(f"PostgreSQL GROUP BY of the A2 sums, six views (warm): {elapsed:.2f} s")
        connection.execute("DROP TABLE bench_cycle")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cycles", type=int, default=1_000_000)
    parser.add_argument("--resamples", type=int, default=200)
    parser.add_argument("--contributors", type=int, default=200)
    parser.add_argument("--postgres", default="")
    args = parser.parse_args()
    frame = synthetic_cycles(args.cycles, contributors=args.contributors)
    print(f"{len(frame)} cycles generated, frame {frame.memory_usage(deep=True).sum() / 2**20:.0f} MB")
    if args.postgres:
        time_postgres(frame, args.postgres)
    time_engine(frame, 0)
    time_engine(frame, args.resamples)


if __name__ == "__main__":
    main()
