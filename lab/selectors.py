"""Reads of the lab tables and of the field's newest ranking (the only place the lab reads it)."""

import time
from dataclasses import dataclass
from typing import Any

from django.core.cache import cache

from lab.models import LabRun, LabSource, ModelAlias
from lab.names import canonical_model
from lab.services import LAB_GENERATION_KEY
from lab.summary import Run
from leaderboard.selectors import latest_snapshot


def lab_generation() -> int:
    """A number that changes whenever the lab tables do (part of every lab page's cache key)."""
    generation = cache.get(LAB_GENERATION_KEY)
    if generation is None:
        # After a cache flush, start from the clock so no page cached before the flush is named again.
        cache.add(LAB_GENERATION_KEY, time.time_ns(), None)
        generation = cache.get(LAB_GENERATION_KEY, 0)
    return int(generation)


def lab_sources() -> list[LabSource]:
    return list(LabSource.objects.order_by("name"))


def aliases() -> dict[str, str]:
    return dict(ModelAlias.objects.values_list("name", "canonical"))


def lab_runs(*, source: str | None = None) -> list[Run]:
    """Every run (of one source, if named) with the operator's aliases applied: two queries."""
    names = aliases()
    runs = LabRun.objects.order_by("source__name", "id")
    if source is not None:
        runs = runs.filter(source__name=source)
    rows = runs.values_list(
        "source__name",
        "task__key",
        "model",
        "planner",
        "builder",
        "grade",
        "grade_max",
        "seconds",
        "tokens_in",
        "tokens_out",
        "cost_usd",
        "extras__builder_contributed",
    )
    return [
        Run(
            source=src,
            task=task,
            model=canonical_model(model, names),
            planner=canonical_model(planner, names) if planner else "",
            builder=canonical_model(builder, names) if builder else "",
            grade=grade,
            grade_max=grade_max,
            seconds=seconds,
            tokens_in=tokens_in,
            tokens_out=tokens_out,
            cost_usd=cost,
            builder_contributed=contributed if isinstance(contributed, bool) else None,
        )
        for (
            src,
            task,
            model,
            planner,
            builder,
            grade,
            grade_max,
            seconds,
            tokens_in,
            tokens_out,
            cost,
            contributed,
        ) in rows
    ]


def export_runs(*, source: str | None = None) -> Any:
    """The stored runs in the open runs format's fields, in a stable order (an iterator of tuples)."""
    runs = LabRun.objects.order_by("source__name", "key")
    if source is not None:
        runs = runs.filter(source__name=source)
    return runs.values_list(
        "source__name",
        "task__key",
        "model",
        "grade",
        "grade_max",
        "seconds",
        "tokens_in",
        "tokens_out",
        "cost_usd",
        "harness",
        "day",
        "planner",
        "builder",
        "effort",
    ).iterator(chunk_size=2000)


@dataclass(frozen=True)
class FieldRanking:
    snapshot_id: int
    is_demo: bool
    # The pool.json-shaped document; only lab.field reads inside it.
    document: dict[str, Any]


def field_ranking() -> FieldRanking | None:
    """The newest published ranking of the field, or None before the first: one query."""
    snapshot = latest_snapshot()
    if snapshot is None:
        return None
    document = snapshot.document or {}
    is_demo = bool(snapshot.is_demo or (document.get("meta") or {}).get("demo"))
    return FieldRanking(snapshot_id=snapshot.id, is_demo=is_demo, document=document)
