"""The ingest under faults and odd bodies: no database, no length, a key twice, nothing to store."""

from __future__ import annotations

import json
import socket
import uuid
from collections.abc import Iterator

import pytest
from django.db import connection
from django.test import Client

from ingest.models import Contributor, Receipt
from tests.cycles.wire import envelope, with_cell
from tests.ingest.conftest import CONTRIBUTE, Api, stored_counts


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def database_out_of_reach(transactional_db: None) -> Iterator[None]:
    """The test's connection pointed at a port nobody listens on, then put back."""
    saved = dict(connection.settings_dict)
    connection.close()
    connection.settings_dict.update(HOST="127.0.0.1", PORT=str(closed_port()))
    try:
        yield
    finally:
        connection.close()
        connection.settings_dict.clear()
        connection.settings_dict.update(saved)


@pytest.mark.parametrize("path", [CONTRIBUTE, "/api/v1/contributions/retract", "/api/v1/stats", "/api/v1/pool.json"])
def test_it_answers_json_503_with_retry_after_when_the_database_is_out_of_reach(
    database_out_of_reach: None, path: str
) -> None:
    client = Client()
    if path == "/api/v1/stats" or path.endswith("pool.json"):
        response = client.get(path)
    else:
        body = envelope(2) if path == CONTRIBUTE else {"install": str(uuid.uuid4())}
        response = client.post(path, data=json.dumps(body), content_type="application/json")

    assert response.status_code == 503
    assert response["Content-Type"].startswith("application/json")
    assert int(response["Retry-After"]) > 0
    assert "error" in response.json()


@pytest.mark.django_db
def test_it_refuses_a_body_without_a_length_with_411(api: Api) -> None:
    body = json.dumps(envelope(2)).encode()

    response = api.client.generic(
        "POST", CONTRIBUTE, body, content_type="application/json", CONTENT_LENGTH="", HTTP_TRANSFER_ENCODING="chunked"
    )

    assert response.status_code == 411
    assert "Content-Length" in response.json()["error"]
    assert stored_counts() == (0, 0, 0)


@pytest.mark.django_db
def test_it_refuses_an_object_that_names_a_key_twice(api: Api) -> None:
    body = envelope(2)
    text = json.dumps(body)
    doubled = text[:-1] + ', "install": "' + str(uuid.uuid4()) + '"}'

    response = api.contribute(doubled)

    assert response.status_code == 400
    assert "twice" in response.json()["error"]
    assert stored_counts() == (0, 0, 0)


@pytest.mark.django_db
def test_it_makes_no_contributor_for_a_request_with_nothing_to_store(api: Api) -> None:
    empty = api.contribute(envelope(0))
    all_bad = api.contribute(with_cell(envelope(1), 0, "u", -1))

    assert (empty.status_code, all_bad.status_code) == (202, 202)
    assert (all_bad.json()["accepted"], all_bad.json()["skipped"]) == (0, 1)
    assert Contributor.objects.count() == 0
    assert list(Receipt.objects.order_by("id").values_list("accepted", "skipped")) == [(0, 0), (0, 1)]


@pytest.mark.django_db
def test_it_still_refuses_an_empty_request_of_a_retracted_install(api: Api) -> None:
    install = str(uuid.uuid4())
    api.contribute(envelope(2, install=install))
    api.retract(install)

    assert api.contribute(envelope(0, install=install)).status_code == 410
