"""The scoring method (specs A1-A5, B1-B2) as pure functions over arrays: no Django here.

The service calls compute_document with one row per stored cycle (columns CYCLE_COLUMNS).
"""

from scoring.document import (
    GroupNotRanked,
    ScoringConfig,
    bootstrap_samples,
    compare_groups,
    compute_document,
)
from scoring.shapes import AXES, CYCLE_COLUMNS, DEFAULT_FAMILY_PATTERN, TIERS, VIEWS

__all__ = [
    "AXES",
    "CYCLE_COLUMNS",
    "DEFAULT_FAMILY_PATTERN",
    "TIERS",
    "VIEWS",
    "GroupNotRanked",
    "ScoringConfig",
    "bootstrap_samples",
    "compare_groups",
    "compute_document",
]
