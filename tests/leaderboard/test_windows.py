"""Day windows not yet computed are shared fairly: a client cannot take every slot or ask for them without end."""

import datetime as dt

import pytest
from django.test import Client, override_settings
from django.utils import timezone

from core import soft_cache
from core.keys import keyed_digest
from leaderboard import recompute, windows
from tests.cycles.stored import make_contributor, make_cycles

pytestmark = pytest.mark.django_db


@pytest.fixture
def published() -> None:
    make_cycles(make_contributor(), count=60, seed=4)
    assert recompute.publish() is not None


def test_it_lets_another_client_compute_while_one_holds_a_window(published: None) -> None:
    first, second = keyed_digest("address", "10.0.0.1"), keyed_digest("address", "10.0.0.2")
    key = "held-by-first"
    held = windows._claim_window(key, first)
    assert held is not None
    try:
        # The same client asking for a second window meanwhile waits ...
        assert windows._claim_window("another", first) is None
        # ... while another client still gets a slot.
        other = windows._claim_window("another", second)
        assert other is not None
        for taken in other:
            soft_cache.delete(taken)
    finally:
        for taken in held:
            soft_cache.delete(taken)


def test_it_computes_the_same_window_once_at_a_time(published: None) -> None:
    first, second = keyed_digest("address", "10.0.0.1"), keyed_digest("address", "10.0.0.2")
    held = windows._claim_window("same", first)
    assert held is not None
    try:
        assert windows._claim_window("same", second) is None
    finally:
        for taken in held:
            soft_cache.delete(taken)


@override_settings(WINDOW_SLOTS=1)
def test_it_answers_busy_when_every_slot_is_taken(published: None) -> None:
    held = windows._claim_window("elsewhere", keyed_digest("address", "10.0.0.9"))
    assert held is not None
    try:
        with pytest.raises(windows.WindowBusy):
            windows.scoped_document(since=timezone.now().date(), until=None, requester=keyed_digest("address", "x"))
    finally:
        for taken in held:
            soft_cache.delete(taken)


@override_settings(WINDOW_RATE_PER_ADDRESS="2/hour")
def test_it_answers_429_past_a_clients_rate_of_new_windows_and_serves_computed_ones(
    published: None, client: Client
) -> None:
    today = timezone.now().date()
    days = [today - dt.timedelta(days=offset) for offset in (2, 4, 6)]  # three distinct windows

    answers = [client.get("/api/v1/pool.json", {"since": f"{day:%Y-%m-%d}"}) for day in days]
    again = client.get("/api/v1/pool.json", {"since": f"{days[0]:%Y-%m-%d}"})
    elsewhere = Client(REMOTE_ADDR="10.9.9.9").get("/api/v1/pool.json", {"since": f"{days[2]:%Y-%m-%d}"})

    assert [answer.status_code for answer in answers[:2]] == [200, 200]
    assert answers[2].status_code == 429 and int(answers[2]["Retry-After"]) > 0
    assert again.status_code == 200, "a window already computed costs nothing"
    assert elsewhere.status_code == 200, "another address has its own rate"


@override_settings(WINDOW_SLOTS=1, WINDOW_RATE_PER_ADDRESS="2/hour")
def test_a_reader_reloading_on_503_spends_none_of_the_rate(published: None, client: Client) -> None:
    today = timezone.now().date()
    held = windows._claim_window("elsewhere", keyed_digest("address", "10.0.0.9"))
    assert held is not None
    try:
        reloads = [client.get("/", {"window": "custom", "since": f"{today:%Y-%m-%d}"}) for _ in range(30)]
    finally:
        for taken in held:
            soft_cache.delete(taken)
    assert {answer.status_code for answer in reloads} == {503}
    # Once a slot is free, the reader's rate is whole: both windows it allows are computed, then no more.
    days = [today - dt.timedelta(days=offset) for offset in (0, 2, 4)]
    answers = [client.get("/", {"window": "custom", "since": f"{day:%Y-%m-%d}"}).status_code for day in days]
    assert answers == [200, 200, 429]
