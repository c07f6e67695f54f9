from typing import Any

import pytest
from django.db import connection
from django.http import HttpResponse
from django.test import Client
from django.test.utils import CaptureQueriesContext

from ingest.models import Cycle
from leaderboard import recompute
from pages import api
from tests.cycles.stored import make_contributor, make_cycles


@pytest.fixture
def published(db: None) -> None:
    make_cycles(make_contributor(), count=150, seed=4)
    make_cycles(make_contributor(), count=60, seed=5, ship_rate=0.4)
    recompute.publish()


def test_it_serves_the_published_document(published: None, client: Client) -> None:
    response = client.get("/api/v1/pool.json")
    assert response.status_code == 200
    document = response.json()
    assert document["meta"]["snapshot"]
    assert document["meta"]["judged"] == 210
    combo = document["views"]["modelCombo"]
    assert set(combo) >= {"groups", "pool", "span", "provisional"}
    group = combo["groups"][0]
    for key in ("label", "hjudged", "raw", "adj", "ev", "tiers", "tiersAdj", "imputed", "score", "scoreAdj"):
        assert key in group
    for key in ("ci", "rank", "rank_worst", "contributors", "top_share", "flags"):
        assert key in group
    scores = [g["scoreAdj"] for g in combo["groups"]]
    assert scores == sorted(scores, reverse=True)


def test_it_answers_not_modified_to_a_matching_etag(published: None, client: Client) -> None:
    first = client.get("/api/v1/pool.json")
    assert first["Cache-Control"].startswith("public")
    again = client.get("/api/v1/pool.json", HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304


def test_it_computes_a_day_window_on_demand(published: None, client: Client) -> None:
    response = client.get("/api/v1/pool.json", {"since": "2026-06-01", "until": "2026-06-30"})
    assert response.status_code == 200
    in_window = Cycle.objects.filter(day__range=("2026-06-01", "2026-06-30")).count()
    assert response.json()["meta"]["judged"] == in_window < 210
    assert response["ETag"] != client.get("/api/v1/pool.json")["ETag"]


@pytest.mark.parametrize(
    ("query", "named"),
    [
        ({"since": "yesterday"}, "since"),
        ({"until": "2026-13-01"}, "until"),
        ({"since": "2020-01-01"}, "since"),
        ({"since": "2026-07-01", "until": "2026-06-01"}, "since"),
        ({"view": "model"}, "only since, until and harness"),
    ],
)
def test_it_names_the_bad_parameter(published: None, client: Client, query: dict[str, str], named: str) -> None:
    response = client.get("/api/v1/pool.json", query)
    assert response.status_code == 400
    assert named in response.json()["error"]


def test_it_says_when_nothing_is_published_yet(db: None, client: Client) -> None:
    response = client.get("/api/v1/pool.json")
    assert response.status_code == 503
    assert response["Retry-After"]
    assert "published" in response.json()["error"]


def test_it_keeps_pool_json_per_snapshot_and_window_and_builds_it_once(
    published: None, client: Client, monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    built: list[object] = []
    build = api.pool_document

    def counted(*args: Any) -> HttpResponse:
        built.append(args[2:])
        return build(*args)

    monkeypatch.setattr(api, "pool_document", counted)
    window = {"since": "2026-06-01", "until": "2026-06-30"}
    first, window_first = client.get("/api/v1/pool.json"), client.get("/api/v1/pool.json", window)
    with CaptureQueriesContext(connection) as again:
        second, window_second = client.get("/api/v1/pool.json"), client.get("/api/v1/pool.json", window)
    assert len(built) == 2, "each of the two windows built once"
    assert len(again.captured_queries) == 0
    assert second.content == first.content and window_second.content == window_first.content
    assert second["Content-Type"] == "application/json" and second["ETag"] == first["ETag"]
    with django_capture_on_commit_callbacks(execute=True):
        recompute.publish(force=True)
    assert client.get("/api/v1/pool.json").json()["meta"]["snapshot"] != first.json()["meta"]["snapshot"]
    assert len(built) == 3, "a new snapshot builds its own"
