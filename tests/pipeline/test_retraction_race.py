"""A retraction takes effect when it commits: no download, snapshot or window made after its answer holds its
cycles, however the retraction's request and an export's, recompute's or window's reads interleave.

Real PostgreSQL and two connections: the retraction is answered over the API in one thread while an export, a
recompute or a window runs in another, each held at a chosen point (an install's lock, or a pause at a step), so the
order of the race is fixed rather than hoped for.
"""

import csv
import gzip
import io
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from django.test import Client
from django.utils import timezone

from core import page_cache, soft_cache
from ingest.contract_rules import FIRST_DAY
from ingest.models import Contributor, Cycle, install_hash, install_lock_key
from leaderboard import cycles_file, recompute, windows
from leaderboard.coordination import coordinator
from leaderboard.models import Snapshot
from pragmatikos.celery import app as celery_app
from tests.cycles.stored import make_contributor, make_cycles
from tests.cycles.wire import envelope
from tests.ingest.conftest import CONTRIBUTE, Api
from tests.pipeline.workers import clear_owed

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="two connections at once: PostgreSQL's"),
    # Without Redis the tasks a commit queues would run in the request, in the middle of the race.
    pytest.mark.skipif(not settings.REDIS_URL, reason="needs REDIS_URL: queued tasks wait for a worker"),
]

WAIT_SECONDS = 30


@pytest.fixture(autouse=True)
def _nothing_left_queued() -> Iterator[None]:
    """Commits here queue recomputes and exports for a worker this test does not run: dropped afterwards."""
    yield
    if settings.REDIS_URL:
        celery_app.control.purge()
    clear_owed(coordinator())


class InThread:
    """A call run in its own thread (and so on its own database connection), its result or error kept."""

    def __init__(self, call: Callable[[], Any]) -> None:
        self.result: Any = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, args=(call,))
        self.thread.start()

    def _run(self, call: Callable[[], Any]) -> None:
        try:
            self.result = call()
        except BaseException as error:  # surfaced by outcome()
            self.error = error
        finally:
            connection.close()

    def outcome(self) -> Any:
        self.thread.join(WAIT_SECONDS)
        assert not self.thread.is_alive(), "the call did not finish"
        if self.error is not None:
            raise self.error
        return self.result


class Pause:
    """Holds a function of a module at its start until released: the point of a race, made to wait."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, owner: object, name: str) -> None:
        self.reached = threading.Event()
        self.go_on = threading.Event()
        original = getattr(owner, name)

        def paused(*args: Any, **kwargs: Any) -> Any:
            if not self.reached.is_set():  # the first call only
                self.reached.set()
                assert self.go_on.wait(WAIT_SECONDS), "never released"
            return original(*args, **kwargs)

        monkeypatch.setattr(owner, name, paused)

    def wait_reached(self) -> None:
        assert self.reached.wait(WAIT_SECONDS), "the paused step was never reached"


def waiting_for_advisory_locks() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
            " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
        )
        return int(cursor.fetchone()[0])


@contextmanager
def install_held(install: uuid.UUID) -> Iterator[None]:
    """The install's lock (ingest.services._lock_install) held by another connection until the block ends."""
    holding, release = threading.Event(), threading.Event()

    def hold() -> None:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock(%s)", [install_lock_key(install_hash(install))])
            holding.set()
            release.wait(WAIT_SECONDS)
            cursor.execute("SELECT pg_advisory_unlock_all()")

    holder = InThread(hold)
    assert holding.wait(WAIT_SECONDS)
    try:
        yield
    finally:
        release.set()
        holder.outcome()


def wait_until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def pool_with_a_contributor_who_will_retract(client: Client) -> tuple[uuid.UUID, str]:
    """Cycles of someone who stays and of an install that will retract: (that install, its pseudonym)."""
    make_cycles(make_contributor(), count=4)
    install = uuid.uuid4()
    assert Api(client).post(CONTRIBUTE, envelope(3, install=str(install))).status_code == 202
    return install, Contributor.objects.get(install_hash=install_hash(install)).pseudonym


def pseudonyms_in(body: bytes) -> set[str]:
    return {row["contributor"] for row in csv.DictReader(io.StringIO(gzip.decompress(body).decode()))}


def retracted(client: Client, install: uuid.UUID) -> int:
    answer = Api(client).retract(str(install))
    assert answer.status_code == 200, answer.content
    return int(answer.json()["deleted"])


def published() -> Snapshot:
    snapshot = recompute.publish()
    assert snapshot is not None
    page_cache.bump_generation()
    page_cache.forget_process_copies()
    return snapshot


def test_a_retraction_whose_request_began_before_an_export_and_committed_after_it_refuses_the_file(
    client: Client,
) -> None:
    """The request's time is before the file's, its commit after the file's rows were read: the file is refused."""
    install, pseudonym = pool_with_a_contributor_who_will_retract(client)
    snapshot = published()
    with install_held(install):
        retraction = InThread(lambda: retracted(client, install))
        wait_until(lambda: waiting_for_advisory_locks() == 1)  # begun, and waiting for the install
        export = cycles_file.write_cycles_export(snapshot_id=snapshot.id)
    assert retraction.outcome() == 3  # committed and answered

    assert export is not None and pseudonym in pseudonyms_in(export.path.read_bytes())
    download = client.get("/data/cycles.csv.gz")
    assert download.status_code == 503 and int(download["Retry-After"]) > 0

    # The recompute the retraction queued, and its export: served, without them.
    fresh = cycles_file.write_cycles_export(snapshot_id=published().id)
    assert fresh is not None
    served = client.get("/data/cycles.csv.gz")
    assert served.status_code == 200
    assert pseudonym not in pseudonyms_in(b"".join(served.streaming_content))  # type: ignore[attr-defined]


def test_a_retraction_that_commits_while_an_export_reads_refuses_the_file(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The export's transaction has its view of the rows, then the retraction commits and is answered, then the
    rows are copied out: they are the retracted ones, and the file is refused."""
    install, pseudonym = pool_with_a_contributor_who_will_retract(client)
    snapshot = published()
    pause = Pause(monkeypatch, cycles_file, "_copy_rows")
    export = InThread(lambda: cycles_file.write_cycles_export(snapshot_id=snapshot.id))
    pause.wait_reached()

    assert retracted(client, install) == 3
    pause.go_on.set()
    written = export.outcome()

    assert written is not None and pseudonym in pseudonyms_in(written.path.read_bytes())
    assert client.get("/data/cycles.csv.gz").status_code == 503
    assert client.get("/data/cycles.csv").status_code == 503


def test_a_retraction_that_commits_while_a_recompute_scores_is_in_no_snapshot_published_after_it(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The recompute read the pool before the retraction committed and publishes after its answer: it scores
    the pool again instead of publishing the retracted cycles."""
    install, _ = pool_with_a_contributor_who_will_retract(client)
    pause = Pause(monkeypatch, recompute, "prepare_cells")
    publishing = InThread(recompute.publish)
    pause.wait_reached()  # the cells are read: the retracting install's among them

    assert retracted(client, install) == 3
    pause.go_on.set()
    snapshot = publishing.outcome()

    assert snapshot is not None
    assert list(Snapshot.objects.values_list("cycles", flat=True)) == [4] == [Cycle.objects.count()]
    assert snapshot.document["meta"]["contributors"] == 1


def test_a_retraction_that_commits_while_a_window_is_scored_is_in_no_window_shown_after_it(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A window read the cells before the retraction committed and is done after its answer: it is neither
    shown (WindowBusy: asked again, it is scored anew) nor cached; asked again, it is scored without them."""
    install, _ = pool_with_a_contributor_who_will_retract(client)
    snapshot = published()
    since, until = FIRST_DAY, timezone.now().date()
    pause = Pause(monkeypatch, windows, "score_cells")
    scoring = InThread(lambda: windows.scoped_document(since=since, until=until, snapshot=snapshot))
    pause.wait_reached()  # the cells are read: the retracting install's among them

    assert retracted(client, install) == 3
    pause.go_on.set()
    with pytest.raises(windows.WindowBusy):
        scoring.outcome()

    assert soft_cache.get(windows.scope_key(snapshot.id, since, until, None)) is None
    again = windows.scoped_document(since=since, until=until, snapshot=snapshot)
    assert again is not None and again["meta"]["contributors"] == 1
