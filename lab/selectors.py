"""Reads of the lab tables and of the field's newest ranking (the only place the lab reads it)."""

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, fields
from typing import Any

from django.db.models import QuerySet

from core.page_cache import cache_generation
from lab.aliases import STARTER_VERSION, starter_aliases
from lab.models import LabRun, LabSource, ModelAlias
from lab.names import canonical_model
from lab.services import LAB_GENERATION_KEY
from lab.summary import Run
from leaderboard.published import Published
from scoring.shapes import PoolDocument


def lab_generation() -> str:
    """A name that changes whenever the lab tables or the starter aliases do (part of every lab cache key)."""
    return f"{cache_generation(LAB_GENERATION_KEY)}.{STARTER_VERSION}"


def lab_sources() -> list[LabSource]:
    return list(LabSource.objects.order_by("name"))


def aliases() -> dict[str, str]:
    """The starter aliases (lab.aliases), then the operator's, which win for the same name."""
    return starter_aliases() | dict(ModelAlias.objects.values_list("name", "canonical"))


# Open runs format field → the LabRun lookup that holds it, where the two differ.
_LOOKUPS = {
    "source": "source__name",
    "task": "task__key",
    "builder_contributed": "extras__builder_contributed",
    "cases": "extras__test_cases",
}

# The open runs format's fields, in the order the export writes them.
RUN_FIELDS = (
    "source",
    "task",
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
)


def _lookups(names: Iterable[str]) -> list[str]:
    return [_LOOKUPS.get(name, name) for name in names]


def _runs_of(source: str | None, order: str) -> QuerySet[LabRun]:
    runs = LabRun.objects.order_by("source__name", order)
    return runs if source is None else runs.filter(source__name=source)


def lab_runs(*, source: str | None = None) -> list[Run]:
    """Every run (of one source, if named) with the operator's aliases applied: two queries."""
    names = aliases()
    run_fields = [f.name for f in fields(Run)]
    result = []
    for values in _runs_of(source, "id").values_list(*_lookups(run_fields)):
        run = dict(zip(run_fields, values, strict=True))
        run["model"] = canonical_model(run["model"], names)
        for role in ("planner", "builder"):
            run[role] = canonical_model(run[role], names) if run[role] else ""
        if not isinstance(run["builder_contributed"], bool):
            run["builder_contributed"] = None
        if not isinstance(run["cases"], int) or isinstance(run["cases"], bool):
            run["cases"] = None
        result.append(Run(**run))
    return result


def export_runs(*, source: str | None = None) -> Iterator[dict[str, Any]]:
    """The stored runs as the open runs format's fields (RUN_FIELDS order), in a stable order."""
    rows = _runs_of(source, "key").values_list(*_lookups(RUN_FIELDS)).iterator(chunk_size=2000)
    return (dict(zip(RUN_FIELDS, values, strict=True)) for values in rows)


@dataclass(frozen=True)
class FieldRanking:
    snapshot_id: int
    is_demo: bool
    # The pool.json-shaped document; only lab.field reads inside it.
    document: PoolDocument


def field_ranking(snapshot: Published | None) -> FieldRanking | None:
    """The field's newest published ranking as this process holds it (core.page_cache), or None before the first."""
    if snapshot is None:
        return None
    document = snapshot.document
    is_demo = bool(snapshot.is_demo or (document.get("meta") or {}).get("demo"))
    return FieldRanking(snapshot_id=snapshot.id, is_demo=is_demo, document=document)
