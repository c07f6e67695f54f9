import csv
import io
import re
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from ingest.models import Contributor, Cycle
from leaderboard import downloads, pages
from leaderboard.models import Snapshot


def read_csv(body: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(body.decode())))


def streamed(response: Any) -> bytes:
    return b"".join(response.streaming_content)


def test_it_streams_every_cycle_with_pseudonyms(demo_snapshot: Snapshot, client: Client) -> None:
    response = client.get("/data/cycles.csv")
    assert response.status_code == 200
    assert response.streaming
    assert response["Content-Type"].startswith("text/csv")
    rows = read_csv(streamed(response))
    assert len(rows) == Cycle.objects.count()
    assert list(rows[0]) == list(downloads.CYCLE_COLUMNS)
    # c1..cN, one per contributor with cycles, numbered in order of first contribution (not database ids).
    expected = {f"c{n}" for n in range(1, Contributor.objects.filter(cycles__isnull=False).distinct().count() + 1)}
    assert {row["contributor"] for row in rows} == expected
    assert {row["role"] for row in rows} <= {"plan", "build", "other"}
    assert {row["ship_status"] for row in rows} == {"judged", "pending", "unshippable"}


def test_it_matches_each_row_to_its_stored_cycle(demo_snapshot: Snapshot, client: Client) -> None:
    rows = read_csv(streamed(client.get("/data/cycles.csv")))
    stored = list(Cycle.objects.order_by("id")[:50])
    for row, cycle in zip(rows, stored, strict=False):
        assert row["contributor"] == cycle.contributor.pseudonym
        assert row["day"] == cycle.day.isoformat()
        assert row["planner_model"] == cycle.planner_model
        assert float(row["cost_usd"]) == pytest.approx(cycle.cost_usd)
        assert int(row["edits"]) == cycle.edits


def test_it_publishes_no_hash_key_or_time_of_arrival(demo_snapshot: Snapshot, client: Client) -> None:
    body = streamed(client.get("/data/cycles.csv")).decode()
    header = body.split("\n", 1)[0]
    for private in ("install", "hash", "cycle_key", "received_at", "generated"):
        assert private not in header
    some_hash = Contributor.objects.earliest("id").install_hash
    assert some_hash not in body
    assert not re.search(r"[0-9a-f]{16}", body)


def test_it_leaves_out_retracted_contributors(demo_snapshot: Snapshot, client: Client) -> None:
    retracted = Contributor.objects.earliest("id")
    Contributor.objects.filter(id=retracted.id).update(retracted_at=timezone.now())
    rows = read_csv(streamed(client.get("/data/cycles.csv")))
    assert retracted.pseudonym not in {row["contributor"] for row in rows}
    assert len(rows) == Cycle.objects.exclude(contributor=retracted).count()


def test_it_keeps_pseudonyms_stable_across_exports(demo_snapshot: Snapshot, client: Client) -> None:
    first = read_csv(streamed(client.get("/data/cycles.csv")))
    second = read_csv(streamed(client.get("/data/cycles.csv")))
    assert [row["contributor"] for row in first] == [row["contributor"] for row in second]


def test_it_states_the_snapshot_and_as_of_time(demo_snapshot: Snapshot, client: Client) -> None:
    for path in ("/data/cycles.csv", "/data/rankings.csv?view=model"):
        response = client.get(path)
        assert response["X-Snapshot"] == str(demo_snapshot.id)
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", response["X-As-Of"])
        assert f"snapshot-{demo_snapshot.id}-" in response["Content-Disposition"]
    html = client.get("/data/").content.decode()
    assert f"As of snapshot <strong>{demo_snapshot.id}</strong>" in html
    for link in ("/data/cycles.csv", "/data/rankings.csv?view=modelCombo", "/api/v1/pool.json"):
        assert f'href="{link}"' in html


@pytest.mark.parametrize("view", list(pages.VIEWS))
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
        for axis in pages.AXES:
            assert (row[f"raw_{axis.key}"] == "") == (group["raw"][axis.key] is None)
            assert int(row[f"evidence_{axis.key}"]) == group["ev"][axis.key]
        if view in pages.PAIRING_VIEWS:
            assert f"{row['planner']} → {row['builder']}" == group["label"]


def test_it_answers_404_for_the_rankings_of_an_unknown_view(demo_snapshot: Snapshot, client: Client) -> None:
    assert client.get("/data/rankings.csv", {"view": "nope"}).status_code == 404


def streaming_peak(client: Client) -> tuple[int, int, int]:
    """(bytes streamed, rows, peak bytes allocated while streaming) of one cycles.csv."""
    import tracemalloc

    response = client.get("/data/cycles.csv")
    tracemalloc.start()
    try:
        streamed_bytes = rows = 0
        for chunk in response.streaming_content:  # type: ignore[attr-defined]
            streamed_bytes += len(chunk)
            rows += chunk.count(b"\n")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return streamed_bytes, rows, peak


def test_it_keeps_memory_flat_while_streaming_many_cycles(db: None, client: Client) -> None:
    from tests.factories import make_contributor, make_cycles

    make_cycles(make_contributor(), count=10_000, seed=1)
    small_bytes, small_rows, small_peak = streaming_peak(client)
    for seed in range(2, 5):
        make_cycles(make_contributor(), count=10_000, seed=seed)
    large_bytes, large_rows, large_peak = streaming_peak(client)
    assert (small_rows, large_rows) == (10_001, 40_001)
    assert large_bytes > 3.9 * small_bytes
    # Four times the rows, about the same memory: nothing grows with the file.
    assert large_peak < 1.25 * small_peak, (small_peak, large_peak)


def test_it_never_lets_a_cache_keep_the_cycles_export(demo_snapshot: Snapshot, client: Client) -> None:
    response = client.get("/data/cycles.csv")
    assert response["Cache-Control"] == "no-store"
    assert "ETag" not in response
