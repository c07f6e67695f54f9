"""Cycles as the scorer reads them: pandas frames of scoring.CYCLE_COLUMNS."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from scoring import CYCLE_COLUMNS
from tests.cycles import DEFAULT_CYCLE, EFFORTS, MODELS, cycle, iso_day

DEFAULT_CONTRIBUTOR = 1


def cycle_frame(rows: Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """A frame of cycle(**row) for each row: its key the row's position, its contributor 1 unless given."""
    records = []
    for i, row in enumerate(rows):
        fields = {name: value for name, value in row.items() if name != "contributor"}
        made = cycle(**{"cycle_key": f"{i:016x}", **fields})
        records.append({"contributor": row.get("contributor", DEFAULT_CONTRIBUTOR), **iso_day(made)})
    return pd.DataFrame.from_records(records, columns=list(CYCLE_COLUMNS))


def columns_frame(columns: Mapping[str, Any]) -> pd.DataFrame:
    """A frame from whole columns (arrays, or one value for all); a column not given is DEFAULT_CYCLE's value."""
    defaults = {"contributor": DEFAULT_CONTRIBUTOR, **iso_day(DEFAULT_CYCLE)}
    return pd.DataFrame({**defaults, **columns})[list(CYCLE_COLUMNS)]


def synthetic_cycles(
    n: int, *, seed: int = 1, contributors: int = 50, models: int = 10, efforts: int = len(EFFORTS)
) -> pd.DataFrame:
    """n cycles drawn over the first `models` MODELS (ten name every family) and `efforts` EFFORTS; most judged,
    most with a planner and a builder. Vectorised: a million cycles in seconds, for the engine benchmark."""
    rng = np.random.default_rng(seed)
    names = np.array(MODELS[:models], dtype=object)
    effort_names = np.array(EFFORTS[:efforts], dtype=object)
    model = names[rng.integers(0, len(names), n)]
    paired = rng.random(n) < 0.85
    planner = np.where(paired, names[rng.integers(0, len(names), n)], "")
    builder = np.where(paired, model, "")
    edits = rng.poisson(6, n) * (rng.random(n) < 0.95)
    ship_status = rng.choice([0, 1, 2], n, p=[0.88, 0.04, 0.08])
    shipped = ((ship_status == 0) & (rng.random(n) < 0.85) & (edits > 0)).astype(np.int64)
    # The draws in this order: the same seed, the same cycles.
    return columns_frame(
        {
            "contributor": rng.integers(1, contributors + 1, n),
            "cycle_key": [f"{k:016x}" for k in rng.integers(0, 2**62, n)],
            "day": np.datetime64("2026-01-01") + rng.integers(0, 250, n).astype("timedelta64[D]"),
            "model": model,
            "role": rng.integers(0, 3, n),  # not read by the scorer; drawn all the same, or the later draws move
            "planner_model": planner,
            "builder_model": builder,
            "human_turns": rng.poisson(3, n),
            "assistant_steps": rng.poisson(40, n) * (rng.random(n) < 0.97),
            "edits": edits,
            "edit_paths": (rng.random(n) < 0.97).astype(np.int64),
            "edit_errors": rng.binomial(edits, 0.03),
            "cost_usd": np.round(rng.gamma(1.5, 8, n) * (rng.random(n) < 0.8), 4),
            "shipped": shipped,
            "active_hours": np.round(rng.gamma(1.2, 0.5, n), 4),
            "verified": (rng.random(n) < 0.6).astype(np.int64),
            "intervened": (rng.random(n) < 0.05).astype(np.int64),
            "step_seconds_median": np.where(rng.random(n) < 0.9, np.round(rng.gamma(3, 3, n), 2), -1.0),
            "ship_status": ship_status,
            "effort": effort_names[rng.integers(0, len(effort_names), n)],
            "planner_effort": np.where(paired, effort_names[rng.integers(0, len(effort_names), n)], ""),
            "builder_effort": np.where(paired, effort_names[rng.integers(0, len(effort_names), n)], ""),
        }
    )
