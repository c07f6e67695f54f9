"""Scoring from cells gives the document and samples that scoring the cycles gives, to 1e-9 (scoring.cells)."""

import math
from datetime import date, timedelta
from typing import Any

import numpy as np
import pandas as pd
import pytest

from scoring import ScoringConfig, enrich_document, score_pool
from scoring.axis_samples import STEPS_PER_UNIT, decode
from scoring.cells import cells_of_cycles, score_cells
from tests.cycles import drawn_cycles
from tests.cycles.frames import cycle_frame

TOLERANCE = 1e-9
HARNESSES = ("opencode", "claude-code", "codex")
GENERATED = "2026-12-01T00:00:00Z"
WINDOWS = [(None, None), (date(2026, 6, 5), date(2026, 6, 20)), (date(2026, 6, 12), None)]


def assert_same(ours: Any, theirs: Any, where: str = "") -> None:
    if isinstance(ours, dict):
        assert set(ours) == set(theirs), f"{where}: keys {set(ours) ^ set(theirs)}"
        for key in ours:
            assert_same(ours[key], theirs[key], f"{where}.{key}")
    elif isinstance(ours, list | tuple):
        assert len(ours) == len(theirs), f"{where}: {len(ours)} != {len(theirs)}"
        for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            assert_same(a, b, f"{where}[{i}]")
    elif isinstance(ours, float) and isinstance(theirs, int | float):
        assert math.isclose(ours, theirs, rel_tol=TOLERANCE, abs_tol=TOLERANCE), f"{where}: {ours} != {theirs}"
    else:
        assert ours == theirs, f"{where}: {ours!r} != {theirs!r}"


def pool(contributors: int = 6, per_contributor: int = 70) -> pd.DataFrame:
    """Cycles of several contributors over days and harnesses, with every ship state, cycles without a latency,
    unjudged ones and latencies that repeat (whole seconds), so cells and histograms merge cycles."""
    rows = []
    for c in range(contributors):
        for i, made in enumerate(drawn_cycles(per_contributor, seed=c + 1, start_day=date(2026, 6, 1 + 3 * c))):
            kind = (i + c) % 11
            rows.append(
                {
                    **made,
                    "contributor": c + 1,
                    "day": date(2026, 6, 1) + timedelta(days=3 * c + i % 12),
                    "harness": HARNESSES[(i // 24 + c) % len(HARNESSES)],
                    "step_seconds_median": -1.0 if kind == 0 else float(round(made["step_seconds_median"])),
                    "ship_status": 1 if kind == 1 else 2 if kind == 2 else made["ship_status"],
                    "edits": 0 if kind == 3 else made["edits"],
                    "effort": "high" if i % 4 == 0 else made["effort"],
                }
            )
    frame = cycle_frame(rows)
    frame["harness"] = [row["harness"] for row in rows]
    return frame


def assert_same_axis_samples(ours: dict[str, Any], theirs: dict[str, Any]) -> None:
    """The per-axis samples the comparison page reads: the same groups, the same nulls, the same codes. A code
    rounds a log value to 1/STEPS_PER_UNIT, so a value the two summation orders put either side of a rounding
    edge may differ by one step; nothing may differ by more, and nearly every code must be equal."""
    assert set(ours) == set(theirs)
    for view in ours:
        assert set(ours[view]) == set(theirs[view]), view
        for label, text in ours[view].items():
            a, b = decode(text), decode(theirs[view][label])
            assert a is not None and b is not None and a.shape == b.shape, (view, label)
            assert np.array_equal(np.isnan(a), np.isnan(b)), (view, label)
            both = ~np.isnan(a)
            steps = np.abs(a[both] - b[both]) * STEPS_PER_UNIT
            assert steps.max(initial=0) <= 1, (view, label)
            assert steps.size == 0 or (steps == 0).mean() >= 0.999, (view, label)


def scored_from_cycles(cycles: pd.DataFrame, config: ScoringConfig, since: date | None, until: date | None) -> Any:
    scored = score_pool(cycles, config, since=since, until=until, generated=GENERATED, keep_axes=True)
    enrich_document(scored.document, cycles, config, since=since, until=until)
    return scored


@pytest.mark.parametrize(("since", "until"), WINDOWS)
def test_cells_score_as_the_cycles_do(since: date | None, until: date | None) -> None:
    cycles = pool()
    config = ScoringConfig(resamples=40)
    cells = cells_of_cycles(cycles)
    # Cells do merge cycles, and histograms merge equal latencies: the check is not one of rows renamed.
    assert len(cells.frame) < len(cycles)
    assert len(cells.bag_latency) < int((cycles["step_seconds_median"] >= 0).sum())
    assert cells.cycles == len(cycles)
    theirs = scored_from_cycles(cycles, config, since, until)
    ours = score_cells(cells, config, since=since, until=until, generated=GENERATED, keep_axes=True)
    assert_same(ours.document, theirs.document)
    assert_same(ours.samples, theirs.samples)
    assert ours.axis_samples["modelCombo"], "the comparison page's per-axis samples must be kept"
    assert_same_axis_samples(ours.axis_samples, theirs.axis_samples)
    views = ours.document["views"]
    assert views["modelCombo"]["groups"], "the pool must rank pairings for the comparison to mean something"
    assert views["modelCombo"]["meta"]["adjustment"] == "ok"
    assert views["model"]["meta"]["pending"] > 0 and views["model"]["meta"]["unshippable"] > 0


def test_a_retraction_leaves_the_cells_of_everyone_else() -> None:
    cycles = pool()
    kept = cycles[cycles["contributor"] != 2].reset_index(drop=True)
    config = ScoringConfig(resamples=20)
    ours = score_cells(cells_of_cycles(kept), config, generated=GENERATED)
    assert_same(ours.document, scored_from_cycles(kept, config, None, None).document)
    everyone = score_cells(cells_of_cycles(cycles), config, generated="x")
    assert ours.document["meta"]["contributors"] == everyone.document["meta"]["contributors"] - 1


def test_a_harness_lens_keeps_whole_cells() -> None:
    cycles = pool()
    config = ScoringConfig(resamples=10)
    one = cycles[cycles["harness"] == "codex"].reset_index(drop=True)
    from scoring.cells import prepare_cells
    from scoring.document import score_prepared

    lensed = score_prepared(prepare_cells(cells_of_cycles(cycles), config, harness="codex"), config, generated="x")
    assert_same(lensed.document, score_pool(one, config, generated="x").document)


def test_no_cycles_no_cells() -> None:
    cycles = pool().iloc[:0]
    cells = cells_of_cycles(cycles)
    assert cells.cycles == 0 and len(cells.bag_cell) == 0
    ours = score_cells(cells, ScoringConfig(resamples=5), generated="x")
    assert ours.document["meta"]["judged"] == 0
    assert np.all([not body["groups"] for body in ours.document["views"].values()])
