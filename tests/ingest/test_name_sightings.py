"""The names a contribution holds are noted once per contributor, name and day, and only as many days as the
public-name rule can use: the table grows with names, not with days of use."""

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from ingest.models import NameSighting
from ingest.name_sightings import sightings_kept
from ingest.services import contribute
from tests.cycles.wire import envelope, wire_cycle
from tests.ingest.test_services import validated

pytestmark = pytest.mark.django_db


def test_it_notes_each_name_once_a_day_and_stops_once_the_rule_has_enough_days(settings: Any) -> None:
    settings.PUBLIC_LABEL_MIN_DAYS, settings.PUBLIC_LABEL_MIN_TENURE_HOURS = 3, 24
    install, start = uuid.uuid4(), datetime.now(UTC) - timedelta(days=10)
    for day in range(8):
        for request in range(2):  # twice a day: noted once
            now = start + timedelta(days=day, hours=request)
            rows = [wire_cycle(100 * day + 10 * request + i, pm="house-model", pp="acme") for i in range(3)]
            contribute(envelope=validated(envelope(rows, install=install, generated=now)), now=now)

    days = NameSighting.objects.filter(name="house-model").values_list("day", flat=True)
    assert sightings_kept() == 5
    assert sorted(days) == [(start + timedelta(days=day)).date() for day in range(5)]
    assert set(NameSighting.objects.values_list("name", flat=True)) >= {"house-model", "acme", "opencode"}
    assert "" not in set(NameSighting.objects.values_list("name", flat=True))
