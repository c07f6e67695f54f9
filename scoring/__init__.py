"""The scoring method (specs A1-A5, B1-B3) as pure functions over arrays: no Django here.

The service scores the pool's cells: prepare_cells, then score_cells (scoring.cells), which also adds B3 and rank
ranges (enrich_document); the compare page calls compare_from_samples on the samples it kept. score_pool is the
reference scorer: the same method on one row per stored cycle (columns CYCLE_COLUMNS), which the tests and
benchmarks hold score_cells to (its document equal to score_pool's followed by enrich_document). The vocabulary
(views, axes, tiers, thresholds) is scoring.shapes.
"""

from scoring.cells import Cells, prepare_cells, score_cells
from scoring.compare import Comparison, GroupNotRanked, compare_from_samples, compare_groups
from scoring.document import Samples, ScoredPool, ScoringConfig, score_pool
from scoring.enrich import enrich_document
from scoring.shapes import AXES, CYCLE_COLUMNS, DEFAULT_FAMILY_PATTERN, PAIRING_VIEWS, TIERS, VIEWS

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
    # The reference scorer, on cycles: what the tests and benchmarks hold score_cells to.
    "score_pool",
]
