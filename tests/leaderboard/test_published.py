"""Reading a stored snapshot's document: once, in the shape scoring.shapes names, and only in its own version; and
the announcement of a new one."""

from typing import Any

from django.test import Client

from core.page_cache import forget_process_copies
from leaderboard import recompute
from leaderboard.models import Snapshot
from leaderboard.published import current_snapshot, read_document, snapshot_document, snapshot_published
from scoring.shapes import DOCUMENT_VERSION
from tests.cycles.stored import make_contributor, make_cycles


def _published() -> Snapshot:
    make_cycles(make_contributor(), count=60, seed=1)
    make_cycles(make_contributor(), count=40, seed=2, ship_rate=0.5)
    snapshot = recompute.publish()
    assert snapshot is not None
    return snapshot


def _store_as_an_older_version(snapshot: Snapshot) -> None:
    document = dict(snapshot.document)
    document["meta"] = {key: value for key, value in document["meta"].items() if key != "document_version"}
    Snapshot.objects.filter(id=snapshot.id).update(document=document)
    forget_process_copies()


def test_it_reads_a_document_of_its_own_version_with_the_snapshots_identity(db: None) -> None:
    snapshot = _published()
    stored = Snapshot.objects.get(id=snapshot.id)
    assert stored.document["meta"]["document_version"] == DOCUMENT_VERSION
    document = snapshot_document(stored)
    assert document is not None
    assert document["meta"]["snapshot"] == str(snapshot.id) and document["meta"]["demo"] is False
    assert document["views"] == stored.document["views"]
    served = current_snapshot()
    assert served is not None and served.id == snapshot.id


def test_it_serves_nothing_from_a_document_of_another_version_until_a_recompute_replaces_it(
    db: None, client: Client, django_capture_on_commit_callbacks: Any
) -> None:
    older = _published()
    _store_as_an_older_version(older)
    assert read_document(Snapshot.objects.get(id=older.id).document) is None
    assert read_document({"meta": {"document_version": DOCUMENT_VERSION + 1}, "views": {}}) is None
    assert read_document("not a document") is None
    assert current_snapshot() is None
    assert client.get("/api/v1/pool.json").status_code == 503

    # The pool is unchanged, yet the next recompute publishes: the stored snapshot cannot be served.
    with django_capture_on_commit_callbacks(execute=True):  # what follows a publish's commit: serve it here
        newer = recompute.publish()
    assert newer is not None and newer.id != older.id
    served = current_snapshot()
    assert served is not None and served.id == newer.id
    assert served.document["meta"]["document_version"] == DOCUMENT_VERSION
    assert client.get("/api/v1/pool.json").json()["meta"]["snapshot"] == str(newer.id)


def test_a_publish_announces_its_snapshot_only_once_it_commits(
    db: None, django_capture_on_commit_callbacks: Any
) -> None:
    heard: list[object] = []

    def hear(**signal: object) -> None:
        heard.append(signal["snapshot_id"])

    snapshot_published.connect(hear, dispatch_uid="tests.hear")
    try:
        with django_capture_on_commit_callbacks() as callbacks:
            snapshot = _published()
        assert heard == []  # stored, not yet committed: nobody may serve or export it
        for callback in callbacks:
            callback()
    finally:
        snapshot_published.disconnect(dispatch_uid="tests.hear")
    assert heard == [snapshot.id]
    served = current_snapshot()
    assert served is not None and served.id == snapshot.id
