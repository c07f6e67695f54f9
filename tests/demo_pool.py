"""The demo pool published for tests: scored once per test process, stored again per test (tests.pages, tests.lab).

Imported into a folder's conftest.py, the fixtures serve that folder's tests.
"""

import copy
from dataclasses import dataclass
from typing import Any

import pytest
from django.db import transaction

from rankings import demo
from rankings.cells import cells_fingerprint, pool_cells
from rankings.models import GroupScore, Snapshot
from rankings.selectors import scoring_config

# Smaller than the make-run demo so each test recomputes in well under a second.
TEST_CYCLES = 1500


@dataclass(frozen=True)
class PublishedDemo:
    """What publishing the test pool stored, kept once per test session (per xdist worker)."""

    snapshot: dict[str, Any]  # the Snapshot's fields but its id
    scores: list[dict[str, Any]]  # its GroupScore rows' fields but theirs and the snapshot's


@pytest.fixture(scope="session")
def published_demo(django_db_setup: None, django_db_blocker: Any) -> PublishedDemo:
    """The test pool scored once: a recompute inside a transaction that is rolled back, so the database stays
    empty for every other test, and what it stored is kept to be put back per test."""
    with django_db_blocker.unblock(), transaction.atomic():
        snapshot = Snapshot.objects.get(id=demo.load_demo(count=TEST_CYCLES))
        fields = {f.attname: getattr(snapshot, f.attname) for f in Snapshot._meta.concrete_fields if not f.primary_key}
        scores = list(GroupScore.objects.filter(snapshot=snapshot).values())
        transaction.set_rollback(True)
    return PublishedDemo(
        snapshot=fields,
        scores=[{k: v for k, v in score.items() if k not in ("id", "snapshot_id")} for score in scores],
    )


@pytest.fixture
def demo_snapshot(db: None, published_demo: PublishedDemo) -> Snapshot:
    """The demo pool stored and its snapshot published, as load_demo does, without scoring it again: the same
    generator and seed store the same cycles, and the session's snapshot of them is stored beside them."""
    demo.store_demo_cycles(count=TEST_CYCLES)
    # The fingerprint names the contributors' ids, which are this test's own: an unchanged pool stays unchanged.
    fingerprint = cells_fingerprint(pool_cells(), scoring_config())
    # A copy: tests edit the document they are given.
    snapshot = Snapshot.objects.create(**{**copy.deepcopy(published_demo.snapshot), "fingerprint": fingerprint})
    GroupScore.objects.bulk_create([GroupScore(snapshot=snapshot, **score) for score in published_demo.scores])
    return snapshot
