"""The cells PostgreSQL sums (leaderboard.cells) score exactly as the stored cycles do, after a retraction too."""

import uuid
from datetime import date, timedelta
from typing import Any

import pytest
from django.utils import timezone

from core.keys import install_hash
from ingest.models import Contributor, Cycle
from ingest.services import retract
from leaderboard import recompute
from leaderboard.cells import (
    cells_fingerprint,
    changed_pool_cells,
    forget_whole_read,
    pool_cells,
    remember_whole_read,
)
from leaderboard.selectors import cycles_frame, scoring_config
from scoring import ScoringConfig, enrich_document, score_pool
from scoring.cells import score_cells
from scoring.public_labels import OTHER_LABEL
from tests.cycles import drawn_cycles
from tests.cycles.stored import make_contributor, store_cycles
from tests.scoring.test_cells import GENERATED, HARNESSES, assert_same, assert_same_axis_samples

pytestmark = [pytest.mark.django_db, pytest.mark.public_labels]

SEASONED = timedelta(days=3)
MADE_UP = "acme-internal-model"  # sent by one contributor only: folded into (other) in both readings


def store_pool(contributors: int = 5, per_contributor: int = 60) -> list[uuid.UUID]:
    installs = []
    for c in range(contributors):
        install = uuid.uuid4()
        installs.append(install)
        contributor = make_contributor(install=install, seen_for=SEASONED)
        rows = []
        for i, made in enumerate(drawn_cycles(per_contributor, seed=c + 1)):
            kind = (i + c) % 9
            builder = MADE_UP if c == 0 and i % 6 == 0 else made["builder_model"]
            rows.append(
                {
                    **made,
                    "day": date(2026, 6, 1) + timedelta(days=2 * c + i % 10),
                    "harness": HARNESSES[(i // 20 + c) % len(HARNESSES)],
                    "builder_model": builder,
                    "model": builder,
                    "step_seconds_median": -1.0 if kind == 0 else float(round(made["step_seconds_median"])),
                    "ship_status": 1 if kind == 1 else 2 if kind == 2 else made["ship_status"],
                    "edits": 0 if kind == 3 else made["edits"],
                }
            )
        store_cycles(contributor, rows)
    return installs


def assert_cells_score_as_cycles(config: ScoringConfig, since: date | None = None, until: date | None = None) -> None:
    frame = cycles_frame(since=since, until=until)
    theirs = score_pool(frame, config, since=since, until=until, generated=GENERATED, keep_axes=True)
    enrich_document(theirs.document, frame, config, since=since, until=until)
    cells = pool_cells(since=since, until=until)
    assert cells.cycles == len(frame)
    ours = score_cells(cells, config, since=since, until=until, generated=GENERATED, keep_axes=True)
    assert_same(ours.document, theirs.document)
    assert_same(ours.samples, theirs.samples)
    assert_same_axis_samples(ours.axis_samples, theirs.axis_samples)


def test_cells_from_postgresql_score_as_the_cycles() -> None:
    installs = store_pool()
    config = ScoringConfig(resamples=30)
    assert_cells_score_as_cycles(config)
    assert_cells_score_as_cycles(config, since=date(2026, 6, 4), until=date(2026, 6, 12))
    cells = pool_cells()
    assert MADE_UP not in set(cells.frame["builder_model"]) and OTHER_LABEL in set(cells.frame["builder_model"])
    before = cells_fingerprint(cells, scoring_config())
    assert cells_fingerprint(pool_cells(), scoring_config()) == before

    retract(install=installs[1], now=timezone.now())
    assert_cells_score_as_cycles(config)
    assert cells_fingerprint(pool_cells(), scoring_config()) != before


def _seen_long_ago() -> None:
    Contributor.objects.update(last_seen=timezone.now() - timedelta(days=1))


def test_cells_read_again_only_for_what_changed_equal_a_whole_read() -> None:
    installs = store_pool()
    _seen_long_ago()
    remember_whole_read()
    # Since: a new contributor, more cycles from one already there, and a retraction.
    newcomer = make_contributor(seen_for=SEASONED)
    store_cycles(newcomer, [{**made, "day": date(2026, 6, 3)} for made in drawn_cycles(40, seed=99)])
    again = Contributor.objects.get(install_hash=install_hash(installs[2]))
    Contributor.objects.filter(id=again.id).update(last_seen=timezone.now())
    store_cycles(again, [{**made, "day": date(2026, 6, 20)} for made in drawn_cycles(15, seed=7, key_offset=0xA000)])
    retract(install=installs[3], now=timezone.now())

    merged, whole, _ = changed_pool_cells()
    read = pool_cells()

    assert not whole
    assert cells_fingerprint(merged, scoring_config()) == cells_fingerprint(read, scoring_config())
    config = ScoringConfig(resamples=20)
    assert_same(
        score_cells(merged, config, generated=GENERATED).document,
        score_cells(read, config, generated=GENERATED).document,
    )


def test_cells_changed_without_a_contribution_are_read_whole() -> None:
    store_pool()
    _seen_long_ago()
    remember_whole_read()
    # A change no contributor's times show (as an operator's command or a migration would make).
    Cycle.objects.filter(id__in=Cycle.objects.order_by("id").values("id")[:5]).delete()

    merged, whole, _ = changed_pool_cells()

    assert whole
    assert cells_fingerprint(merged, scoring_config()) == cells_fingerprint(pool_cells(), scoring_config())


def test_without_a_whole_read_to_start_from_the_pool_is_read_whole() -> None:
    store_pool(contributors=2)
    forget_whole_read()

    merged, whole, _ = changed_pool_cells()

    assert whole and merged.cycles == pool_cells().cycles


def test_a_whole_snapshot_keeps_no_cells_through_its_scoring(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cells kept while the resampling runs would add to its memory peak (bench/recompute.py): a whole snapshot
    keeps none, and the worker's points-first publish reads them again only once its snapshot is published."""
    store_pool(contributors=2)
    kept_while_scoring: list[bool] = []

    def score_and_look(*args: Any, **kwargs: Any) -> Any:
        kept_while_scoring.append(not changed_pool_cells()[1])
        return score_cells(*args, **kwargs)

    monkeypatch.setattr(recompute, "score_cells", score_and_look)
    recompute.publish(force=True)
    whole_after_a_whole_snapshot = changed_pool_cells()[1]
    newcomer = make_contributor(seen_for=SEASONED)
    store_cycles(newcomer, [{**made, "day": date(2026, 6, 3)} for made in drawn_cycles(20, seed=98)])
    recompute.run_owed(owe=True)  # the worker's path: points first, then the whole snapshot

    assert kept_while_scoring == [False, False]
    assert whole_after_a_whole_snapshot
    assert not changed_pool_cells()[1]  # remembered once the worker's snapshot was published


def test_with_nobody_changed_the_pool_is_the_last_whole_read() -> None:
    """A scheduled look at an unchanged pool merges nothing, and says so: its rows are prepared only if the
    fingerprint then differs (leaderboard.recompute._read_pool)."""
    store_pool(contributors=2)
    _seen_long_ago()
    remember_whole_read()

    merged, whole, changed = changed_pool_cells()

    assert not whole and not changed
    assert cells_fingerprint(merged, scoring_config()) == cells_fingerprint(pool_cells(), scoring_config())


def test_a_publish_first_gives_back_what_earlier_work_freed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Freed memory kept in other threads' arenas would sit under the recompute's peak (bench/README.md)."""
    store_pool(contributors=2)
    order: list[str] = []

    def trim() -> bool:
        order.append("trim")
        return True

    def read(**kwargs: Any) -> Any:
        order.append("read")
        return pool_cells(**kwargs)

    monkeypatch.setattr(recompute, "return_freed_memory", trim)
    monkeypatch.setattr(recompute, "pool_cells", read)

    recompute.publish(force=True)

    assert order[:2] == ["trim", "read"]
