"""Pages and CSVs tell browsers and proxies how long to keep them, and answer 304 to their ETag."""

from django.test import Client

from core import page_cache
from leaderboard import recompute
from leaderboard.models import Snapshot
from tests.cycles.stored import make_contributor, make_cycles
from tests.pages.conftest import page_paths, ranked_labels


def cacheable_paths(snapshot: Snapshot) -> list[tuple[str, dict[str, str]]]:
    # cycles.csv is a file per snapshot with its own ETag, Range and no-cache (test_downloads checks them);
    # /contribute/ carries each visitor's CSRF token in its retraction form (test_retract_form checks it is private).
    return [(path, params) for path, params in page_paths(snapshot) if path != "/contribute/"]


def test_it_sends_cache_control_and_an_etag_and_answers_304_to_it(
    warmed_demo_snapshot: Snapshot, client: Client
) -> None:
    # Warmed: a pairing page that still links to a lens not computed yet is sent no-cache (pages/lenses.py).
    demo_snapshot = warmed_demo_snapshot
    etags = set()
    for path, params in cacheable_paths(demo_snapshot):
        response = client.get(path, params)
        assert response.status_code == 200, (path, params)
        assert set(response["Cache-Control"].split(", ")) == {"public", f"max-age={page_cache.CACHE_MAX_AGE}"}, path
        etag = response["ETag"]
        assert etag.startswith('"') and etag.endswith('"')
        etags.add(etag)
        again = client.get(path, params, HTTP_IF_NONE_MATCH=etag)
        assert again.status_code == 304, (path, params)
        assert again.content == b""
        assert again["ETag"] == etag
        assert again["X-Snapshot"] == str(demo_snapshot.id)
        weak = client.get(path, params, HTTP_IF_NONE_MATCH=f'"other", W/{etag}')
        assert weak.status_code == 304, (path, params)
        assert client.get(path, params, HTTP_IF_NONE_MATCH='"other"').status_code == 200
    assert len(etags) == len(cacheable_paths(demo_snapshot)), "every URL has its own ETag"


def test_it_answers_304_without_building_anything(
    warmed_demo_snapshot: Snapshot, client: Client, django_assert_num_queries
) -> None:
    label = ranked_labels(warmed_demo_snapshot, "modelCombo")[0]
    params = {"view": "modelCombo", "label": label}
    etag = client.get("/pairing/", params)["ETag"]
    page_cache.forget_process_copies()
    from django.core.cache import cache

    cache.clear()
    # Finding the newest snapshot may cost one query; the page and its history are never read.
    with django_assert_num_queries(1):
        assert client.get("/pairing/", params, HTTP_IF_NONE_MATCH=etag).status_code == 304


def test_it_changes_the_etag_with_a_new_snapshot(
    demo_snapshot: Snapshot, client: Client, django_capture_on_commit_callbacks
) -> None:
    etag = client.get("/")["ETag"]
    csv_etag = client.get("/data/rankings.csv", {"view": "model"})["ETag"]
    make_cycles(make_contributor(), count=40, pairings=(("gpt-7", "gpt-7"),), seed=9)
    with django_capture_on_commit_callbacks(execute=True):  # publishing bumps the cache generation on commit
        assert recompute.publish() is not None
    fresh = client.get("/", HTTP_IF_NONE_MATCH=etag)
    assert fresh.status_code == 200
    assert fresh["ETag"] != etag
    assert "gpt-7 → gpt-7" in fresh.content.decode()
    assert client.get("/data/rankings.csv", {"view": "model"}, HTTP_IF_NONE_MATCH=csv_etag).status_code == 200


def test_it_sends_no_caching_headers_with_errors(demo_snapshot: Snapshot, client: Client) -> None:
    for path, params, status in (
        ("/pairing/", {"view": "modelCombo", "label": "no such pairing"}, 404),
        ("/", {"view": "bogus"}, 404),
        ("/compare/", {"view": "modelCombo", "a": "nobody", "b": "nothing"}, 404),
        ("/data/rankings.csv", {"view": "bogus"}, 404),
        ("/", {"window": "custom", "since": "2026-02-30"}, 400),
    ):
        response = client.get(path, params, HTTP_IF_NONE_MATCH="*")
        assert response.status_code == status, (path, params)
        assert not response.has_header("ETag"), (path, params)
        assert not response.has_header("Cache-Control"), (path, params)


def test_it_sends_no_etag_for_rankings_before_the_first_snapshot(db: None, client: Client) -> None:
    response = client.get("/data/rankings.csv", HTTP_IF_NONE_MATCH="*")
    assert response.status_code == 404
    assert not response.has_header("ETag")
