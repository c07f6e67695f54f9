"""B1's compare: scoreAdj(A) - scoreAdj(B) with its interval, from stored bootstrap samples or from the cycles.

Every ranked group of a view is scored on the same resamples (one draw of the whole pool per resample), so the
difference of two groups' samples, resample by resample, is the comparison's bootstrap. The recompute keeps each
view's samples beside the document (score_pool); the page reads two columns of them back and calls
compare_from_samples. compare_groups draws them afresh from the cycles. Both give a Comparison.

Pure: numpy and pandas, no Django. The pages compare from samples as Django starts them: the engine that scores
cycles (scoring.document, and pandas with it) is imported where compare_groups runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from scoring.bootstrap import SCORE_RANGE, cluster_t_interval
from scoring.caveats import contributorship
from scoring.config import ScoringConfig
from scoring.shapes import VIEWS, ViewName

if TYPE_CHECKING:
    import pandas as pd

    from scoring.document import ViewResult

DEFAULT_CONFIG = ScoringConfig()  # frozen, so one shared default is safe


class GroupNotRanked(ValueError):
    """A comparison named a group that is not ranked in that view and scope."""


@dataclass(frozen=True, kw_only=True)
class PairedInterval:
    """What the paired resamples say of a difference between A and B: its 95% cluster bootstrap-t interval
    (``ci``), the share of resamples in which A came out ahead, how many resamples were paired, and
    K = min(K_A, K_B) (``contributors``). Without paired samples: None, None, 0, None."""

    ci: tuple[float, float] | None = None
    share_a_better: float | None = None
    resamples: int = 0
    contributors: int | None = None

    @property
    def lo(self) -> float | None:
        return None if self.ci is None else self.ci[0]

    @property
    def hi(self) -> float | None:
        return None if self.ci is None else self.ci[1]


def paired_interval(
    point: float, diffs: npt.NDArray[np.float64], contributors: int, *, clip: tuple[float, float] | None
) -> tuple[float, float] | None:
    """The interval of `point` from its differences resample by resample, with K = `contributors`; None where
    it is not finite (one contributor on the smaller side)."""
    lo, hi = cluster_t_interval(np.array([point]), diffs[:, None], np.array([contributors]), clip=clip)
    return (float(lo[0]), float(hi[0])) if np.isfinite(lo[0]) and np.isfinite(hi[0]) else None


@dataclass(frozen=True)
class Comparison(PairedInterval):
    """scoreAdj(A) - scoreAdj(B) and its paired interval, the share of resamples in which A scored strictly higher.

    ``ci`` is None without samples, when the two sides hold different counts or when the smaller side has one
    contributor; ``share_a_better`` and ``contributors`` are None without samples.
    """

    score_a: float
    score_b: float
    contributors_a: int
    contributors_b: int
    difference: float


def compare_from_samples(
    *,
    score_a: float,
    score_b: float,
    samples_a: Sequence[float] | npt.NDArray[np.float64],
    samples_b: Sequence[float] | npt.NDArray[np.float64],
    contributors_a: int,
    contributors_b: int,
) -> Comparison:
    """The comparison of two groups from their samples of the same resamples (paired by resample)."""
    draws_a = np.asarray(samples_a, dtype=np.float64)
    draws_b = np.asarray(samples_b, dtype=np.float64)
    difference = float(score_a - score_b)
    known = Comparison(
        score_a=float(score_a),
        score_b=float(score_b),
        contributors_a=int(contributors_a),
        contributors_b=int(contributors_b),
        difference=difference,
    )
    if draws_a.ndim != 1 or draws_a.shape != draws_b.shape or len(draws_a) == 0:
        return known
    diffs = draws_a - draws_b
    contributors = min(int(contributors_a), int(contributors_b))
    ci = paired_interval(difference, diffs, contributors, clip=(-SCORE_RANGE[1], SCORE_RANGE[1]))
    return Comparison(
        score_a=known.score_a,
        score_b=known.score_b,
        contributors_a=known.contributors_a,
        contributors_b=known.contributors_b,
        difference=difference,
        ci=ci,
        share_a_better=float((diffs > 0).mean()),
        resamples=len(diffs),
        contributors=contributors,
    )


@dataclass(frozen=True)
class RankedPair:
    """Two ranked groups of a view scored afresh from the cycles: the view's result, each group's place among
    its columns, and each one's contributors (the K of spec B1)."""

    result: ViewResult
    a: int
    b: int
    contributors_a: int
    contributors_b: int


def ranked_pair(
    cycles: pd.DataFrame,
    config: ScoringConfig,
    *,
    view: ViewName,
    label_a: str,
    label_b: str,
    since: date | None = None,
    until: date | None = None,
    keep_axes: bool = False,
) -> RankedPair:
    """Score the view on the cycles (its own bootstrap included) and find the two groups among the ranked ones;
    GroupNotRanked when either is not ranked in this scope."""
    if view not in VIEWS:
        raise ValueError(f"unknown view {view!r}")
    from scoring.document import prepare, score_view

    prepared = prepare(cycles, config, since, until)
    result = score_view(prepared, view, config, keep_axes=keep_axes)
    card = result.scorecard
    ranked_ids = np.flatnonzero(card.ranked)
    ranked_labels = [card.grouping.labels[g] for g in ranked_ids]
    for label in (label_a, label_b):
        if label not in ranked_labels:
            raise GroupNotRanked(f"{label!r} is not a ranked group of the {view} view in this scope")
    a, b = ranked_labels.index(label_a), ranked_labels.index(label_b)
    who = contributorship(
        card.grouping.codes,
        prepared.judged.contributor_code,
        len(card.grouping.labels),
        prepared.judged.contributors,
        prepared.judged.tallies.cycles,
    )
    return RankedPair(
        result=result,
        a=a,
        b=b,
        contributors_a=int(who.contributors[ranked_ids[a]]),
        contributors_b=int(who.contributors[ranked_ids[b]]),
    )


def compare_groups(
    cycles: pd.DataFrame,
    config: ScoringConfig = DEFAULT_CONFIG,
    *,
    view: ViewName,
    label_a: str,
    label_b: str,
    since: date | None = None,
    until: date | None = None,
) -> Comparison:
    """The comparison of two ranked groups of a view, bootstrapping the cycles afresh.

    Uses the draws of the view's own bootstrap (the pool recomputed per resample), so the comparison agrees with
    the intervals on the ranking page and with compare_from_samples over the samples score_pool keeps.
    """
    pair = ranked_pair(cycles, config, view=view, label_a=label_a, label_b=label_b, since=since, until=until)
    finished, samples = pair.result.scorecard.finished, pair.result.samples
    no_samples = np.array([], dtype=np.float64)
    return compare_from_samples(
        score_a=float(finished.score_adj[pair.a]),
        score_b=float(finished.score_adj[pair.b]),
        samples_a=no_samples if samples is None else samples[:, pair.a],
        samples_b=no_samples if samples is None else samples[:, pair.b],
        contributors_a=pair.contributors_a,
        contributors_b=pair.contributors_b,
    )
