"""Generated cycles shaped like the stored ones, for property tests and the engine benchmark."""

import numpy as np
import pandas as pd

from scoring import CYCLE_COLUMNS

MODELS = (
    "claude-opus-4.6",
    "claude-opus-5",
    "claude-sonnet-4.6",
    "claude-fable-5",
    "grok-4.6",
    "muse-spark-1.3",
    "gpt-6-astra",
    "gemini-3-pro",
    "deepseek-v4",
    "qwen-4-coder",
)
EFFORTS = ("", "default", "high", "max", "xhigh")


def synthetic_cycles(
    n: int, *, seed: int = 1, contributors: int = 50, models: int = len(MODELS), efforts: int = len(EFFORTS)
) -> pd.DataFrame:
    """n cycles with every column of CYCLE_COLUMNS; most judged, most with a planner and a builder."""
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
    frame = pd.DataFrame(
        {
            "contributor": rng.integers(1, contributors + 1, n),
            "cycle_key": [f"{k:016x}" for k in rng.integers(0, 2**62, n)],
            "day": np.datetime64("2026-01-01") + rng.integers(0, 250, n).astype("timedelta64[D]"),
            "model": model,
            "provider": "anthropic",
            "role": rng.integers(0, 3, n),
            "planner_model": planner,
            "planner_provider": np.where(paired, "anthropic", ""),
            "builder_model": builder,
            "builder_provider": np.where(paired, "anthropic", ""),
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
            "harness": "opencode",
            "harness_version": "1.2.0",
        }
    )
    return frame[list(CYCLE_COLUMNS)]


# A judged, shipped, metered cycle; tests override what they are about.
DEFAULT_CYCLE: dict[str, object] = {
    "contributor": 1,
    "cycle_key": "0000000000000000",
    "day": "2026-03-01",
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
    "harness_version": "1.0.0",
}


def cycle_frame(rows: list[dict[str, object]]) -> pd.DataFrame:
    """A frame of cycles from overrides of DEFAULT_CYCLE; keys default to the row's position."""
    records = []
    for i, overrides in enumerate(rows):
        records.append({**DEFAULT_CYCLE, "cycle_key": f"{i:016x}", **overrides})
    return pd.DataFrame.from_records(records, columns=list(CYCLE_COLUMNS))
