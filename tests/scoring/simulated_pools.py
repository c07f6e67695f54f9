"""A simulated pool whose truth is known: contributors with a random effect, each using a few of eight pairings
with planted effects, every column the engine reads. bench/coverage.py measures the published intervals on it;
the scoring tests draw small pools of it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import expit

from scoring.document import ScoringConfig, prepare, score_view, view_document
from scoring.shapes import CYCLE_COLUMNS, PAIR_ARROW, View, ViewName

VIEW: ViewName = "modelCombo"
# Eight pairings (planner, builder) and their planted effects: on the log-odds of shipping (what B3 estimates), on
# the log of prompts, cost and hours per cycle, on the log-odds of verifying, and on the log of step latency.
PAIRINGS: tuple[tuple[str, str], ...] = (
    ("claude-opus-5", "claude-opus-5"),
    ("claude-opus-5", "grok-4.6"),
    ("claude-fable-5", "grok-4.6"),
    ("gpt-6-astra", "muse-spark-1.3"),
    ("grok-4.6", "grok-4.6"),
    ("gemini-3-pro", "gemini-3-flash"),
    ("deepseek-v4", "claude-sonnet-5"),
    ("minimax-m3", "minimax-m3"),
)
SHIP_EFFECT = np.array([0.6, 0.35, 0.25, 0.0, 0.0, -0.2, -0.4, -0.6])
TURN_EFFECT = np.array([-0.2, 0.0, 0.1, -0.1, 0.2, 0.0, 0.1, 0.3])
COST_EFFECT = np.array([0.4, 0.1, -0.2, 0.0, -0.3, -0.5, -0.1, -0.6])
HOUR_EFFECT = np.array([-0.1, 0.0, 0.1, 0.0, 0.2, 0.1, -0.1, 0.3])
VERIFY_EFFECT = np.array([0.4, 0.2, 0.0, 0.1, -0.2, 0.0, -0.3, -0.4])
LATENCY_EFFECT = np.array([0.3, 0.0, -0.2, 0.1, -0.3, -0.4, 0.0, -0.1])
# How strongly a contributor's effect (in SDs of shipping log-odds) carries to the other columns.
CARRY = 0.3


# How many of the eight pairings one contributor uses, as people do in field data (and in the demo pool): a few.
HABITS = 4


@dataclass(frozen=True)
class Scenario:
    contributor_sd: float
    contributors: int
    cycles: int
    self_selection: bool = False
    habits: int = HABITS  # pairings each contributor uses; len(PAIRINGS) = everyone uses every pairing

    @property
    def name(self) -> str:
        what = "strong contributors favour one pairing" if self.self_selection else "free choice"
        return (
            f"SD {self.contributor_sd:g}, {self.contributors} contributors, {self.cycles:,} cycles, "
            f"{self.habits} pairings each, {what}"
        )


def draw_pool(scenario: Scenario, rng: np.random.Generator, *, contributors: int, cycles: int) -> pd.DataFrame:
    """A pool of the scenario's process with the given size: every column the engine reads, every cycle judged."""
    ability = rng.normal(0.0, 1.0, contributors) * scenario.contributor_sd
    # Uneven contributors, as in field data: a few give many cycles.
    weights = rng.lognormal(0.0, 0.75, contributors)
    per_contributor = rng.multinomial(cycles, weights / weights.sum())
    who = np.repeat(np.arange(contributors), per_contributor)
    preference = rng.dirichlet(np.full(len(PAIRINGS), 2.0), contributors)
    if scenario.habits < len(PAIRINGS):
        # Each contributor keeps `habits` pairings at random and never uses the others.
        unused = np.argsort(rng.random((contributors, len(PAIRINGS))), axis=1)[:, scenario.habits :]
        np.put_along_axis(preference, unused, 0.0, axis=1)
        preference /= preference.sum(axis=1, keepdims=True)
    if scenario.self_selection:
        strong = ability > 0
        favourite = np.zeros(len(PAIRINGS))
        favourite[0] = 1.0
        # Strong contributors put most of their cycles on the first pairing, whatever else they use.
        preference[strong] = 0.6 * favourite + 0.4 * preference[strong]
    cumulative = np.cumsum(preference, axis=1)[who]
    pairing = np.minimum((rng.random(cycles)[:, None] > cumulative).sum(axis=1), len(PAIRINGS) - 1)
    u = ability[who]
    n = cycles
    status = rng.choice(np.array([0, 1, 2]), n, p=[0.9, 0.04, 0.06])
    shipped = (status == 0) & (rng.random(n) < expit(0.8 + SHIP_EFFECT[pairing] + u))
    turns = 1 + rng.poisson(np.exp(0.7 + TURN_EFFECT[pairing] - CARRY * u))
    edits = 1 + rng.poisson(5, n)
    metered = rng.random(n) < 0.85
    cost = np.where(metered, np.round(rng.gamma(2.0, 2.0 * np.exp(COST_EFFECT[pairing] - CARRY * u)), 4), 0.0)
    latency = np.round(rng.gamma(4.0, 2.0 * np.exp(LATENCY_EFFECT[pairing] - CARRY * u)), 2)
    planners = np.array([p for p, _ in PAIRINGS], dtype=object)
    builders = np.array([b for _, b in PAIRINGS], dtype=object)
    frame = pd.DataFrame(
        {
            "contributor": who + 1,
            "cycle_key": [f"{i:016x}" for i in range(n)],
            "day": np.datetime64("2026-01-01") + rng.integers(0, 300, n).astype("timedelta64[D]"),
            "model": builders[pairing],
            "planner_model": planners[pairing],
            "builder_model": builders[pairing],
            "human_turns": turns,
            "assistant_steps": 1 + rng.poisson(30, n),
            "edits": edits,
            "edit_paths": np.ones(n, dtype=np.int64),
            "edit_errors": rng.binomial(edits, expit(-3.0 - CARRY * u)),
            "cost_usd": cost,
            "shipped": shipped.astype(np.int64),
            "active_hours": np.round(rng.gamma(1.5, 0.4 * np.exp(HOUR_EFFECT[pairing] - CARRY * u)), 4),
            "verified": (rng.random(n) < expit(0.3 + VERIFY_EFFECT[pairing] + CARRY * u)).astype(np.int64),
            "intervened": (rng.random(n) < expit(-2.5 - CARRY * u)).astype(np.int64),
            "step_seconds_median": np.where(rng.random(n) < 0.95, latency, -1.0),
            "ship_status": status,
            "effort": "",
            "planner_effort": "",
            "builder_effort": "",
        }
    )
    return frame[list(CYCLE_COLUMNS)]


def labels_of(frame: pd.DataFrame) -> np.ndarray:
    return np.asarray(frame["planner_model"] + PAIR_ARROW + frame["builder_model"], dtype=object)


PAIRING_LABELS = [f"{p}{PAIR_ARROW}{b}" for p, b in PAIRINGS]


def scored_view(frame: pd.DataFrame, config: ScoringConfig) -> View:
    """The modelCombo view as the recompute publishes it (intervals, rank, rank_worst), and only that view."""
    prepared = prepare(frame, config, None, None)
    return view_document(prepared, score_view(prepared, VIEW, config), config)
