"""POST /api/v1/contributions/counts: one install's stored, judged and pending cycles, counts only."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.test import override_settings

from ingest.models import Cycle
from tests.cycles.wire import envelope, wire_cycle
from tests.ingest.conftest import Api, stored_counts

pytestmark = pytest.mark.django_db

COUNTS = "/api/v1/contributions/counts"


def counts(api: Api, install: str, **extra: Any) -> Any:
    return api.post(COUNTS, {"install": install}, **extra)


def test_it_counts_the_installs_own_stored_judged_and_pending_cycles(api: Api) -> None:
    install = str(uuid.uuid4())
    rows = [
        wire_cycle(0),  # no edit: stored, not judged (scoring spec A1)
        wire_cycle(1),
        wire_cycle(2),
        wire_cycle(3, tship=0, tshipe=1),  # its ship window still open
    ]
    answer = api.contribute(envelope(rows, install=install))
    assert (answer.status_code, answer.json()["skipped"]) == (202, 0), answer.json()
    api.contribute(envelope(5))  # someone else's

    response = counts(api, install.upper())

    assert response.status_code == 200
    assert response.json() == {"stored": 4, "judged": 3, "pending": 1}
    assert Cycle.objects.count() == 9


def test_it_counts_nothing_for_an_install_never_seen_and_stores_nothing(api: Api) -> None:
    before = stored_counts()

    response = counts(api, str(uuid.uuid4()))

    assert (response.status_code, response.json()) == (200, {"stored": 0, "judged": 0, "pending": 0})
    assert stored_counts() == before


def test_it_answers_a_retracted_install_with_410(api: Api) -> None:
    install = str(uuid.uuid4())
    api.contribute(envelope(2, install=install))
    api.retract(install)

    response = counts(api, install)

    assert response.status_code == 410
    assert "retracted" in response.json()["error"]


@pytest.mark.parametrize("body", [{}, {"install": "nope"}, {"install": str(uuid.uuid4()), "extra": 1}, [1]])
def test_it_takes_exactly_an_install_in_the_body(api: Api, body: object) -> None:
    response = api.post(COUNTS, body)

    assert response.status_code == 400
    assert response.json()["errors"][0]["col"] == "install"


def test_it_takes_the_install_only_in_a_post_body(api: Api) -> None:
    assert api.client.get(COUNTS, {"install": str(uuid.uuid4())}).status_code == 405


@override_settings(INGEST_RATE_PER_ADDRESS="2/minute")
def test_it_is_rate_limited_per_address_like_the_other_ingest_endpoints(api: Api) -> None:
    install = str(uuid.uuid4())
    answers = [counts(api, install, REMOTE_ADDR="198.51.100.9").status_code for _ in range(3)]

    assert answers == [200, 200, 429]
    assert counts(api, install, REMOTE_ADDR="198.51.100.10").status_code == 200
