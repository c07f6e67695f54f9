"""Export pseudonyms: c1, c2, ... in order of first contribution, dense, stable across exports."""

from __future__ import annotations

import csv
import gzip
import io
import uuid
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from core import page_cache
from ingest.models import Contributor, Retraction, install_hash
from ingest.services import contribute, retract
from leaderboard import cycles_file, recompute
from tests.cycles.wire import envelope, wire_cycle
from tests.ingest.conftest import Api
from tests.ingest.test_services import run_together, validated


def number_of(install: str | uuid.UUID) -> int | None:
    return Contributor.objects.get(install_hash=install_hash(uuid.UUID(str(install)))).number


def exported_pseudonyms(client: Client) -> list[str]:
    """The pseudonyms of cycles.csv, written as the worker writes it after a publish."""
    snapshot = recompute.publish(force=True)
    assert snapshot is not None
    assert cycles_file.write_cycles_export(snapshot_id=snapshot.id) is not None
    page_cache.bump_generation()  # what the publish's commit hooks do, so the download serves it
    page_cache.forget_process_copies()
    response: Any = client.get("/data/cycles.csv.gz")
    assert response.status_code == 200
    assert response["X-Snapshot"] == str(snapshot.id)
    body = gzip.decompress(b"".join(response.streaming_content)).decode()
    return [row["contributor"] for row in csv.DictReader(io.StringIO(body))]


@pytest.mark.django_db
def test_it_numbers_two_contributors_c1_and_c2_whatever_requests_came_before(api: Api) -> None:
    # Requests that consume contributor ids without storing a cycle: retractions of unknown
    # installs, and contributions an install sends after retracting.
    for _ in range(3):
        assert api.retract(str(uuid.uuid4())).status_code == 200
    gone = str(uuid.uuid4())
    api.retract(gone)
    for _ in range(2):
        assert api.contribute(envelope(1, install=gone)).status_code == 410
    first, second = str(uuid.uuid4()), str(uuid.uuid4())

    assert api.contribute(envelope(2, install=first)).status_code == 202
    assert api.contribute(envelope(3, install=second)).status_code == 202
    assert api.contribute(envelope(5, install=first)).status_code == 202

    assert (number_of(first), number_of(second)) == (1, 2)
    assert {contributor.pseudonym for contributor in Contributor.objects.filter(number__isnull=False)} == {"c1", "c2"}
    # Retractions and refused contributions leave no contributor row behind.
    assert Contributor.objects.count() == 2


@pytest.mark.django_db
def test_it_gives_no_number_and_no_row_to_an_install_that_only_retracted(api: Api) -> None:
    retracting = str(uuid.uuid4())
    api.retract(retracting)
    contributing = str(uuid.uuid4())
    api.contribute(envelope(1, install=contributing))

    assert not Contributor.objects.filter(install_hash=install_hash(uuid.UUID(retracting))).exists()
    assert Retraction.objects.filter(install_hash=install_hash(uuid.UUID(retracting))).exists()
    assert number_of(contributing) == 1


@pytest.mark.django_db
def test_it_keeps_a_number_through_a_retraction_and_never_hands_it_out_again(api: Api) -> None:
    leaving, staying = str(uuid.uuid4()), str(uuid.uuid4())
    api.contribute(envelope(1, install=leaving))
    api.contribute(envelope(1, install=staying))
    api.retract(leaving)
    newcomer = str(uuid.uuid4())
    api.contribute(envelope(1, install=newcomer))

    assert (number_of(leaving), number_of(staying), number_of(newcomer)) == (1, 2, 3)


@pytest.mark.django_db
def test_it_keeps_everyone_elses_pseudonyms_in_an_export_after_a_retraction(api: Api) -> None:
    installs = [str(uuid.uuid4()) for _ in range(3)]
    for count, install in zip((2, 3, 4), installs, strict=True):
        api.contribute(envelope(count, install=install))
    before = exported_pseudonyms(api.client)

    api.retract(installs[1])
    after = exported_pseudonyms(api.client)

    assert sorted(before) == ["c1", "c1", "c2", "c2", "c2", "c3", "c3", "c3", "c3"]
    assert sorted(after) == ["c1", "c1", "c3", "c3", "c3", "c3"]


@pytest.mark.django_db(transaction=True)
def test_it_numbers_first_contributions_sent_at_once_without_a_clash_or_a_gap() -> None:
    batches = [validated(envelope([wire_cycle(i) for i in range(20)], install=uuid.uuid4())) for _ in range(8)]

    run_together(*(lambda batch=batch: contribute(envelope=batch, now=timezone.now()) for batch in batches))

    assert sorted(number_of(batch.install) or 0 for batch in batches) == list(range(1, 9))


@pytest.mark.django_db
def test_it_numbers_contributors_whose_first_cycles_are_stored_in_bulk() -> None:
    from tests.cycles.stored import make_contributor, make_cycles

    retract(install=uuid.uuid4(), now=timezone.now())
    first, second = make_contributor(), make_contributor()
    make_cycles(second, count=3)
    make_cycles(first, count=3)
    make_cycles(second, count=2, key_offset=100)

    first.refresh_from_db()
    second.refresh_from_db()
    assert (second.pseudonym, first.pseudonym) == ("c1", "c2")


@pytest.mark.django_db
def test_it_numbers_existing_contributors_with_cycles_in_id_order_when_migrating() -> None:
    import importlib

    from django.apps import apps

    from tests.cycles.stored import make_contributor, make_cycles

    migration = importlib.import_module("ingest.migrations.0002_contributor_number")
    first, only_retracted, second = make_contributor(), make_contributor(), make_contributor()
    make_cycles(second, count=2)
    make_cycles(first, count=2)
    # As stored before the field existed: nobody numbered.
    Contributor.objects.update(number=None)

    migration.number_contributors_with_cycles(apps, None)

    numbers = dict(Contributor.objects.values_list("id", "number"))
    assert (numbers[first.id], numbers[only_retracted.id], numbers[second.id]) == (1, None, 2)


@pytest.mark.django_db
def test_it_moves_retractions_apart_and_drops_the_rows_only_a_retraction_made_when_migrating() -> None:
    import importlib

    from django.apps import apps
    from django.utils import timezone

    from tests.cycles.stored import make_contributor, make_cycles

    migration = importlib.import_module("ingest.migrations.0005_retraction")
    now = timezone.now()
    kept, only_retracted, left = make_contributor(), make_contributor(), make_contributor()
    make_cycles(kept, count=2)
    make_cycles(left, count=2, key_offset=10)
    Contributor.objects.filter(id=only_retracted.id).update(retracted_at=now, number=None)
    Contributor.objects.filter(id=left.id).update(retracted_at=now)

    migration.remember_retractions_apart(apps, None)

    assert set(Retraction.objects.values_list("install_hash", flat=True)) == {
        only_retracted.install_hash,
        left.install_hash,
    }
    assert set(Contributor.objects.values_list("id", flat=True)) == {kept.id, left.id}
