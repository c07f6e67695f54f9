"""Writes to the lab tables: importing a parsed source, and the operator's model aliases."""

import re
from dataclasses import dataclass, fields

from django.db import transaction

from core.page_cache import GENERATION_KEY, bump_generation, forget_process_copies
from lab.importers import LabInputError, ParsedSource, RunRecord
from lab.models import LabRun, LabSource, LabTask, ModelAlias
from lab.names import normalise_model

# Bumped after every change to the lab tables: it is part of every lab page's cache key.
LAB_GENERATION_KEY = "lab:generation"
SOURCE_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
_RUN_FIELDS = tuple(f.name for f in fields(RunRecord) if f.name not in ("key", "task"))


@dataclass(frozen=True)
class ImportResult:
    source: str
    created: int
    updated: int
    unchanged: int


def bump_lab_generation() -> None:
    bump_generation(LAB_GENERATION_KEY)
    # The field's pages say whether the lab has their model or pairing: they are retired too.
    bump_generation(GENERATION_KEY)
    forget_process_copies()


def import_source(*, parsed: ParsedSource) -> ImportResult:
    """Store a parsed source all-or-nothing; a run already stored as read is left alone.

    Runs are matched by their key within the source, so importing the same file again changes
    nothing, and a corrected file updates its runs in place. Runs missing from the file stay:
    a source may be imported from several files.
    """
    info = parsed.source
    if not SOURCE_NAME.match(info.name):
        raise LabInputError(info.name, "a source name is lower-case letters, digits and dashes")
    described = info.described()
    with transaction.atomic():
        source, created = LabSource.objects.get_or_create(name=info.name, defaults=described)
        if not created and any(getattr(source, k) != v for k, v in described.items()):
            for k, v in described.items():
                setattr(source, k, v)
            source.save()
        tasks = dict(LabTask.objects.filter(source=source).values_list("key", "id"))
        new_tasks = sorted({run.task for run in parsed.runs} - tasks.keys())
        LabTask.objects.bulk_create([LabTask(source=source, key=key) for key in new_tasks])
        tasks = dict(LabTask.objects.filter(source=source).values_list("key", "id"))
        stored = {run.key: run for run in LabRun.objects.filter(source=source)}
        to_create, to_update, unchanged = [], [], 0
        for record in parsed.runs:
            values = {name: getattr(record, name) for name in _RUN_FIELDS}
            values["task_id"] = tasks[record.task]
            row = stored.get(record.key)
            if row is None:
                to_create.append(LabRun(source=source, key=record.key, **values))
            elif all(getattr(row, k) == v for k, v in values.items()):
                unchanged += 1
            else:
                for k, v in values.items():
                    setattr(row, k, v)
                to_update.append(row)
        LabRun.objects.bulk_create(to_create, batch_size=500)
        LabRun.objects.bulk_update(to_update, [*_RUN_FIELDS, "task_id"], batch_size=500)
        if to_create or to_update or created:
            transaction.on_commit(bump_lab_generation)
    return ImportResult(source=info.name, created=len(to_create), updated=len(to_update), unchanged=unchanged)


def add_alias(*, name: str, canonical: str) -> ModelAlias:
    """Map a lab's model name (normalised first) to the field's canonical name."""
    key, target = normalise_model(name), canonical.strip().lower()
    if not key or not target:
        raise ValueError("both names are required")
    if key == target:
        raise ValueError(f"{name!r} already normalises to {target!r}: no alias needed")
    with transaction.atomic():
        alias, _ = ModelAlias.objects.update_or_create(name=key, defaults={"canonical": target})
        transaction.on_commit(bump_lab_generation)
    return alias


def remove_alias(*, name: str) -> bool:
    with transaction.atomic():
        deleted, _ = ModelAlias.objects.filter(name=normalise_model(name)).delete()
        if deleted:
            transaction.on_commit(bump_lab_generation)
    return bool(deleted)
