"""What a test cycle looks like: one vocabulary, one default cycle in stored field names, and the cycles made from it.

The renderings beside this module only change the form, never the values:
`tests.cycles.stored` (model rows through the storage), `tests.cycles.wire` (rows and envelopes as the
OpenCode plugin sends them) and `tests.cycles.frames` (the scorer's pandas frames). This module is pure
Python, so the benchmarks import it without Django.

A whole pool as the site shows it (contributors with habits of their own) is not made here: that is leaderboard.demo's,
the generator `make run` shows, which the page, lab and browser tests read through tests/demo_pool.py.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import date, timedelta
from typing import Any, Final

# Every model name a made cycle uses. The order is synthetic_cycles' spread over the first n:
# two families among the first five, every family among the first ten.
MODELS: Final[tuple[str, ...]] = (
    "claude-opus-4.6",
    "claude-opus-5",
    "claude-sonnet-4.6",
    "claude-fable-5",
    "grok-4.6",
    "muse-spark-1.3",
    "gpt-6",
    "gemini-3-pro",
    "deepseek-v4",
    "qwen-4-coder",
    "claude-fable-5.1",
    "claude-opus-4.1",
    "claude-opus-4.5",
    "claude-opus-4.7",
    "claude-opus-4.8",
    "claude-sonnet-4.5",
)
EFFORTS: Final[tuple[str, ...]] = ("", "default", "high", "max", "xhigh")

# Families the published pool (tests/data/pragmatikos-pool/pool.json) has no cycles of.
UNPUBLISHED_MODELS: Final = frozenset({"gpt-6", "gemini-3-pro", "deepseek-v4", "qwen-4-coder"})
# The names the published pool ranks (tests/test_cycles.py checks them against it): the names real clients
# send, so rows on the wire use only these.
PUBLISHED_MODELS: Final[tuple[str, ...]] = tuple(sorted(set(MODELS) - UNPUBLISHED_MODELS))
PUBLISHED_EFFORTS: Final[tuple[str, ...]] = ("default", "max", "xhigh")

PROVIDER_BY_FAMILY: Final[dict[str, str]] = {
    "claude": "anthropic",
    "grok": "xai",
    "gpt": "openai",
    "muse": "meta",
    "gemini": "google",
    "deepseek": "deepseek",
    "qwen": "alibaba",
}
# Stored provider field -> the model field it serves.
PROVIDER_FIELDS: Final[dict[str, str]] = {
    "provider": "model",
    "planner_provider": "planner_model",
    "builder_provider": "builder_model",
}

# A judged, shipped, metered cycle without a planner, in stored field names and order (the cycle key,
# then ingest.columns.FACT_FIELDS); tests override what they are about.
DEFAULT_CYCLE: Final[dict[str, Any]] = {
    "cycle_key": "0000000000000000",
    "day": date(2026, 3, 1),
    "model": "claude-opus-5",
    "provider": "anthropic",
    "role": 2,
    "planner_model": "",
    "planner_provider": "",
    "builder_model": "",
    "builder_provider": "",
    "human_turns": 2,
    "assistant_steps": 10,
    "edits": 4,
    "edit_paths": 1,
    "edit_errors": 0,
    "cost_usd": 1.5,
    "shipped": 1,
    "active_hours": 0.5,
    "verified": 1,
    "intervened": 0,
    "step_seconds_median": 5.0,
    "ship_status": 0,
    "effort": "max",
    "planner_effort": "",
    "builder_effort": "",
    "harness": "opencode",
    "harness_version": "1.14.2",
}

# Planner -> builder pairings drawn_cycles takes in turn.
PAIRINGS: Final[tuple[tuple[str, str], ...]] = (
    ("claude-opus-4.8", "claude-opus-4.8"),
    ("claude-fable-5", "grok-4.6"),
    ("gpt-6", "muse-spark-1.3"),
    ("grok-4.6", "grok-4.6"),
)


def provider_of(model: str) -> str:
    """The provider of a model name (none for no model); a family not listed goes through openrouter."""
    return PROVIDER_BY_FAMILY.get(model.split("-", 1)[0], "openrouter") if model else ""


def cycle(**fields: Any) -> dict[str, Any]:
    """DEFAULT_CYCLE with `fields` over it; each provider follows its model unless given."""
    unknown = set(fields) - set(DEFAULT_CYCLE)
    if unknown:
        raise TypeError(f"not stored fields of a cycle: {sorted(unknown)}")
    made = {**DEFAULT_CYCLE, **fields}
    for provider, model in PROVIDER_FIELDS.items():
        if provider not in fields:
            made[provider] = provider_of(made[model])
    return made


def iso_day(made: dict[str, Any]) -> dict[str, Any]:
    """The cycle with its day as ISO text, the way the wire and the scorer's test frames carry it."""
    day = made["day"]
    return {**made, "day": day.isoformat()} if isinstance(day, date) else made


def indexed_cycle(index: int) -> dict[str, Any]:
    """A valid cycle over the published names, every fact varied by its index (a cycle key of its own)."""
    models, efforts = PUBLISHED_MODELS, PUBLISHED_EFFORTS
    planner = models[index % len(models)]
    builder = models[(index * 7 + 3) % len(models)]
    edits = index % 9
    return cycle(
        cycle_key=f"{index + 0xA000:016x}",
        day=date(2026, 9, 1) - timedelta(days=index % 200),
        model=builder,
        planner_model=planner,
        builder_model=builder,
        human_turns=1 + index % 5,
        assistant_steps=10 + index % 300,
        edits=edits,
        edit_paths=1 if edits else 0,
        edit_errors=edits // 3,
        cost_usd=round(0.01 * (index % 500) + 0.123456, 6),
        shipped=1 if edits and index % 3 else 0,
        active_hours=round((index % 40) / 7, 6),
        verified=1 if edits and index % 2 else 0,
        intervened=index % 2,
        step_seconds_median=-1 if index % 11 == 0 else round((index % 600) / 3.0, 4),
        effort=efforts[index % len(efforts)],
        planner_effort=efforts[(index + 1) % len(efforts)],
        builder_effort=efforts[index % len(efforts)],
    )


def drawn_cycles(
    count: int,
    *,
    pairings: Sequence[tuple[str, str]] = PAIRINGS,
    ship_rate: float = 0.8,
    seed: int = 1,
    start_day: date = date(2026, 6, 1),
    key_offset: int = 0,
) -> list[dict[str, Any]]:
    """`count` judged cycles over `pairings` in turn and 90 days from `start_day`, the facts drawn from `seed`."""
    rng = random.Random(seed)
    effort = DEFAULT_CYCLE["effort"]
    cycles = []
    for i in range(count):
        planner, builder = pairings[i % len(pairings)]
        shipped = 1 if rng.random() < ship_rate else 0
        cycles.append(
            cycle(
                cycle_key=f"{key_offset + i:016x}",
                day=start_day + timedelta(days=i % 90),
                model=builder,
                planner_model=planner,
                builder_model=builder,
                human_turns=rng.randint(1, 6),
                assistant_steps=rng.randint(5, 80),
                edits=rng.randint(1, 30),
                edit_errors=rng.randint(0, 1),
                cost_usd=round(rng.uniform(0.5, 20.0), 4),
                shipped=shipped,
                active_hours=round(rng.uniform(0.05, 2.0), 4),
                verified=rng.randint(0, 1),
                intervened=rng.randint(0, 1),
                step_seconds_median=round(rng.uniform(2.0, 30.0), 2),
                planner_effort=effort,
                builder_effort=effort,
            )
        )
    return cycles
