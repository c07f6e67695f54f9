"""The names a contribution holds, recorded once per contributor and day (ingest.models.NameSighting)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from datetime import UTC, date, datetime
from operator import itemgetter
from typing import Any, Final

from django.conf import settings
from django.db.models import Count

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


def sightings_kept() -> int:
    """How many days of one name one contributor are kept: the days the rule asks for, and the days before the
    contributor's tenure ended (which never count). The table then grows with names, not with days of use."""
    return settings.PUBLIC_LABEL_MIN_DAYS + math.ceil(settings.PUBLIC_LABEL_MIN_TENURE_HOURS / 24) + 1


def record_sightings(*, contributor_id: int, rows: Sequence[tuple[Any, ...]], now: datetime) -> None:
    """Note that the contributor sent these rows' names today (one row per name and day, whatever the requests),
    for each name it has not sent on sightings_kept() days yet."""
    names = names_in(rows)
    seen = NameSighting.objects.filter(contributor_id=contributor_id, name__in=sorted(names))
    enough = seen.values("name").annotate(days=Count("day")).filter(days__gte=sightings_kept())
    unsettled = names.difference(enough.values_list("name", flat=True))
    record_names(contributor_id=contributor_id, names=unsettled, days=[now.astimezone(UTC).date()])


def record_names(*, contributor_id: int, names: Iterable[str], days: Iterable[date]) -> None:
    """Note that the contributor sent these names on each of these days (kept once per name and day)."""
    NameSighting.objects.bulk_create(
        [NameSighting(contributor_id=contributor_id, name=name, day=day) for name in sorted(names) for day in days],
        ignore_conflicts=True,
    )
