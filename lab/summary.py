"""Per model and per planner → builder pairing summaries of one source's runs (pure: plain records in).

A run with a planner and a builder counts for its pairing; any other run for its model. Each
row carries the numbers of /data/lab.csv (see lab.stats for the definitions). Rows pool runs, never
rows: two spellings of one model joined by an alias are one group of runs before anything is averaged.
A run that aggregates several cases (aider's whole exercise sets: `test_cases` with the run) has no
time per task: its seconds are the whole set's.
"""

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from lab import stats

PAIR_SEPARATOR = " → "


@dataclass(frozen=True)
class Run:
    source: str
    task: str
    model: str
    planner: str
    builder: str
    grade: float | None
    grade_max: float | None
    seconds: float | None
    tokens_in: int | None
    tokens_out: int | None
    cost_usd: float | None
    builder_contributed: bool | None = None
    # How many cases the run aggregates, where its source says (aider: the exercises of its set).
    cases: int | None = None

    @property
    def is_pairing(self) -> bool:
        return bool(self.planner and self.builder)

    @property
    def is_aggregate(self) -> bool:
        return self.cases is not None and self.cases > 1


@dataclass(frozen=True)
class Row:
    source: str
    model: str
    planner: str
    builder: str
    runs: int
    tasks: int
    graded: int
    mean_grade: stats.Interval
    grade_max: int | None
    grade_counts: list[int]
    median_task_seconds: float | None
    seconds_spread: tuple[float | None, float | None]
    median_tokens_in: float | None
    median_tokens_out: float | None
    mean_cost_usd: float | None
    cost_runs: int
    builder_idle: int
    aggregate_runs: int = 0

    @property
    def label(self) -> str:
        return f"{self.planner}{PAIR_SEPARATOR}{self.builder}" if self.planner else self.model

    @property
    def is_pairing(self) -> bool:
        return bool(self.planner)

    @property
    def directional(self) -> bool:
        return self.runs < stats.THIN_RUNS

    @property
    def no_interval_words(self) -> str:
        """Why the mean grade has no interval, said beside it: too few graded runs, or one task only."""
        if self.graded < stats.INTERVAL_RUNS:
            return f"n = {self.graded}, no interval"
        return "one task: no interval"


def _known(runs: Sequence[Run], name: str) -> tuple[list[float], list[str]]:
    pairs = [(getattr(r, name), r.task) for r in runs if getattr(r, name) is not None]
    return [float(v) for v, _ in pairs], [t for _, t in pairs]


def summarise(runs: Sequence[Run], *, resamples: int = stats.RESAMPLES) -> Row:
    first = runs[0]
    graded = [r for r in runs if r.grade is not None and r.grade_max]
    maxima = [r.grade_max for r in graded if r.grade_max is not None]
    grade_max = math.ceil(max(maxima)) if maxima else None
    aggregate_runs = sum(1 for r in runs if r.is_aggregate)
    # A time per task only from runs of single tasks.
    seconds, seconds_tasks = _known([r for r in runs if not r.is_aggregate], "seconds")
    tokens_in, tokens_in_tasks = _known(runs, "tokens_in")
    tokens_out, tokens_out_tasks = _known(runs, "tokens_out")
    costs = [r.cost_usd for r in runs if r.cost_usd is not None]
    return Row(
        source=first.source,
        model="" if first.is_pairing else first.model,
        planner=first.planner if first.is_pairing else "",
        builder=first.builder if first.is_pairing else "",
        runs=len(runs),
        tasks=len({r.task for r in runs}),
        graded=len(graded),
        mean_grade=stats.mean_grade(
            [r.grade for r in graded if r.grade is not None], [r.task for r in graded], resamples=resamples
        ),
        grade_max=grade_max,
        grade_counts=stats.grade_counts([r.grade for r in graded if r.grade is not None], grade_max)
        if grade_max is not None
        else [],
        median_task_seconds=stats.task_weighted_median(seconds, seconds_tasks),
        seconds_spread=stats.task_weighted_spread(seconds, seconds_tasks),
        median_tokens_in=stats.task_weighted_median(tokens_in, tokens_in_tasks),
        median_tokens_out=stats.task_weighted_median(tokens_out, tokens_out_tasks),
        mean_cost_usd=math.fsum(costs) / len(costs) if costs else None,
        cost_runs=len(costs),
        builder_idle=sum(1 for r in runs if r.is_pairing and r.builder_contributed is False),
        aggregate_runs=aggregate_runs,
    )


def group_key(run: Run) -> tuple[str, str, str]:
    return ("", run.planner, run.builder) if run.is_pairing else (run.model, "", "")


def summary_rows(runs: Iterable[Run], *, resamples: int = stats.RESAMPLES) -> list[Row]:
    """One row per source and model or pairing: models first, then pairings, best mean grade first."""
    groups: dict[tuple[str, str, str, str], list[Run]] = defaultdict(list)
    for run in runs:
        groups[(run.source, *group_key(run))].append(run)
    rows = [summarise(group, resamples=resamples) for group in groups.values()]

    def order(row: Row) -> tuple[Any, ...]:
        grade = row.mean_grade.value
        share = grade / row.grade_max if grade is not None and row.grade_max else -1.0
        return (row.source, row.is_pairing, -share, row.label)

    return sorted(rows, key=order)
