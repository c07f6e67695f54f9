"""What the recompute adds to a scored document: B3's adjusted pairing effects and the rank stability caveat.

Both read the same judged cycles and view groupings as the engine (scoring.document.prepare), so labels, families
and the judged filter are the engine's own. Either part may fail on some data; it then says so in the view's meta
and the scores stay as published: enrichment never raises. The two algorithms live in scoring.pairing_effects
(B3's mixed model) and scoring.rank_stability (leave one contributor out); this module fits them to the document.

Pure: numpy and pandas, no Django.
"""

import logging
import math
from datetime import date

import numpy as np
import pandas as pd

from scoring.document import Prepared, ScoringConfig, prepare
from scoring.pairing_effects import CYCLES_COLUMN, PairingFit, fit_pairing_effects
from scoring.rank_stability import rank_ranges
from scoring.shapes import PAIRING_EFFECT_VIEWS, SHIP_JUDGED, PoolDocument, View

log = logging.getLogger(__name__)

# A flag older documents carried on most rows; the range is now a note the pages show where it reaches outside
# the interval's rank range (pages.presenters.stability_note), so enrichment removes it.
RETIRED_FLAG = "unstable-rank"


def enrich_document(
    document: PoolDocument,
    cycles: pd.DataFrame,
    config: ScoringConfig,
    *,
    since: date | None = None,
    until: date | None = None,
    prepared: Prepared | None = None,
) -> PoolDocument:
    """Add the adjusted pairing effects and the rank ranges to a document from score_pool; never raises.

    Give it the same cycles, config and window as score_pool had. Sets, on every ranked group of the views
    in PAIRING_EFFECT_VIEWS, ``adjusted = {"odds_ratio", "ci": [lo, hi], "separable"}`` and, per such view,
    ``meta.contributor_variance_share`` and ``meta.adjustment`` ("ok" or "adjustment unavailable: ...");
    on every ranked group of every view ``rank_range = [best, worst]`` (None when unavailable): a stability note,
    not a confidence statement, with ``meta.rank_stability`` ("ok" or "rank stability unavailable: ...").
    The document is changed in place and returned. A caller that scored the same cycles may pass the engine's
    `prepared` stage to spare preparing them again.
    """
    try:
        _enrich(document, cycles, config, since, until, prepared)
    except Exception:  # a document shaped unlike score_pool's: leave it as it is, published
        log.exception("enrichment: skipped")
    return document


def _enrich(
    document: PoolDocument,
    cycles: pd.DataFrame,
    config: ScoringConfig,
    since: date | None,
    until: date | None,
    prepared: Prepared | None,
) -> None:
    views = document["views"]
    for view, body in views.items():
        _set_defaults(view, body)
    try:
        prepared = prepared or prepare(cycles, config, since, until)
    except Exception as error:  # the scores are published whatever goes wrong here
        log.exception("enrichment: could not read the cycles")
        for view, body in views.items():
            if view in PAIRING_EFFECT_VIEWS:
                body["meta"]["adjustment"] = f"adjustment unavailable: {_reason(error)}"
            body["meta"]["rank_stability"] = f"rank stability unavailable: {_reason(error)}"
        return
    for view, body in views.items():
        if view in PAIRING_EFFECT_VIEWS:
            try:
                _apply_adjustment(body, _fit_view(prepared, view, _ranked_labels(body)))
            except Exception as error:
                log.exception("enrichment: adjustment of %s failed", view)
                _set_adjustment_defaults(body)
                body["meta"]["adjustment"] = f"adjustment unavailable: {_reason(error)}"
        try:
            _apply_rank_ranges(body, rank_ranges(prepared, view, config))
        except Exception as error:
            log.exception("enrichment: rank stability of %s failed", view)
            _set_stability_defaults(body)
            body["meta"]["rank_stability"] = f"rank stability unavailable: {_reason(error)}"


def _reason(error: Exception) -> str:
    # The operator has the exception in the log; the public document gets a fixed sentence.
    return "an internal error stopped the computation"


def _ranked_labels(body: View) -> set[str]:
    return {group["label"] for group in body["groups"]}


def _set_defaults(view: str, body: View) -> None:
    """The keys every consumer can count on, before anything that could fail runs."""
    if view in PAIRING_EFFECT_VIEWS:
        _set_adjustment_defaults(body)
    _set_stability_defaults(body)


def _set_adjustment_defaults(body: View) -> None:
    body["meta"]["contributor_variance_share"] = None
    body["meta"]["adjustment"] = "adjustment unavailable: not computed"
    for group in body["groups"]:
        group["adjusted"] = {"odds_ratio": None, "ci": [None, None], "separable": None}


def _set_stability_defaults(body: View) -> None:
    body["meta"]["rank_stability"] = "rank stability unavailable: not computed"
    for group in body["groups"]:
        group["rank_range"] = None
        group["flags"] = [flag for flag in group["flags"] if flag != RETIRED_FLAG]


# B3 ------------------------------------------------------------------------------------------------------------


def _fit_view(prepared: Prepared, view: str, ranked: set[str]) -> PairingFit:
    """fit_pairing_effects over the judged cycles in scope, each labelled with its group in this view."""
    grouping = prepared.groupings[view]  # type: ignore[index]
    judged = prepared.judged
    ranked_codes = np.array([label in ranked for label in grouping.labels], dtype=np.bool_)
    codes = grouping.codes
    # Only ship-judged cycles of ranked groups enter the fit; narrowing first keeps the frame small. A row may
    # stand for several cycles (a cell): it brings its ship-judged ones as trials, those shipped as successes.
    tally = judged.tallies
    keep = np.flatnonzero((codes >= 0) & ranked_codes[np.maximum(codes, 0)] & (tally.ship_judged > 0))
    frame = pd.DataFrame(
        {
            "contributor": judged.contributor[keep],
            "shipped": tally.ship_judged_shipped[keep],
            "ship_status": np.full(len(keep), SHIP_JUDGED),
            CYCLES_COLUMN: tally.ship_judged[keep],
        }
    )
    labels = np.asarray(grouping.labels, dtype=object)[codes[keep]] if len(grouping.labels) else np.array([], object)
    return fit_pairing_effects(frame, labels=labels, ranked=ranked)


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def _apply_adjustment(body: View, fit: PairingFit) -> None:
    for group in body["groups"]:
        effect = fit.effects.get(group["label"])
        if effect is None:
            continue
        ci: list[float | None] = (
            [_finite(effect.ci[0]), _finite(effect.ci[1])] if effect.ci is not None else [None, None]
        )
        group["adjusted"] = {"odds_ratio": _finite(effect.odds_ratio), "ci": ci, "separable": effect.separable}
    body["meta"]["contributor_variance_share"] = _finite(fit.contributor_variance_share)
    body["meta"]["adjustment"] = "ok" if fit.converged else fit.message


# Rank stability ------------------------------------------------------------------------------------------------


def _apply_rank_ranges(body: View, ranges: dict[str, tuple[int, int]]) -> None:
    for group in body["groups"]:
        bounds = ranges.get(group["label"])
        group["rank_range"] = None if bounds is None else [int(bounds[0]), int(bounds[1])]
    body["meta"]["rank_stability"] = "ok"
