"""The scoring method (specs A1-A5, B1-B3) as pure functions over arrays: no Django here.

score_pool takes one row per stored cycle (columns CYCLE_COLUMNS), then enrich_document adds B3 and rank ranges;
the service does both on the pool's cells instead (scoring.cells.score_cells: the same document from fewer rows);
the compare page calls compare_from_samples on the samples score_pool kept. The vocabulary (views, axes, tiers,
thresholds) is scoring.shapes.
"""

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
    "Comparison",
    "GroupNotRanked",
    "Samples",
    "ScoredPool",
    "ScoringConfig",
    "compare_from_samples",
    "compare_groups",
    "enrich_document",
    "score_pool",
]
