"""The names a contribution holds, recorded once per contributor and day (ingest.models.NameSighting)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, date, datetime
from operator import itemgetter
from typing import Any, Final

from ingest.contract import STORED_FIELDS
from ingest.models import NameSighting
from scoring.public_labels import PUBLISHED_NAME_COLUMNS

# Where each published name sits in a normalized row (ingest.contract.STORED_FIELDS order).
NAME_POSITIONS: Final = tuple(STORED_FIELDS.index(field) for field in PUBLISHED_NAME_COLUMNS)


def names_in(rows: Sequence[tuple[Any, ...]]) -> set[str]:
    """The distinct names of the rows' published name columns, the empty value left out."""
    # Rows repeat their names: the distinct combinations first (in C), then their names.
    combinations = set(map(itemgetter(*NAME_POSITIONS), rows))
    return {name for names in combinations for name in names} - {""}


def record_sightings(*, contributor_id: int, rows: Sequence[tuple[Any, ...]], now: datetime) -> None:
    """Note that the contributor sent these rows' names today (one row per name and day, whatever the requests)."""
    record_names(contributor_id=contributor_id, names=names_in(rows), days=[now.astimezone(UTC).date()])


def record_names(*, contributor_id: int, names: Iterable[str], days: Iterable[date]) -> None:
    """Note that the contributor sent these names on each of these days (kept once per name and day)."""
    NameSighting.objects.bulk_create(
        [NameSighting(contributor_id=contributor_id, name=name, day=day) for name in sorted(names) for day in days],
        ignore_conflicts=True,
    )
