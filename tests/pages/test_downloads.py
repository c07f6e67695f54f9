import csv
import gzip
import io
import os
import re
import uuid
from pathlib import Path
from typing import Any

import pytest
from django.template.defaultfilters import filesizeformat
from django.test import Client, RequestFactory
from django.utils import timezone

from core import page_cache
from ingest.models import Contributor, Cycle, install_hash
from leaderboard import cycles_file, recompute, tasks
from leaderboard.models import Snapshot
from pages import downloads, wording
from scoring.shapes import PAIRING_VIEWS
from tests.cycles.stored import make_contributor, make_cycles
from tests.cycles.wire import envelope
from tests.ingest.conftest import CONTRIBUTE, Api

FLOAT_COLUMNS = frozenset({"cost_usd", "active_hours", "step_seconds_median"})


def read_csv(body: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(body.decode())))


def body_of(response: Any) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else bytes(response.content)


def exported(snapshot: Snapshot) -> cycles_file.Export:
    """What the worker does after a publish: write the snapshot's cycles.csv."""
    export = cycles_file.write_cycles_export(snapshot_id=snapshot.id)
    assert export is not None
    return export


def publish() -> Snapshot:
    """A recompute publishing a new snapshot, and the pages seeing it (as its commit hooks make them)."""
    snapshot = recompute.publish()
    assert snapshot is not None
    page_cache.bump_generation()
    page_cache.forget_process_copies()
    return snapshot


def downloaded_rows(client: Client) -> list[dict[str, str]]:
    response = client.get("/data/cycles.csv.gz")
    assert response.status_code == 200
    return read_csv(gzip.decompress(body_of(response)))


def typed(row: dict[str, str]) -> dict[str, object]:
    """A row as values: the database writes 0.5 and 1 where Python's csv wrote 0.5 and 1.0."""
    return {name: float(value) if name in FLOAT_COLUMNS else value for name, value in row.items()}


def test_it_answers_503_with_retry_after_until_the_worker_has_written_the_export(
    demo_snapshot: Snapshot, client: Client, settings: Any
) -> None:
    response = client.get("/data/cycles.csv.gz")
    assert response.status_code == 503
    assert int(response["Retry-After"]) > 0
    assert "being written" in response.content.decode()
    # The web process never builds it.
    assert not Path(settings.EXPORT_DIR).exists() or not any(Path(settings.EXPORT_DIR).iterdir())
    exported(demo_snapshot)
    assert client.get("/data/cycles.csv.gz").status_code == 200


def test_it_serves_every_cycle_with_pseudonyms_as_a_gzip_file(demo_snapshot: Snapshot, client: Client) -> None:
    export = exported(demo_snapshot)
    response = client.get("/data/cycles.csv.gz")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/gzip"
    assert int(response["Content-Length"]) == export.size == export.path.stat().st_size
    assert response["Accept-Ranges"] == "bytes"
    assert re.search(rf'filename="pragmatikos-cycles-snapshot-{demo_snapshot.id}-\d{{8}}T\d{{6}}Z\.csv\.gz"',
                     response["Content-Disposition"])  # fmt: skip
    rows = read_csv(gzip.decompress(body_of(response)))
    assert len(rows) == Cycle.objects.count()
    assert list(rows[0]) == list(cycles_file.CYCLE_COLUMNS)
    # c1..cN, one per contributor with cycles, numbered in order of first contribution (not database ids).
    expected = {f"c{n}" for n in range(1, Contributor.objects.filter(cycles__isnull=False).distinct().count() + 1)}
    assert {row["contributor"] for row in rows} == expected
    assert {row["role"] for row in rows} <= {"plan", "build", "other"}
    assert {row["ship_status"] for row in rows} == {"judged", "pending", "unshippable"}


def test_it_writes_the_rows_the_old_stream_sent(demo_snapshot: Snapshot, client: Client) -> None:
    # cycle_lines() is what /data/cycles.csv streamed per request before, and what the embedded
    # default (SQLite) still writes; the COPY of PostgreSQL must give the same rows.
    exported(demo_snapshot)
    copied = downloaded_rows(client)
    streamed = read_csv("".join(cycles_file.cycle_lines()).encode())
    assert len(copied) == len(streamed) == demo_snapshot.cycles
    assert [typed(row) for row in copied] == [typed(row) for row in streamed]


def test_it_matches_each_row_to_its_stored_cycle(demo_snapshot: Snapshot, client: Client) -> None:
    exported(demo_snapshot)
    rows = downloaded_rows(client)
    stored = list(Cycle.objects.order_by("id")[:50])
    for row, cycle in zip(rows, stored, strict=False):
        assert row["contributor"] == cycle.contributor.pseudonym
        assert row["day"] == cycle.day.isoformat()
        assert row["planner_model"] == cycle.planner_model
        assert row["role"] == cycles_file.ROLE_WORDS[Cycle.Role(cycle.role)]
        assert float(row["cost_usd"]) == pytest.approx(cycle.cost_usd)
        assert int(row["edits"]) == cycle.edits


def test_it_publishes_no_hash_key_or_time_of_arrival(demo_snapshot: Snapshot, client: Client) -> None:
    exported(demo_snapshot)
    body = gzip.decompress(body_of(client.get("/data/cycles.csv.gz"))).decode()
    header = body.split("\n", 1)[0]
    for private in ("install", "hash", "cycle_key", "received_at", "generated"):
        assert private not in header
    some_hash = Contributor.objects.earliest("id").install_hash
    assert some_hash not in body
    assert not re.search(r"[0-9a-f]{16}", body)


def test_it_stops_serving_a_retracted_contributor_at_once_and_drops_them_from_the_next_export(
    demo_snapshot: Snapshot, client: Client
) -> None:
    old = exported(demo_snapshot)
    retracted = Contributor.objects.get(number=1)
    assert retracted.pseudonym in {row["contributor"] for row in downloaded_rows(client)}
    # What ingest.services.retract does: mark the contributor, delete their cycles, order the retraction.
    Contributor.objects.filter(id=retracted.id).update(retracted_at=timezone.now(), retraction_order=1)
    Cycle.objects.filter(contributor=retracted).delete()

    # The file was read before the retraction: it is not sent again.
    refused = client.get("/data/cycles.csv.gz")
    assert refused.status_code == 503 and int(refused["Retry-After"]) > 0

    # The recompute the retraction queued publishes; the worker writes its export.
    newer = publish()
    assert client.get("/data/cycles.csv.gz").status_code == 503, "not the old file while the new one is written"
    exported(newer)
    rows = downloaded_rows(client)
    assert retracted.pseudonym not in {row["contributor"] for row in rows}
    assert len(rows) == Cycle.objects.count()
    assert not old.path.exists(), "the old snapshot's file is deleted once the new one is written"


def test_a_new_install_that_contributes_and_retracts_before_any_recompute_leaves_the_download_up(
    demo_snapshot: Snapshot, client: Client
) -> None:
    """The file predates the install: nothing of it can be in there, so its retraction refuses nothing."""
    export = exported(demo_snapshot)
    install = uuid.uuid4()
    contributed = Api(client).post(CONTRIBUTE, envelope(1, install=str(install)))
    assert contributed.status_code == 202
    assert Api(client).retract(str(install)).status_code == 200

    served = client.get("/data/cycles.csv.gz")

    assert served.status_code == 200
    assert served["ETag"] == export.etag
    number = Contributor.objects.get(install_hash=install_hash(install)).number
    assert number is not None and number > export.highest_number


def test_a_retraction_the_file_holds_but_no_snapshot_saw_is_written_out_by_the_recompute_it_queues(
    demo_snapshot: Snapshot, client: Client
) -> None:
    """Cycles stored after the snapshot's read but before its file's: the recompute finds the pool it scores
    unchanged once they are retracted, and must still write the file again without them."""
    install = uuid.uuid4()
    assert Api(client).post(CONTRIBUTE, envelope(3, install=str(install))).status_code == 202
    export = exported(demo_snapshot)  # the worker's export of the demo snapshot reads the new cycles too
    pseudonym = Contributor.objects.get(install_hash=install_hash(install)).pseudonym
    assert pseudonym in {row["contributor"] for row in downloaded_rows(client)}
    assert Api(client).retract(str(install)).status_code == 200
    assert client.get("/data/cycles.csv.gz").status_code == 503

    assert recompute.publish() is None  # the same pool as the demo snapshot scored

    rows = downloaded_rows(client)
    assert pseudonym not in {row["contributor"] for row in rows}
    assert len(rows) == Cycle.objects.count() == demo_snapshot.cycles
    assert cycles_file.newest_export(demo_snapshot.id) != export  # the same snapshot's file, read again


def test_it_leaves_out_cycles_of_retracted_contributors_still_stored(demo_snapshot: Snapshot, client: Client) -> None:
    # A retraction committed while the export query runs: its rows are filtered out by the query itself.
    retracted = Contributor.objects.get(number=2)
    Contributor.objects.filter(id=retracted.id).update(retracted_at=timezone.now())
    rows = read_csv(gzip.decompress(exported(demo_snapshot).path.read_bytes()))
    assert retracted.pseudonym not in {row["contributor"] for row in rows}
    assert len(rows) == Cycle.objects.exclude(contributor=retracted).count()


def test_it_replaces_the_export_on_the_next_snapshot(demo_snapshot: Snapshot, client: Client) -> None:
    first = exported(demo_snapshot)
    before = client.get("/data/cycles.csv.gz")
    make_cycles(make_contributor(demo=True), count=40, seed=11)
    newer = publish()
    # While the worker writes the new snapshot's file, the previous one is sent, saying which it is.
    meanwhile = client.get("/data/cycles.csv.gz")
    assert meanwhile.status_code == 200
    assert (meanwhile["X-Snapshot"], meanwhile["ETag"]) == (str(demo_snapshot.id), first.etag)
    second = exported(newer)
    after = client.get("/data/cycles.csv.gz")
    assert (before["X-Snapshot"], after["X-Snapshot"]) == (str(demo_snapshot.id), str(newer.id))
    assert before["ETag"] != after["ETag"]
    assert len(read_csv(gzip.decompress(body_of(after)))) == demo_snapshot.cycles + 40
    assert not first.path.exists() and second.path.exists()
    assert [path.name for path in second.path.parent.iterdir()] == [second.path.name]
    # Writing it again (a redelivered task) keeps the same file.
    assert exported(newer) == second


def test_it_writes_nothing_for_a_snapshot_that_is_no_longer_the_newest(demo_snapshot: Snapshot) -> None:
    make_cycles(make_contributor(), count=40, seed=12)
    publish()
    assert cycles_file.write_cycles_export(snapshot_id=demo_snapshot.id) is None
    assert cycles_file.newest_export(demo_snapshot.id) is None


def test_it_writes_a_missing_export_on_the_beat_schedule(demo_snapshot: Snapshot, client: Client) -> None:
    # A worker that died between publishing and writing the export: the periodic task writes it.
    assert client.get("/data/cycles.csv.gz").status_code == 503
    tasks.scheduled_recompute()  # the pool is unchanged, so nothing new is published
    assert cycles_file.newest_export(demo_snapshot.id) is not None
    assert client.get("/data/cycles.csv.gz")["X-Snapshot"] == str(demo_snapshot.id)


def test_it_costs_the_web_process_no_work_per_row(
    demo_snapshot: Snapshot, client: Client, rf: RequestFactory, django_assert_max_num_queries: Any
) -> None:
    export = exported(demo_snapshot)
    with django_assert_max_num_queries(2):  # the newest snapshot's id, and whether anyone retracted since
        body = body_of(client.get("/data/cycles.csv.gz"))
    assert body == export.path.read_bytes()  # the file as the worker wrote it, no row made here
    # What a WSGI server gets: the open file itself, which it can hand to sendfile(), whole or in part.
    for headers in ({}, {"HTTP_RANGE": "bytes=10-20"}):
        response = downloads.cycles_csv_gz(rf.get("/data/cycles.csv.gz", **headers))  # type: ignore[arg-type]
        streamed = response.file_to_stream  # type: ignore[attr-defined]
        try:
            assert os.path.samestat(os.fstat(streamed.fileno()), export.path.stat())
        finally:
            streamed.close()  # not response.close(): its request_finished signal would close the test's connection


def test_it_states_the_snapshot_and_as_of_time(demo_snapshot: Snapshot, client: Client) -> None:
    export = exported(demo_snapshot)
    for path in ("/data/cycles.csv.gz", "/data/rankings.csv?view=model"):
        response = client.get(path)
        assert response["X-Snapshot"] == str(demo_snapshot.id)
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", response["X-As-Of"])
        assert f"snapshot-{demo_snapshot.id}-" in response["Content-Disposition"]
    cycles = client.get("/data/cycles.csv.gz")
    assert cycles["X-As-Of"] == export.as_of.replace(microsecond=0).isoformat().replace("+00:00", "Z")
    html = client.get("/data/").content.decode()
    assert f"As of snapshot <strong>{demo_snapshot.id}</strong>" in html
    for link in ("/data/cycles.csv", "/data/cycles.csv.gz", "/data/rankings.csv?view=modelCombo", "/api/v1/pool.json"):
        assert f'href="{link}"' in html


def test_the_data_page_lists_each_download_with_its_size(demo_snapshot: Snapshot, client: Client) -> None:
    before = client.get("/data/").content.decode()
    assert "being written" in before
    export = exported(demo_snapshot)
    html = client.get("/data/").content.decode()  # a new file: a new page, though the snapshot is the same

    unpacked = len(gzip.decompress(export.path.read_bytes()))
    assert f"Every cycle, CSV</a> ({filesizeformat(unpacked)})" in html
    assert f"Every cycle, gzip-packed CSV</a> ({filesizeformat(export.size)})" in html
    for view, title in wording.VIEW_TITLES.items():
        size = len(client.get("/data/rankings.csv", {"view": view}).content)
        assert f'?view={view}">{title}, CSV</a> ({filesizeformat(size)})' in html, view
    # Link texts a reader reads, not addresses.
    assert not re.search(r">[^<]*(\?view=|\.csv|\.json)[^<]*</a>", html)


def test_the_data_page_names_its_licence_and_how_to_cite_a_snapshot(demo_snapshot: Snapshot, client: Client) -> None:
    html = client.get("/data/").content.decode()
    assert f'<a href="{wording.DATA_LICENCE_URL}">{wording.DATA_LICENCE}</a>' in html
    assert f"Pragmatikos pool, snapshot {demo_snapshot.id}, computed " in html


def written_peak(rows_per_contributor: int, contributors: int) -> tuple[int, int]:
    """(bytes written, peak bytes allocated) while writing one export file."""
    import tracemalloc

    for seed in range(contributors):
        make_cycles(make_contributor(), count=rows_per_contributor, seed=100 + seed)
    cycles_file.export_dir().mkdir(parents=True, exist_ok=True)
    tracemalloc.start()
    try:
        target = cycles_file._write_file(snapshot_id=contributors)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return target.stat().st_size, peak


def test_it_keeps_memory_flat_while_writing_many_cycles(db: None) -> None:
    small_bytes, small_peak = written_peak(10_000, 1)
    large_bytes, large_peak = written_peak(10_000, 3)  # 40,000 rows in all
    assert large_bytes > 3 * small_bytes
    # Four times the rows, about the same memory: the rows go from the database through gzip to disk.
    assert large_peak < 1.25 * small_peak, (small_peak, large_peak)


@pytest.mark.parametrize("view", list(wording.VIEW_TITLES))
def test_it_writes_one_ranking_row_per_group(demo_snapshot: Snapshot, client: Client, view: str) -> None:
    body = client.get("/data/rankings.csv", {"view": view}).content
    rows = read_csv(body)
    assert all(len(line) == len(downloads.ranking_columns()) for line in csv.reader(io.StringIO(body.decode())))
    view_doc = demo_snapshot.views[view]
    ranked = [row for row in rows if row["status"] == "ranked"]
    provisional = [row for row in rows if row["status"] == "provisional"]
    assert [row["label"] for row in ranked] == [g["label"] for g in view_doc["groups"]]
    assert [row["label"] for row in provisional] == [p["label"] for p in view_doc["provisional"]]
    for row, group in zip(ranked, view_doc["groups"], strict=True):
        assert float(row["score_adj"]) == pytest.approx(group["scoreAdj"])
        if group["ci"] is None:
            assert row["ci_lo"] == row["ci_hi"] == "" and group["contributors"] == 1
        else:
            assert float(row["ci_lo"]) == pytest.approx(group["ci"][0])
        assert int(row["rank"]) == group["rank"]
        assert int(row["rank_worst"]) == group["rank_worst"]
        assert int(row["contributors"]) == group["contributors"]
        assert float(row["tier_adj_outcome"]) == pytest.approx(group["tiersAdj"]["Outcome"])
        assert row["flags"] == ";".join(group["flags"])
        for axis in wording.AXES:
            assert (row[f"raw_{axis.key}"] == "") == (group["raw"][axis.key] is None)
            assert int(row[f"evidence_{axis.key}"]) == group["ev"][axis.key]
        if view in PAIRING_VIEWS:
            assert f"{row['planner']} → {row['builder']}" == group["label"]


def test_it_answers_404_for_the_rankings_of_an_unknown_view(demo_snapshot: Snapshot, client: Client) -> None:
    assert client.get("/data/rankings.csv", {"view": "nope"}).status_code == 404
