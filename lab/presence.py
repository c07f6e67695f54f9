"""Which field models and pairings some lab source has runs of: what the field's pages link to the lab for.

Read in one query (the stored names and the operator's aliases together), kept in the shared cache
under the lab's generation, so it is read once per import or alias change.
"""

from typing import Final

from django.db.models import CharField, Value

from core import soft_cache
from lab import field, selectors
from lab.aliases import starter_aliases
from lab.models import LabRun, ModelAlias
from lab.names import canonical_model

PRESENCE_SECONDS: Final = 24 * 3600
# Marks an alias row in the one query's union (no model name has an "=").
_ALIAS: Final = "=alias="


def _read() -> frozenset[tuple[str, str]]:
    names = LabRun.objects.order_by().values_list("model", "planner", "builder").distinct()
    aliases = (
        ModelAlias.objects.order_by()
        .annotate(kind=Value(_ALIAS, output_field=CharField()))
        .values_list("name", "canonical", "kind")
    )
    rows = list(names.union(aliases))
    mapping = starter_aliases() | {name: canonical for name, canonical, kind in rows if kind == _ALIAS}
    found: set[tuple[str, str]] = set()
    for model, planner, builder in rows:
        if builder == _ALIAS:
            continue
        if planner and builder:
            planner, builder = canonical_model(planner, mapping), canonical_model(builder, mapping)
        found.update(field.field_labels(canonical_model(model, mapping), planner, builder))
    return frozenset(found)


def lab_labels() -> frozenset[tuple[str, str]]:
    """(view, label) of every field group some lab run joins."""
    key = f"lab:labels:{selectors.lab_generation()}"
    held = soft_cache.get(key)
    if isinstance(held, frozenset):
        return held
    found = _read()
    soft_cache.set(key, found, PRESENCE_SECONDS)
    return found


def in_the_lab(view: str, label: str) -> bool:
    return view in field.VIEWS and (view, label) in lab_labels()
