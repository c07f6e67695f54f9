"""The scoring method (specs A1-A5, B1-B3) as pure functions over arrays: no Django here.

The service scores the pool's cells: prepare_cells, then score_cells (scoring.cells), which also adds B3 and rank
ranges (enrich_document); the compare page calls compare_from_samples on the samples it kept. score_pool is the
reference scorer: the same method on one row per stored cycle (columns CYCLE_COLUMNS), which the tests and
benchmarks hold score_cells to (its document equal to score_pool's followed by enrich_document). The vocabulary
(views, axes, tiers, thresholds) is scoring.shapes.

The names below are imported on first use (PEP 562): importing scoring.shapes, which every process does as
Django starts, then costs the vocabulary alone, not numpy, pandas and scipy.stats; the worker that scores
imports them when it first scores.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scoring.cells import Cells, prepare_cells, score_cells
    from scoring.compare import Comparison, GroupNotRanked, compare_from_samples, compare_groups
    from scoring.config import ScoringConfig
    from scoring.document import Samples, ScoredPool, score_pool
    from scoring.enrich import enrich_document
    from scoring.shapes import AXES, CYCLE_COLUMNS, DEFAULT_FAMILY_PATTERN, PAIRING_VIEWS, TIERS, VIEWS

# Each public name and the module that defines it.
_HOMES = {
    "AXES": "scoring.shapes",
    "CYCLE_COLUMNS": "scoring.shapes",
    "DEFAULT_FAMILY_PATTERN": "scoring.shapes",
    "PAIRING_VIEWS": "scoring.shapes",
    "TIERS": "scoring.shapes",
    "VIEWS": "scoring.shapes",
    "Cells": "scoring.cells",
    "Comparison": "scoring.compare",
    "GroupNotRanked": "scoring.compare",
    "Samples": "scoring.document",
    "ScoredPool": "scoring.document",
    "ScoringConfig": "scoring.config",
    "compare_from_samples": "scoring.compare",
    "compare_groups": "scoring.compare",
    "enrich_document": "scoring.enrich",
    "prepare_cells": "scoring.cells",
    "score_cells": "scoring.cells",
    # The reference scorer, on cycles: what the tests and benchmarks hold score_cells to.
    "score_pool": "scoring.document",
}

__all__ = [
    "AXES",
    "CYCLE_COLUMNS",
    "DEFAULT_FAMILY_PATTERN",
    "PAIRING_VIEWS",
    "TIERS",
    "VIEWS",
    "Cells",
    "Comparison",
    "GroupNotRanked",
    "Samples",
    "ScoredPool",
    "ScoringConfig",
    "compare_from_samples",
    "compare_groups",
    "enrich_document",
    "prepare_cells",
    "score_cells",
    "score_pool",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'scoring' has no attribute {name!r}")
    value = getattr(import_module(home), name)
    globals()[name] = value  # once found, an ordinary attribute
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})
