"""Stored cycles for tests, made through the models (the scorer reads them back from the database)."""

import datetime as dt
import random
import uuid
from collections.abc import Sequence
from pathlib import Path

from django.utils import timezone

from ingest.models import Contributor, Cycle, install_hash
from ingest.services import store_made_cycles

REPO_ROOT = Path(__file__).resolve().parents[1]

PAIRINGS: tuple[tuple[str, str], ...] = (
    ("claude-opus-4.8", "claude-opus-4.8"),
    ("claude-fable-5", "grok-4.6"),
    ("gpt-6", "muse-spark-1.3"),
    ("grok-4.6", "grok-4.6"),
)


def make_contributor(*, install: uuid.UUID | None = None, demo: bool = False) -> Contributor:
    """A contributor; `demo` makes one like load_demo's, whose cycles count only while no real ones exist."""
    now = timezone.now()
    return Contributor.objects.create(
        install_hash=install_hash(install or uuid.uuid4()), first_seen=now, last_seen=now, is_demo=demo
    )


def make_cycles(
    contributor: Contributor,
    *,
    count: int,
    pairings: Sequence[tuple[str, str]] = PAIRINGS,
    ship_rate: float = 0.8,
    seed: int = 1,
    start_day: dt.date = dt.date(2026, 6, 1),
    key_offset: int = 0,
) -> list[Cycle]:
    rng = random.Random(seed)
    now = timezone.now()
    cycles = []
    for i in range(count):
        planner, builder = pairings[i % len(pairings)]
        shipped = 1 if rng.random() < ship_rate else 0
        cycles.append(
            Cycle(
                contributor=contributor,
                cycle_key=f"{key_offset + i:016x}",
                day=start_day + dt.timedelta(days=i % 90),
                model=builder,
                provider="anthropic",
                role=2,
                planner_model=planner,
                planner_provider="anthropic",
                builder_model=builder,
                builder_provider="anthropic",
                human_turns=rng.randint(1, 6),
                assistant_steps=rng.randint(5, 80),
                edits=rng.randint(1, 30),
                edit_paths=1,
                edit_errors=rng.randint(0, 1),
                cost_usd=round(rng.uniform(0.5, 20.0), 4),
                shipped=shipped,
                active_hours=round(rng.uniform(0.05, 2.0), 4),
                verified=rng.randint(0, 1),
                intervened=rng.randint(0, 1),
                step_seconds_median=round(rng.uniform(2.0, 30.0), 2),
                ship_status=0,
                effort="max",
                planner_effort="max",
                builder_effort="max",
                harness="opencode",
                harness_version="1.2.3",
                generated=now,
                received_at=now,
            )
        )
    return store_made_cycles(cycles)
