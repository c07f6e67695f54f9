"""Comparing two ranked groups from stored bootstrap samples, so the comparison page needs no bootstrap of its own.

Every ranked group of a view is scored on the same resamples (one draw of the whole pool per resample), so the
difference of two groups' samples, resample by resample, is exactly what compare_groups computes. The recompute
keeps each view's samples beside the document (document_and_samples); the page reads two columns of them back and
calls compare_from_samples.

Pure: numpy and pandas, no Django.
"""

from collections.abc import Sequence
from datetime import date
from typing import Any

import numpy as np
import pandas as pd

from scoring.bootstrap import paired_difference
from scoring.document import Prepared, ScoringConfig, _score_views, assemble_document, prepare
from scoring.shapes import VIEWS

# {view: {label: [scoreAdj in resample 0, 1, ...]}}, the ranked groups of each view.
Samples = dict[str, dict[str, list[float]]]


def document_and_samples(
    cycles: pd.DataFrame,
    config: ScoringConfig,
    *,
    since: date | None = None,
    until: date | None = None,
    generated: str | None = None,
    prepared: Prepared | None = None,
) -> tuple[dict[str, Any], Samples]:
    """compute_document's document (the same one: a test holds them equal) and the bootstrap samples it drew.

    The bootstrap runs once: the samples are the draws the document's intervals come from.
    """
    prepared = prepared or prepare(cycles, config, since, until)
    results = _score_views(prepared, config, VIEWS)
    document = assemble_document(prepared, results, config, since=since, until=until, generated=generated)
    samples: Samples = {}
    for view in VIEWS:
        result = results[view]
        grouping = result.scorecard.grouping
        labels = [grouping.labels[g] for g in np.flatnonzero(result.scorecard.ranked)]
        if result.samples is None:
            samples[view] = {}
            continue
        samples[view] = {label: result.samples[:, i].tolist() for i, label in enumerate(labels)}
    return document, samples


def compare_from_samples(
    *,
    score_a: float,
    score_b: float,
    samples_a: Sequence[float],
    samples_b: Sequence[float],
    contributors_a: int,
    contributors_b: int,
) -> dict[str, Any]:
    """scoreAdj(A) - scoreAdj(B), its 95% cluster bootstrap-t interval with K = min(K_A, K_B), and the share of
    resamples in which A scored strictly higher: compare_groups' numbers, from stored samples.

    ``ci`` is None when there are no samples, the two sides hold different counts or the smaller side has one
    contributor; ``a_beats_b`` is None without samples.
    """
    return paired_difference(
        score_a=score_a,
        score_b=score_b,
        samples_a=np.asarray(samples_a, dtype=np.float64),
        samples_b=np.asarray(samples_b, dtype=np.float64),
        contributors_a=contributors_a,
        contributors_b=contributors_b,
    )
