"""What a client chooses in a request (a label, a view, the Host header's port) never makes a cache entry
of its own: unknown names answer a 404 page that is not kept, and a page is kept once whatever Host it
was asked under. Counted in the tests' own Redis database."""

import uuid
from typing import Any

import pytest
from django.test import Client

from leaderboard.models import Snapshot
from tests.cache_keys import stored_keys
from tests.pages.conftest import ranked_labels

PORTS = range(40001, 40011)


@pytest.fixture
def loopback_host(settings: Any) -> None:
    settings.ALLOWED_HOSTS = ["127.0.0.1"]


@pytest.mark.parametrize("path", ["/methodology/", "/data/"])
def test_it_keeps_one_copy_of_a_page_whatever_port_the_host_names(
    demo_snapshot: Snapshot, loopback_host: None, client: Client, path: str
) -> None:
    for port in PORTS:
        response = client.get(path, HTTP_HOST=f"127.0.0.1:{port}")
        assert response.status_code == 200
        assert f"127.0.0.1:{port}" not in response.content.decode()
    page = path.strip("/")
    assert len(stored_keys(f"*page:*:{page}:*")) == 1


def unknown_label_requests(snapshot: Snapshot) -> list[tuple[str, dict[str, str]]]:
    known = ranked_labels(snapshot, "modelCombo")[0]
    made_up = [f"nobody-{uuid.uuid4().hex[:8]} → x" for _ in range(5)]
    requests: list[tuple[str, dict[str, str]]] = []
    for label in made_up:
        requests += [
            ("/pairing/", {"view": "modelCombo", "label": label}),
            ("/compare/", {"view": "modelCombo", "a": label, "b": known}),
            ("/compare/", {"view": "modelCombo", "a": known, "b": label}),
            ("/", {"view": label}),
            ("/pairing/", {"view": label, "label": known}),
            ("/data/rankings.csv", {"view": label}),
        ]
    return requests


def test_it_answers_unknown_labels_and_views_with_a_404_it_does_not_keep(
    demo_snapshot: Snapshot, client: Client
) -> None:
    assert client.get("/pairing/", {"view": "modelCombo", "label": ranked_labels(demo_snapshot, "modelCombo")[0]})
    before = stored_keys()
    for path, params in unknown_label_requests(demo_snapshot):
        response = client.get(path, params)
        assert response.status_code == 404, (path, params)
    assert stored_keys() - before == set()
