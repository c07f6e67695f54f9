import gzip

from django.test import Client

from core import page_cache
from leaderboard import cycles_file, published, recompute
from leaderboard.models import Snapshot
from tests.cycles.stored import make_contributor, make_cycles
from tests.pages.conftest import page_paths, ranked_labels

MAX_QUERIES = 3
# A model's or pairing's page also asks which names the lab has runs of, once per lab import (lab.presence).
LAB_PRESENCE_QUERIES = 1
# A page that computes a window (days or a harness) also reads the last retraction before its cells and checks
# for a later one before it shows them (leaderboard.windows.scoped_document).
WINDOW_RETRACTION_QUERIES = 2


def extra_queries(path: str, params: dict[str, str]) -> int:
    computes_window = params.get("window", "all") != "all" or "harness" in params
    return (LAB_PRESENCE_QUERIES if path == "/pairing/" else 0) + (WINDOW_RETRACTION_QUERIES if computes_window else 0)


def test_it_runs_at_most_three_queries_per_page(
    demo_snapshot: Snapshot, client: Client, django_assert_max_num_queries
) -> None:
    from django.core.cache import cache

    for path, params in page_paths(demo_snapshot):
        cache.clear()
        page_cache.forget_process_copies()
        with django_assert_max_num_queries(MAX_QUERIES + extra_queries(path, params)):
            response = client.get(path, params)
        assert response.status_code == 200, (path, params)


def test_it_serves_a_repeated_page_from_the_cache_without_queries(
    warmed_demo_snapshot: Snapshot, client: Client, django_assert_num_queries
) -> None:
    # Warmed: a pairing page that still links to a lens not computed yet is not kept (pages/lenses.py).
    for path, params in page_paths(warmed_demo_snapshot):
        if path.startswith("/data/rankings") or path == "/contribute/":
            continue  # built per request: a download from the held snapshot, a form with the visitor's token
        first = client.get(path, params)
        with django_assert_num_queries(0):
            again = client.get(path, params)
        assert again.content == first.content, (path, params)


def test_it_sends_cycles_csv_in_at_most_three_queries(
    demo_snapshot: Snapshot, client: Client, django_assert_max_num_queries
) -> None:
    cycles_file.write_cycles_export(snapshot_id=demo_snapshot.id)
    with django_assert_max_num_queries(MAX_QUERIES):
        response = client.get("/data/cycles.csv.gz")
        body = gzip.decompress(b"".join(response.streaming_content))  # type: ignore[attr-defined]
    assert body.count(b"\n") == demo_snapshot.cycles + 1


def test_it_shows_the_new_snapshot_once_a_recompute_publishes(
    demo_snapshot: Snapshot, client: Client, django_capture_on_commit_callbacks
) -> None:
    before = client.get("/")
    assert before["X-Snapshot"] == str(demo_snapshot.id)
    make_cycles(make_contributor(), count=40, pairings=(("gpt-7", "gpt-7"),), seed=9)
    with django_capture_on_commit_callbacks(execute=True):
        newer = recompute.publish()
    assert newer is not None
    after = client.get("/")
    assert after["X-Snapshot"] == str(newer.id)
    assert "gpt-7 → gpt-7" in after.content.decode()
    assert "gpt-7 → gpt-7" not in before.content.decode()


def test_it_keeps_unknown_labels_out_of_the_page_cache(warmed_demo_snapshot: Snapshot, client: Client) -> None:
    demo_snapshot = warmed_demo_snapshot
    from django.core.cache import cache

    page_cache.forget_process_copies()
    label = "no such pairing"
    response = client.get("/pairing/", {"view": "modelCombo", "label": label})
    assert response.status_code == 404
    generation, snapshot_id = published.serving_snapshot()
    assert snapshot_id == demo_snapshot.id
    key = page_cache.page_cache_key(snapshot_id, generation, "pairing", "modelCombo", label)
    assert cache.get(key) is None
    known = ranked_labels(demo_snapshot, "modelCombo")[0]
    assert client.get("/pairing/", {"view": "modelCombo", "label": known}).status_code == 200
    known_key = page_cache.page_cache_key(snapshot_id, generation, "pairing", "modelCombo", known)
    assert cache.get(known_key) is not None


def test_it_keeps_one_page_per_offered_sort_and_none_for_others(
    demo_snapshot: Snapshot, client: Client, django_assert_num_queries
) -> None:
    default = client.get("/")
    # Any value not offered is the default order, served from the default's cache entry: no new entry each.
    with django_assert_num_queries(0):
        unknown = client.get("/", {"sort": "x" * 200})
    assert unknown.status_code == 200 and unknown.content == default.content
    assert client.get("/", {"sort": "contributors"}).content != default.content
