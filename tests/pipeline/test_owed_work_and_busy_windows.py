"""Recompute and day-window behaviour: owed work is never dropped, busy windows say so."""

import datetime as dt
import os
import subprocess
import sys

import pytest
from django.conf import settings
from django.core.cache import cache
from django.test import Client, override_settings

from ingest.models import Cycle
from leaderboard import recompute, windows
from leaderboard.coordination import coordinator
from leaderboard.models import Snapshot
from leaderboard.windows import SCOPED_LOCK_KEY, preset_window
from tests.cycles.stored import make_contributor, make_cycles
from tests.pipeline.workers import REPO


@pytest.fixture
def published(db: None) -> Snapshot:
    make_cycles(make_contributor(), count=150, seed=4, start_day=dt.date.today() - dt.timedelta(days=100))
    make_cycles(make_contributor(), count=60, seed=5, ship_rate=0.4, start_day=dt.date.today() - dt.timedelta(days=60))
    snapshot = recompute.publish()
    assert snapshot is not None
    return snapshot


def test_it_keeps_a_recompute_owed_when_it_fails(published: Snapshot) -> None:
    coord = coordinator()
    Cycle.objects.filter(id=Cycle.objects.first().id).update(shipped=0, edits=7)  # type: ignore[union-attr]
    coord.mark_pending()
    # An operator's family pattern that is not a regular expression makes the scorer raise.
    with override_settings(SCORING_FAMILY_PATTERN="(unclosed"), pytest.raises(Exception):  # noqa: B017
        recompute.run_owed()
    assert coord.is_pending(), "a failed recompute must stay owed"
    assert recompute.run_owed().published is not None
    assert not coord.is_pending()


def test_it_answers_busy_while_other_windows_take_every_slot(published: Snapshot, client: Client) -> None:
    slots = [f"{SCOPED_LOCK_KEY}:slot:{slot}" for slot in range(settings.WINDOW_SLOTS)]
    assert all(cache.add(slot, 1, 60) for slot in slots)
    api = client.get("/api/v1/pool.json", {"since": "2026-01-01"})
    assert api.status_code == 503 and api["Retry-After"]
    custom = {"window": "custom", "since": "2026-01-01"}
    page = client.get("/", custom)
    assert page.status_code == 503 and page["Retry-After"]
    assert b"being computed" in page.content
    assert client.get("/", {"window": "90"}).status_code == 200, "a preset window never waits for these slots"
    cache.delete_many(slots)
    assert client.get("/", custom).status_code == 200, "the busy answer must not have been cached"
    assert client.get("/api/v1/pool.json", {"since": "2026-01-01"}).status_code == 200


def test_it_warms_the_preset_windows_of_a_new_snapshot(published: Snapshot) -> None:
    windows.warm_windows(snapshot_id=published.id)
    today = dt.date.today()
    for days in windows.PRESET_DAYS:
        since, until = preset_window(days, today=today)
        warmed = cache.get(f"scoped:{published.id}:{since}:{until}")
        assert warmed is not None
        assert warmed["meta"]["judged"] == Cycle.objects.filter(day__range=(since, until)).count()


def test_it_refuses_days_outside_the_contract_in_a_custom_window(published: Snapshot, client: Client) -> None:
    response = client.get("/", {"window": "custom", "since": "1999-01-01"})
    assert response.status_code == 400
    assert b"2024-01-01" in response.content


def test_it_refuses_to_start_without_an_install_hash_key_outside_the_embedded_default() -> None:
    env = {k: v for k, v in os.environ.items() if k != "INSTALL_HASH_KEY"}
    env.update(DATABASE_URL="postgresql://postgres@127.0.0.1:5432/pragmatikos", SECRET_KEY="a-real-key", DEBUG="0")
    result = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        cwd=REPO,
        env={**env, "DJANGO_SETTINGS_MODULE": "pragmatikos.settings"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode != 0
    assert "INSTALL_HASH_KEY must be set" in result.stderr
