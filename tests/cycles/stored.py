"""Cycles as stored model rows, made through the storage's own bulk path (the scorer reads them back)."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from ingest.models import Contributor, Cycle, NameSighting, install_hash
from scoring.public_labels import PUBLISHED_NAME_COLUMNS
from tests.cycles import drawn_cycles


def make_contributor(
    *, install: uuid.UUID | None = None, demo: bool = False, seen_for: timedelta = timedelta(0)
) -> Contributor:
    """A contributor; `demo` makes one like load_demo's, whose cycles count only while no real ones exist;
    `seen_for` is how long ago it first contributed (its latest contribution is now)."""
    now = timezone.now()
    return Contributor.objects.create(
        install_hash=install_hash(install or uuid.uuid4()), first_seen=now - seen_for, last_seen=now, is_demo=demo
    )


def store_cycles(contributor: Contributor, cycles: Iterable[Mapping[str, Any]]) -> list[Cycle]:
    """Store cycles in stored field names as the contributor's, generated and received now, their names sighted
    on every day since the contributor was first seen (as if it had sent them all along)."""
    now = timezone.now()
    stored = store_made_cycles(
        [Cycle(contributor=contributor, generated=now, received_at=now, **cycle) for cycle in cycles]
    )
    names = {getattr(cycle, field) for cycle in stored for field in PUBLISHED_NAME_COLUMNS} - {""}
    sight_names(contributor, names, days=(now.date() - contributor.first_seen.date()).days + 1)
    return stored


def store_made_cycles(cycles: list[Cycle]) -> list[Cycle]:
    """Store cycles made outside a contribution and number their contributors' first cycles, as contribute() and
    the demo's store_made_facts do (assign_numbers)."""
    with transaction.atomic():
        created = Cycle.objects.bulk_create(cycles)
        Contributor.objects.filter(id__in={cycle.contributor_id for cycle in created}).assign_numbers()
    return created


def sight_names(contributor: Contributor, names: Iterable[str], *, days: int) -> None:
    """Record that the contributor sent these names on each of the last `days` days, today included."""
    today = timezone.now().date()
    NameSighting.objects.bulk_create(
        [
            NameSighting(contributor=contributor, name=name, day=today - timedelta(days=back))
            for name in names
            for back in range(days)
        ],
        ignore_conflicts=True,
    )


def make_cycles(contributor: Contributor, *, count: int, **draw: Any) -> list[Cycle]:
    """Store tests.cycles.drawn_cycles(count, **draw) as the contributor's."""
    return store_cycles(contributor, drawn_cycles(count, **draw))
