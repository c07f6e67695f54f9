"""The embedded default's folder cache: what the service's counters, claims and reads ask of a cache."""

import pickle
import threading
import time
from pathlib import Path

import pytest

from core.folder_cache import FolderCache


@pytest.fixture
def folder_cache(tmp_path: Path) -> FolderCache:
    return FolderCache(str(tmp_path / "cache"), {"OPTIONS": {"MAX_ENTRIES": 1000}})


def test_a_counter_kept_for_good_stays_so_when_incremented(folder_cache: FolderCache) -> None:
    # Django's generic incr writes the value back with the default timeout (300 s): the page cache's generation
    # would then lapse five minutes after each publish.
    folder_cache.set("generation", 1, None)

    assert folder_cache.incr("generation") == 2
    assert folder_cache.incr("generation", 5) == 7
    assert folder_cache.get("generation") == 7
    with open(folder_cache.entry_path("generation"), "rb") as entry:
        assert pickle.load(entry) is None  # noqa: S301 - the test's own entry: no expiry


def test_an_incremented_entry_keeps_its_expiry(folder_cache: FolderCache) -> None:
    folder_cache.set("count", 1, 0.3)

    assert folder_cache.incr("count") == 2
    time.sleep(0.4)

    assert folder_cache.get("count") is None
    with pytest.raises(ValueError, match="not found"):
        folder_cache.incr("count")


def test_a_missing_counter_is_an_error_as_in_every_cache(folder_cache: FolderCache) -> None:
    with pytest.raises(ValueError, match="not found"):
        folder_cache.incr("never-set")


def test_one_thread_of_many_wins_a_claim_and_no_increment_is_lost(folder_cache: FolderCache) -> None:
    folder_cache.set("hits", 0, None)
    won: list[bool] = []
    start = threading.Barrier(16)

    def claim_and_count() -> None:
        start.wait()
        won.append(folder_cache.add("claim", 1, 60))
        for _ in range(20):
            folder_cache.incr("hits")

    threads = [threading.Thread(target=claim_and_count) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert won.count(True) == 1
    assert folder_cache.get("hits") == 16 * 20


def test_an_unreadable_entry_reads_as_a_miss(folder_cache: FolderCache) -> None:
    folder_cache.set("page", "<html>", 60)
    Path(folder_cache.entry_path("page")).write_bytes(b"\x80\x04cut short")

    assert folder_cache.get("page", "missed") == "missed"


def test_a_folder_it_cannot_write_costs_the_entry_only(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    cache = FolderCache(str(folder), {})
    folder.rmdir()
    folder.write_text("a file where the folder was")  # as a disk that refuses writes does: every open fails

    cache.set("page", "<html>", 60)

    assert cache.get("page") is None
    assert cache.add("claim", 1, 60) is False
