"""The method's settings (ScoringConfig), apart from the engine: the service reads them as Django starts, and the
engine's modules bring numpy's neighbours pandas and scipy with them."""

from dataclasses import dataclass

from scoring.shapes import DEFAULT_FAMILY_PATTERN, EVIDENCE_K, MIN_JUDGED


@dataclass(frozen=True)
class ScoringConfig:
    """The method's settings: bootstrap resamples and seed, the judged-cycle floor, k of the shrinkage
    toward the pool, and how a model name maps to its family."""

    resamples: int = 200
    seed: int = 20260909
    min_judged: int = MIN_JUDGED
    evidence_k: int = EVIDENCE_K
    family_pattern: str = DEFAULT_FAMILY_PATTERN
