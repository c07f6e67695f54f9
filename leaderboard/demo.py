"""A generated pool, so a fresh checkout shows a full leaderboard; every page marks it demo data.

Fixed seed, so every run stores the same cycles (relative to today). The generator gives
each pairing its own habits and each contributor their own skill, so the demo shows what
real pools show: uneven evidence, thin rows, pairings with one contributor, ties. Each
contributor runs a few agents (harnesses), and a pairing does better under the agent its
builder's maker makes, so the harness lens has something to show.
"""

import datetime as dt
import math
import random
import uuid
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from ingest.models import Contributor, Cycle, install_hash
from ingest.name_sightings import record_names
from ingest.services import store_made_facts
from leaderboard.recompute import publish
from scoring.public_labels import PUBLISHED_NAME_COLUMNS

DEMO_SEED = 20261130
DEFAULT_CYCLES = 3000
DAYS = 120
PROVIDERS = {
    "claude": "anthropic",
    "gpt": "openai",
    "gemini": "google",
    "grok": "xai",
    "deepseek": "deepseek",
    "muse": "meta",
}


@dataclass(frozen=True)
class Habit:
    """How one pairing tends to work: ship odds, cost, speed, care."""

    planner: str
    planner_effort: str
    builder: str
    builder_effort: str
    weight: float  # how popular it is in the pool
    ship: float  # chance a judged cycle ships, before contributor skill
    prompts: float  # mean extra prompts per cycle
    dollars_per_step: float
    step_seconds: float
    edit_error: float
    verify: float
    intervene: float


HABITS: tuple[Habit, ...] = (
    Habit("claude-opus-4.8", "max", "claude-opus-4.8", "max", 18, 0.93, 1.2, 0.060, 9.0, 0.02, 0.80, 0.04),
    Habit("claude-opus-4.8", "max", "claude-sonnet-4.6", "high", 10, 0.86, 1.5, 0.025, 6.0, 0.03, 0.70, 0.05),
    Habit("claude-fable-5", "max", "grok-4.6", "xhigh", 9, 0.88, 1.4, 0.020, 7.0, 0.03, 0.65, 0.05),
    Habit("gpt-6", "high", "gpt-6", "high", 12, 0.87, 1.3, 0.030, 8.0, 0.025, 0.75, 0.04),
    Habit("gpt-6", "high", "muse-spark-1.3", "max", 6, 0.85, 1.6, 0.015, 5.0, 0.04, 0.60, 0.06),
    Habit("gemini-3.5-pro", "high", "gemini-3.5-flash", "default", 8, 0.72, 1.9, 0.008, 4.0, 0.05, 0.55, 0.07),
    Habit("gemini-3.5-pro", "high", "gemini-3.5-pro", "high", 7, 0.84, 1.6, 0.020, 7.5, 0.035, 0.68, 0.05),
    Habit("grok-4.6", "xhigh", "grok-4.6", "xhigh", 7, 0.83, 1.7, 0.018, 6.5, 0.04, 0.58, 0.06),
    Habit("deepseek-v4-pro", "default", "deepseek-v4-flash", "default", 6, 0.70, 2.2, 0.004, 5.5, 0.06, 0.50, 0.08),
    Habit("claude-opus-4.8", "max", "deepseek-v4-flash", "default", 4, 0.81, 1.8, 0.010, 5.0, 0.05, 0.60, 0.06),
    Habit("claude-sonnet-4.6", "high", "claude-sonnet-4.6", "high", 5, 0.84, 1.5, 0.022, 6.0, 0.03, 0.66, 0.05),
    Habit("muse-spark-1.3", "max", "muse-spark-1.3", "max", 2.5, 0.82, 1.6, 0.012, 4.5, 0.04, 0.55, 0.06),
    # Rare pairings: some stay provisional (fewer than 10 judged cycles).
    Habit("gpt-6", "high", "claude-opus-4.8", "max", 0.25, 0.88, 1.3, 0.050, 8.5, 0.02, 0.78, 0.04),
    Habit("gemini-3.5-flash", "default", "grok-4.6", "xhigh", 0.2, 0.80, 1.8, 0.015, 6.0, 0.05, 0.55, 0.07),
    # A niche pairing one person uses a lot: ranked, but with one contributor.
    Habit("claude-sonnet-4.6", "high", "gemini-3.5-flash", "default", 4, 0.79, 1.7, 0.010, 4.5, 0.05, 0.5, 0.06),
)
# Pairings only one person uses: person index -> habit index.
EXCLUSIVE = {0: len(HABITS) - 3, 5: len(HABITS) - 2, 2: len(HABITS) - 1}
# Share of cycles that had no plan phase: they count in the model views only.
UNPLANNED_SHARE = 0.15


@dataclass(frozen=True)
class Harness:
    """An agent the demo's people run, and how it moves the odds that a cycle under it ships."""

    name: str  # a public name (leaderboard.public_names.KNOWN_HARNESSES)
    version: str
    share: float  # how likely a person is to run it
    lift: float  # log-odds added to every ship chance under it
    maker: str  # the provider whose builders do better under it (MAKER_*); "" for none


HARNESSES: tuple[Harness, ...] = (
    Harness("opencode", "1.4.2", 0.30, 0.0, ""),
    Harness("claude-code", "2.1.30", 0.25, 0.1, "anthropic"),
    Harness("codex", "0.144.0", 0.18, 0.0, "openai"),
    Harness("aider", "0.86.1", 0.10, -0.6, ""),
    Harness("cline", "3.51.0", 0.09, -0.2, ""),
    Harness("gemini-cli", "0.20.0", 0.08, 0.0, "google"),
)
# Under its maker's own agent a builder ships more often, fails fewer edits and checks its work more often: e.g.
# claude-opus-4.8 → claude-opus-4.8 does better under claude-code than under aider.
MAKER_LIFT = 1.2  # log-odds added to the ship chance
MAKER_EDIT_ERRORS = 0.3  # times the pairing's share of failed edits
MAKER_VERIFY = 0.15  # added to the pairing's share of verified cycles
# How many agents one person runs, the first one most: weights of their first, second, ... agent.
HARNESS_USE = (0.6, 0.25, 0.1, 0.05)


@dataclass(frozen=True)
class Person:
    install: uuid.UUID
    activity: float  # share of the pool they send
    skill: float  # log-odds added to every ship chance
    metered: bool  # whether their provider reports cost
    habits: tuple[int, ...]  # which pairings they use


def people(rng: random.Random) -> list[Person]:
    activities = (0.30, 0.20, 0.14, 0.10, 0.08, 0.07, 0.05, 0.04, 0.02)
    everyone = []
    for index, activity in enumerate(activities):
        count = rng.randint(3, 7)
        chosen = sorted(rng.sample(range(len(HABITS) - len(EXCLUSIVE)), count))
        if index in EXCLUSIVE:
            chosen.append(EXCLUSIVE[index])
        everyone.append(
            Person(
                install=uuid.UUID(int=rng.getrandbits(128), version=4),
                activity=activity,
                skill=rng.gauss(0, 0.35),
                metered=rng.random() < 0.8,
                habits=tuple(chosen),
            )
        )
    return everyone


def harness_use(rng: random.Random, count: int) -> list[tuple[tuple[Harness, ...], tuple[float, ...]]]:
    """Each of `count` people's agents and how much they use each: their main one in turn, so every agent has
    a main user, then one to three more drawn by share without repeats."""
    uses = []
    for index in range(count):
        left = list(HARNESSES)
        mine = [left.pop(index % len(left))]
        for _ in range(rng.randint(1, len(HARNESS_USE) - 1)):
            mine.append(left.pop(rng.choices(range(len(left)), weights=[h.share for h in left])[0]))
        uses.append((tuple(mine), HARNESS_USE[: len(mine)]))
    return uses


def at_home(habit: Habit, harness: Harness) -> bool:
    """Whether the pairing's builder is made by the agent's maker."""
    return bool(harness.maker) and provider_of(habit.builder) == harness.maker


def ship_log_odds(habit: Habit, person: Person, harness: Harness) -> float:
    """A judged cycle's log-odds of shipping: the pairing's, the person's skill, the agent's."""
    home = MAKER_LIFT if at_home(habit, harness) else 0.0
    return math.log(habit.ship / (1 - habit.ship)) + person.skill + harness.lift + home


def provider_of(model: str) -> str:
    return next((name for prefix, name in PROVIDERS.items() if model.startswith(prefix)), "other")


def logistic(x: float) -> float:
    return 1 / (1 + math.exp(-x))


def demo_cycles(*, count: int, today: dt.date, seed: int = DEMO_SEED) -> list[tuple[uuid.UUID, dict[str, object]]]:
    """(install, cycle fields) pairs: the whole demo pool, deterministic for a seed and a day."""
    rng = random.Random(seed)
    everyone = people(rng)
    # The agents draw from their own generator, so the rest of the pool is drawn as before they were added.
    agents = random.Random(f"{seed}:harnesses")
    uses = harness_use(agents, len(everyone))
    out: list[tuple[uuid.UUID, dict[str, object]]] = []
    for person, (harnesses, use) in zip(everyone, uses, strict=True):
        weights = [HABITS[i].weight for i in person.habits]
        for _ in range(max(1, round(count * person.activity))):
            habit = HABITS[rng.choices(person.habits, weights=weights)[0]]
            harness = agents.choices(harnesses, weights=use)[0]
            day = today - dt.timedelta(days=min(DAYS - 1, int(rng.expovariate(1 / 45))))
            planned = rng.random() >= UNPLANNED_SHARE
            steps = max(1, int(rng.lognormvariate(3.3, 0.7)))
            in_repository = rng.random() < 0.93
            edits = 0 if rng.random() < 0.06 else max(1, int(rng.lognormvariate(2.0, 0.8)))
            judged = edits > 0 and in_repository
            if not in_repository or rng.random() < 0.04:  # a repository with nowhere to commit to
                status = Cycle.ShipStatus.UNSHIPPABLE
            elif (today - day).days < 7 and rng.random() < 0.6:
                status = Cycle.ShipStatus.PENDING
            else:
                status = Cycle.ShipStatus.JUDGED
            ship_chance = logistic(ship_log_odds(habit, person, harness))
            home = at_home(habit, harness)
            edit_error = habit.edit_error * (MAKER_EDIT_ERRORS if home else 1.0)
            verify = min(0.95, habit.verify + (MAKER_VERIFY if home else 0.0))
            shipped = int(judged and status == Cycle.ShipStatus.JUDGED and rng.random() < ship_chance)
            prompts = 1 + int(rng.expovariate(1 / habit.prompts)) if rng.random() > 0.3 else 1
            step_seconds = habit.step_seconds * rng.lognormvariate(0, 0.25)
            out.append(
                (
                    person.install,
                    {
                        "cycle_key": f"{rng.getrandbits(64):016x}",
                        "day": day,
                        "model": habit.builder,
                        "provider": provider_of(habit.builder),
                        "role": Cycle.Role.BUILD if planned else rng.choice((Cycle.Role.OTHER, Cycle.Role.BUILD)),
                        "planner_model": habit.planner if planned else "",
                        "planner_provider": provider_of(habit.planner) if planned else "",
                        "builder_model": habit.builder if planned else "",
                        "builder_provider": provider_of(habit.builder) if planned else "",
                        "human_turns": prompts,
                        "assistant_steps": steps,
                        "edits": edits,
                        "edit_paths": int(in_repository and edits > 0),
                        "edit_errors": sum(rng.random() < edit_error for _ in range(edits)),
                        "cost_usd": round(steps * habit.dollars_per_step * rng.lognormvariate(0, 0.4), 4)
                        if person.metered
                        else 0.0,
                        "shipped": shipped,
                        "active_hours": round(min(72.0, steps * step_seconds / 3600 + prompts * 0.05), 4),
                        "verified": int(edits > 0 and rng.random() < verify),
                        "intervened": int(rng.random() < habit.intervene),
                        "step_seconds_median": round(step_seconds, 2) if rng.random() > 0.05 else -1.0,
                        "ship_status": status,
                        "effort": habit.builder_effort,
                        "planner_effort": habit.planner_effort if planned else "",
                        "builder_effort": habit.builder_effort if planned else "",
                        "harness": harness.name,
                        "harness_version": harness.version,
                    },
                )
            )
    return out


def demo_installs(seed: int = DEMO_SEED) -> list[uuid.UUID]:
    return [person.install for person in people(random.Random(seed))]


DEMO_TENURE = dt.timedelta(days=DAYS)


@transaction.atomic
def store_demo_cycles(*, count: int = DEFAULT_CYCLES, seed: int = DEMO_SEED) -> int:
    """Replace the demo contributors' cycles with a fresh generation; returns how many were stored.

    Demo contributors are marked is_demo and keep their rows (and pseudonyms) across loads.
    Their install ids are random and thrown away, so no client can send as one of them.
    """
    now = timezone.now()
    existing = list(Contributor.objects.filter(is_demo=True).order_by("id"))
    Cycle.objects.filter(contributor__in=existing).delete()
    people_keys = demo_installs(seed)
    while len(existing) < len(people_keys):
        existing.append(
            Contributor.objects.create(
                install_hash=install_hash(uuid.uuid4()), first_seen=now, last_seen=now, is_demo=True
            )
        )
    # Its people have been sending for months, as their cycles' days say: they count for the public-label rule.
    Contributor.objects.filter(is_demo=True).update(first_seen=now - DEMO_TENURE, last_seen=now)
    contributors = dict(zip(people_keys, existing, strict=False))
    facts: dict[int, list[dict[str, Any]]] = {}
    for person, fields in demo_cycles(count=count, today=now.date(), seed=seed):
        facts.setdefault(contributors[person].id, []).append(fields)
    # ... and have sent their names on the days the rule asks for, the latest ones.
    days = [now.date() - dt.timedelta(days=back) for back in range(settings.PUBLIC_LABEL_MIN_DAYS)]
    for contributor_id, cycles in facts.items():
        names = {cycle[field] for cycle in cycles for field in PUBLISHED_NAME_COLUMNS} - {""}
        record_names(contributor_id=contributor_id, names=names, days=days)
    return store_made_facts(facts, generated=now, now=now)


def load_demo(*, count: int = DEFAULT_CYCLES, seed: int = DEMO_SEED) -> int:
    """Store the demo pool and publish a snapshot of it marked demo; returns the snapshot id."""
    store_demo_cycles(count=count, seed=seed)
    snapshot = publish(force=True)
    assert snapshot is not None  # force publishes even an unchanged pool
    return snapshot.id
