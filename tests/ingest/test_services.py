"""The ingest's writes: concurrency, the recompute request after commit, retraction."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from ingest.contract import Envelope, validate_envelope
from ingest.models import Contributor, Cycle, Receipt, Retraction, install_hash
from ingest.services import ContributionResult, InstallRetractedError, contribute, retract
from tests.cycles.wire import envelope, wire_cycle


def validated(body: dict[str, Any]) -> Envelope:
    result = validate_envelope(body, now=datetime.now(UTC), max_rows=20_000)
    assert result.envelope is not None, result.errors
    return result.envelope


def run_together(*calls: Callable[[], Any], expect: type = ContributionResult) -> list[Any]:
    """Run the calls in threads released at once; each thread uses (and closes) its own connection."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(index: int, call: Callable[[], Any]) -> None:
        try:
            barrier.wait()
            results[index] = call()
        except Exception as exc:  # surfaced by the assertion below
            results[index] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert all(isinstance(result, expect) for result in results), results
    return results


def contribute_and_retract_at_once(batch: Envelope, install: uuid.UUID) -> tuple[object, int]:
    """(the contribution's result, or the InstallRetractedError it met; the rows the retraction deleted)."""

    def send() -> object:
        try:
            return contribute(envelope=batch, now=timezone.now())
        except InstallRetractedError as refused:
            return refused

    outcome, deleted = run_together(send, lambda: retract(install=install, now=timezone.now()), expect=object)
    return outcome, deleted


@pytest.mark.django_db(transaction=True)
def test_it_neither_loses_nor_double_counts_two_requests_of_one_install_at_once() -> None:
    install = str(uuid.uuid4())
    generated = datetime.now(UTC) - timedelta(minutes=1)
    # Overlapping batches: keys 0..599 and 400..999, sent at the same moment.
    first = validated(envelope([wire_cycle(i) for i in range(600)], install=install, generated=generated))
    second = validated(envelope([wire_cycle(i) for i in range(400, 1000)], install=install, generated=generated))

    results = run_together(
        lambda: contribute(envelope=first, now=timezone.now()),
        lambda: contribute(envelope=second, now=timezone.now()),
    )

    assert sum(result.inserted for result in results) == 1000
    assert sum(result.unchanged for result in results) == 200
    assert sum(result.updated for result in results) == 0
    assert Cycle.objects.count() == 1000
    assert Contributor.objects.count() == 1
    assert Receipt.objects.count() == 2


@pytest.mark.django_db(transaction=True)
def test_it_creates_one_contributor_when_a_new_install_sends_twice_at_once() -> None:
    install = str(uuid.uuid4())
    batches = [validated(envelope([wire_cycle(i)], install=install)) for i in range(2)]

    results = run_together(*(lambda batch=batch: contribute(envelope=batch, now=timezone.now()) for batch in batches))

    assert [result.inserted for result in results] == [1, 1]
    assert Contributor.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_it_leaves_nothing_behind_when_a_retraction_races_a_contribution() -> None:
    install = uuid.uuid4()
    contribute(envelope=validated(envelope(5, install=install)), now=timezone.now())
    batch = validated(envelope([wire_cycle(i) for i in range(10, 400)], install=install))

    outcome, deleted = contribute_and_retract_at_once(batch, install)

    # Whichever came first, the retraction wins: nothing of the install is left.
    assert Cycle.objects.count() == 0
    assert deleted in (5, 395)
    assert isinstance(outcome, InstallRetractedError) == (deleted == 5)
    assert Contributor.objects.get().is_retracted


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("attempt", range(3))
def test_it_leaves_nothing_behind_when_a_new_installs_first_contribution_races_its_retraction(attempt: int) -> None:
    # No contributor row exists yet for either side to lock: the install's own lock must order them.
    install = uuid.uuid4()
    batch = validated(envelope([wire_cycle(i) for i in range(300)], install=str(install)))

    outcome, deleted = contribute_and_retract_at_once(batch, install)

    assert Cycle.objects.count() == 0
    assert deleted in (0, 300)
    assert isinstance(outcome, InstallRetractedError) == (deleted == 0)
    assert Retraction.objects.count() == 1


@pytest.mark.django_db
def test_it_asks_for_a_recompute_after_commit_only_when_rows_changed(
    django_capture_on_commit_callbacks: Any,
) -> None:
    body = validated(envelope(3))

    with django_capture_on_commit_callbacks(execute=False) as first:
        contribute(envelope=body, now=timezone.now())
    with django_capture_on_commit_callbacks(execute=False) as resend:
        contribute(envelope=body, now=timezone.now())
    with django_capture_on_commit_callbacks(execute=False) as retraction:
        retract(install=body.install, now=timezone.now())

    assert [callback.__name__ for callback in first] == ["_queue_recompute"]
    assert resend == []
    assert [callback.__name__ for callback in retraction] == ["_queue_recompute"]


@pytest.mark.django_db
def test_it_keeps_first_seen_and_moves_last_seen() -> None:
    install = uuid.uuid4()
    start = timezone.now() - timedelta(days=3)
    contribute(envelope=validated(envelope(1, install=install)), now=start)
    contribute(envelope=validated(envelope(2, install=install)), now=start + timedelta(days=1))

    contributor = Contributor.objects.get()

    assert (contributor.first_seen, contributor.last_seen) == (start, start + timedelta(days=1))
    assert contributor.retracted_at is None


@pytest.mark.django_db
def test_it_forgets_retractions_of_installs_never_seen_after_retraction_unseen_days(settings: Any) -> None:
    settings.RETRACTION_UNSEEN_DAYS = 30
    now = timezone.now()
    long_ago = now - timedelta(days=31)
    unseen_old, unseen_recent, seen_old = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    contribute(envelope=validated(envelope(2, install=str(seen_old))), now=long_ago)
    retract(install=seen_old, now=long_ago)
    retract(install=unseen_old, now=long_ago)
    retract(install=unseen_recent, now=now - timedelta(days=29))

    retract(install=uuid.uuid4(), now=now)  # any later retraction forgets what has expired

    assert Retraction.objects.count() == 3
    assert not Retraction.objects.filter(install_hash=install_hash(unseen_old)).exists()
    # A contributor who stored cycles stays refused for good; a recent retraction still refuses.
    for refused in (seen_old, unseen_recent):
        with pytest.raises(InstallRetractedError):
            contribute(envelope=validated(envelope(1, install=str(refused))), now=now)
    assert contribute(envelope=validated(envelope(1, install=str(unseen_old))), now=now).inserted == 1
