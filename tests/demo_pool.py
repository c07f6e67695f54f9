"""The demo pool published for tests: published once per test process by load_demo, put back per test.

`published_demo` runs the real path once (leaderboard.demo.load_demo: generate, store, full recompute) in a
transaction that is rolled back, so the database stays empty for every other test, and keeps what it stored.
`demo_snapshot` puts those rows back in the test's own transaction: the contributors as they were (their ids
too, which the sequence handed out already, so no later row takes one and the snapshot's fingerprint, which
names them, still holds), their cycles through the storage's own bulk path (COPY, which keeps the cells), the
snapshot and its group scores as the publish wrote them. No recompute runs per test; a test that needs one (a
contribution, a retraction, a recompute) runs its own. The fixtures are registered for every test in
tests/conftest.py.
"""

import copy
import datetime as dt
from dataclasses import dataclass
from typing import Any

import pytest
from django.db import transaction

from ingest.contract import STORED_FIELDS
from ingest.models import Contributor, Cycle, NameSighting
from ingest.services import store_made_facts
from leaderboard import demo, windows
from leaderboard.models import GroupScore, Snapshot
from leaderboard.published import serve_new_snapshot

# Smaller than the make-run demo so the one recompute per test process takes well under a second.
TEST_CYCLES = 1500


@dataclass(frozen=True)
class PublishedDemo:
    """What publishing the test pool stored, kept once per test process (per xdist worker)."""

    contributors: list[dict[str, Any]]  # the Contributor rows' fields, ids included
    facts: dict[int, list[dict[str, Any]]]  # each contributor's cycles in stored field names, in stored order
    stored_at: dt.datetime  # the cycles' `generated` and `received_at`: load_demo stores them in one batch
    snapshot: dict[str, Any]  # the Snapshot's fields but its id
    scores: list[dict[str, Any]]  # its GroupScore rows' fields but theirs and the snapshot's
    sightings: list[dict[str, Any]]  # the names its contributors sent by day, for the public-name rule


@pytest.fixture(scope="session")
def published_demo(django_db_setup: None, django_db_blocker: Any) -> PublishedDemo:
    """The test pool published once through load_demo, inside a transaction that is rolled back."""
    with django_db_blocker.unblock(), transaction.atomic():
        snapshot = Snapshot.objects.get(id=demo.load_demo(count=TEST_CYCLES))
        contributors = [dict(row) for row in Contributor.objects.order_by("id").values()]
        facts: dict[int, list[dict[str, Any]]] = {}
        for row in Cycle.objects.order_by("id").values("contributor_id", *STORED_FIELDS):
            facts.setdefault(row.pop("contributor_id"), []).append(row)
        (stored_at,) = {t for pair in Cycle.objects.values_list("generated", "received_at").distinct() for t in pair}
        fields = {f.attname: getattr(snapshot, f.attname) for f in Snapshot._meta.concrete_fields if not f.primary_key}
        scores = list(GroupScore.objects.filter(snapshot=snapshot).values())
        sightings = [dict(row) for row in NameSighting.objects.values("contributor_id", "name", "day")]
        transaction.set_rollback(True)
    return PublishedDemo(
        contributors=contributors,
        facts=facts,
        stored_at=stored_at,
        snapshot=fields,
        scores=[{k: v for k, v in score.items() if k not in ("id", "snapshot_id")} for score in scores],
        sightings=sightings,
    )


def put_back(published: PublishedDemo) -> Snapshot:
    """Store the published pool and its snapshot again, in one transaction (a savepoint inside a test's)."""
    with transaction.atomic():
        Contributor.objects.bulk_create([Contributor(**row) for row in published.contributors])
        store_made_facts(published.facts, generated=published.stored_at, now=published.stored_at)
        NameSighting.objects.bulk_create([NameSighting(**row) for row in published.sightings])
        # A copy: tests edit the document they are given.
        snapshot = Snapshot.objects.create(**copy.deepcopy(published.snapshot))
        GroupScore.objects.bulk_create([GroupScore(snapshot=snapshot, **score) for score in published.scores])
        # Of what a publish announces on commit (leaderboard.published.snapshot_published), what the pages read:
        # the cached pages retired. As for a real publish, never run in a test whose transaction is rolled back;
        # at the commit under a live server. The tasks' receiver only queues the worker's export and warming.
        transaction.on_commit(serve_new_snapshot)
    return snapshot


@pytest.fixture
def demo_snapshot(db: None, published_demo: PublishedDemo) -> Snapshot:
    """The demo pool stored and its snapshot published, as load_demo leaves them, without scoring it again."""
    return put_back(published_demo)


@pytest.fixture
def warmed_demo_snapshot(demo_snapshot: Snapshot) -> Snapshot:
    """The demo snapshot with its preset windows and harness lenses computed, as the worker leaves them after a
    publish: the demo has several harnesses, and a pairing page is kept only once it can show every lens."""
    windows.warm_windows(snapshot_id=demo_snapshot.id)
    return demo_snapshot
