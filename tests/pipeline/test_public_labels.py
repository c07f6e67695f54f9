"""Nothing one contributor makes up reaches the public pages: names need two senders or a known model."""

import pytest
from django.test import Client

from leaderboard import services
from scoring.public_labels import OTHER_LABEL
from tests.cycles.stored import make_contributor, make_cycles

pytestmark = [pytest.mark.django_db, pytest.mark.public_labels]

SPAM = "alice-macbook-pro"


def test_it_folds_a_name_one_contributor_sent_into_other_on_every_page(
    client: Client, django_capture_on_commit_callbacks
) -> None:
    make_cycles(make_contributor(), count=24, pairings=((SPAM, "claude-opus-4.8"), ("claude-opus-4.8", SPAM)))
    with django_capture_on_commit_callbacks(execute=True):
        services.recompute_snapshot()

    pages = [
        client.get(path, params) for path, params in (("/", {}), ("/", {"view": "model"}), ("/api/v1/pool.json", {}))
    ]
    rankings = client.get("/data/rankings.csv", {"view": "modelCombo"})

    for response in [*pages, rankings]:
        assert response.status_code == 200
        body = response.content.decode()
        assert SPAM not in body
    assert f"{OTHER_LABEL} → claude-opus-4.8" in rankings.content.decode()
    assert "fewer than 2 contributors sent" in pages[0].content.decode()
    assert "2 or more contributors" in client.get("/methodology/").content.decode()


def test_it_shows_a_name_once_a_second_contributor_sends_it_and_a_known_one_at_once(
    client: Client, django_capture_on_commit_callbacks
) -> None:
    make_cycles(make_contributor(), count=12, pairings=(("qwen3:32b", "claude-opus-4.8"),), seed=1)
    make_cycles(make_contributor(), count=12, pairings=(("claude-haiku-4.5", "gpt-5"),), seed=2, key_offset=100)
    with django_capture_on_commit_callbacks(execute=True):
        services.recompute_snapshot()
    before = client.get("/api/v1/pool.json").content.decode()
    make_cycles(make_contributor(), count=12, pairings=(("qwen3:32b", "claude-opus-4.8"),), seed=3, key_offset=200)
    with django_capture_on_commit_callbacks(execute=True):
        services.recompute_snapshot()
    after = client.get("/api/v1/pool.json").content.decode()

    assert "qwen3:32b" not in before and "claude-haiku-4.5 → gpt-5" in before
    assert "qwen3:32b → claude-opus-4.8" in after
