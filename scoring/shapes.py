"""The data shapes and constants of the scoring method, named once (scoring spec A1-A5, B1-B2).

Pure: no Django here. Arrays carry axes in AXES order and sums in SUMS order; a null
value is NaN inside the engine and None in the published document.
"""

import math
from typing import Any, Final, Literal, NotRequired, TypedDict

import numpy as np
import numpy.typing as npt
from pragmatikos_contract import method

# The engine's arrays: values (NaN for null), counts and indices, masks.
FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
SmallIntArray = npt.NDArray[np.int32]  # codes and weights a latency bag keeps in 32 bits

# The stored field names (ingest.models.Cycle) that the engine reads, in one tuple so the
# caller can select exactly these in one query (and no more: at a million cycles every
# extra text column costs the read a second).
CYCLE_COLUMNS: Final[tuple[str, ...]] = (
    "contributor",
    "cycle_key",
    "day",
    "model",
    "planner_model",
    "builder_model",
    "human_turns",
    "assistant_steps",
    "edits",
    "edit_paths",
    "edit_errors",
    "cost_usd",
    "shipped",
    "active_hours",
    "verified",
    "intervened",
    "step_seconds_median",
    "ship_status",
    "effort",
    "planner_effort",
    "builder_effort",
)

# A cell (scoring.cells): the cycles of one contributor sharing a day, a harness, their names and whether they
# are judged (A1). Every count and sum of the method, and every latency bag, is a sum over cells, so scoring
# reads cells rather than cycles; a day window or a harness lens keeps whole cells.
CELL_KEY: Final[tuple[str, ...]] = (
    "contributor",
    "day",
    "harness",
    "model",
    "effort",
    "planner_model",
    "planner_effort",
    "builder_model",
    "builder_effort",
    "judged",
)
# Per cell beside the sums (SUMS): counts by ship state, as scoring.judged.Tallies names them.
CELL_TALLIES: Final[tuple[str, ...]] = ("pending", "unshippable", "shipJudgedShipped")

# The method's scale (axes, tiers, k, the ranking floor, the span) and A1's label parts are defined once, in
# pragmatikos_contract.method, which the recorder's report scores a person's groups with too; named here as before.
Better = method.Better
Kind = method.Kind
Axis = method.Axis
Tier = method.Tier
SUMS: Final = method.SUMS  # per-cycle contributions whose group sums feed the axes (A2), in column order
AXES: Final = method.AXES
TIERS: Final = method.TIERS
MIN_JUDGED: Final = method.MIN_JUDGED  # a group is ranked from this many judged cycles (A4)
EVIDENCE_K: Final = method.EVIDENCE_K  # the pool's weight in shrinkage, in cycles (A5)
SPAN: Final = method.SPAN  # log2 distance that saturates a position: x4 better or worse (A5)
IMPUTED_TIER: Final = method.IMPUTED_TIER  # a tier with no position sits at the pool (A5)
NO_EFFORT: Final = method.NO_EFFORT
PAIR_ARROW: Final = method.PAIR_ARROW
DEFAULT_FAMILY_PATTERN: Final = method.DEFAULT_FAMILY_PATTERN
SPAN_FACTOR: Final = 2**SPAN  # the same span as a factor: x4
INTERVAL_LEVEL: Final = 0.95  # every interval's two-sided level (B1, B3)
THIN_BELOW: Final = 30  # B2 flag "thin"
DOMINATED_SHARE: Final = 0.8  # B2 flag "dominated"
SCHEMA: Final = 3
# The stored document's own shape (the TypedDicts below); a snapshot stored under another is not read.
# 2: each view carries its scale (`scale`) and the meta the family pattern, for clients that score on it.
DOCUMENT_VERSION: Final = 2
# A document's meta["intervals"] while only its points are computed (scoring.document.score_points): every ci null,
# rank and rank_worst the point places, no B3 or rank ranges. The document with them follows.
INTERVALS_KEY: Final = "intervals"
INTERVALS_PENDING: Final = "pending"

# Ship status (cycle-record.md, tshipe).
SHIP_JUDGED: Final = 0
SHIP_PENDING: Final = 1
SHIP_UNSHIPPABLE: Final = 2

S: Final[dict[str, int]] = {name: i for i, name in enumerate(SUMS)}


AXIS_NAMES: Final[tuple[str, ...]] = tuple(axis.name for axis in AXES)
A: Final[dict[str, int]] = {name: i for i, name in enumerate(AXIS_NAMES)}


TIER_NAMES: Final[tuple[str, ...]] = tuple(tier.name for tier in TIERS)
TIER_WEIGHTS: Final[dict[str, int]] = {tier.name: tier.weight for tier in TIERS}  # out of 100
AXIS_TIER: Final[dict[str, str]] = {axis: tier.name for tier in TIERS for axis in tier.axes}
# The weights as the published meta states them, "30/20/15/15/10/10".
WEIGHTS_LABEL: Final = "/".join(str(tier.weight) for tier in TIERS)

ViewName = Literal["model", "family", "modelEffort", "modelCombo", "famCombo", "modelEffortCombo"]
# The engine's order: a view's bootstrap stream is seeded by its position here, so it never changes.
VIEWS: Final[tuple[ViewName, ...]] = ("model", "family", "modelEffort", "modelCombo", "famCombo", "modelEffortCombo")
# The order the pages show them in (pairings first), and the one they open on.
TAB_ORDER: Final[tuple[ViewName, ...]] = (
    "modelCombo",
    "famCombo",
    "modelEffortCombo",
    "model",
    "family",
    "modelEffort",
)
DEFAULT_VIEW: Final[ViewName] = "modelCombo"
PAIRING_VIEWS: Final[frozenset[ViewName]] = frozenset({"modelCombo", "famCombo", "modelEffortCombo"})
# The pairing views B3 is fitted for; modelEffortCombo splits pairings by effort too finely for it.
PAIRING_EFFECT_VIEWS: Final[tuple[ViewName, ...]] = ("modelCombo", "famCombo")

# Hues of the families seen on the published scorecard, kept so colours match it; any
# other family gets a hue from a stable hash of its name.
FAMILY_HUES: Final[dict[str, int]] = {
    "claude-opus": 55,
    "claude-sonnet": 160,
    "claude-fable": 320,
    "grok": 30,
    "muse-spark": 350,
}

Flag = Literal["thin", "one-contributor", "dominated"]


class ProvisionalRow(TypedDict):
    label: str
    hjudged: int
    raw: dict[str, float | None]


# The published document (pool.json), typed once: the engine builds it, a snapshot stores it as JSON.
AxisValues = dict[str, float | None]  # axis name -> value, null where the method says so


class AdjustedOdds(TypedDict):
    """B3's contributor-adjusted ship odds of one group (pairing views)."""

    odds_ratio: float | None
    ci: list[float | None]  # [lo, hi]
    separable: bool | None


class GroupRow(TypedDict):
    """One ranked group of a view."""

    id: str
    label: str
    hue: int
    hjudged: int
    hshipped: int
    hshipJudged: int
    raw: AxisValues
    adj: AxisValues
    ev: dict[str, int]
    tiers: dict[str, float]
    tiersAdj: dict[str, float]
    imputed: list[str]
    score: float
    scoreAdj: float
    ci: list[float] | None  # [lo, hi]; null for one contributor
    rank: int
    rank_worst: int
    contributors: int
    top_share: float
    flags: list[Flag]
    planner: NotRequired[str]  # pairing views
    builder: NotRequired[str]
    adjusted: NotRequired[AdjustedOdds]  # the views in PAIRING_EFFECT_VIEWS, once enriched
    rank_range: NotRequired[list[int] | None]  # [best, worst] leaving one contributor out, once enriched


class ViewMeta(TypedDict):
    judged: int
    shipped: int
    shipJudged: int
    pending: int
    unshippable: int
    contributors: int
    start: str | None
    end: str | None
    minJudged: int
    evidenceK: int
    weights: str
    # Set by enrichment: the first two on the views in PAIRING_EFFECT_VIEWS, the last on every view.
    contributor_variance_share: NotRequired[float | None]
    adjustment: NotRequired[str]  # "ok" or "adjustment unavailable: ..."
    rank_stability: NotRequired[str]  # "ok" or "rank stability unavailable: ..."


class View(TypedDict):
    groups: list[GroupRow]  # by scoreAdj, best first
    pool: AxisValues
    span: int
    provisional: list[ProvisionalRow]
    meta: ViewMeta
    # What a client needs to score a group of its own on this view's pool (pragmatikos_contract.method.Scale's
    # document: axes, tiers and weights, evidenceK, minJudged, span); set by the engine on every view.
    scale: NotRequired[dict[str, Any]]


class DocumentMeta(TypedDict):
    generated: str
    start: str | None
    end: str | None
    judged: int
    shipped: int
    shipJudged: int
    pending: int
    impossible: int  # the published scorecard's name for unshippable; both are kept
    unshippable: int
    contributors: int
    schema: int
    document_version: int
    minJudged: int
    evidenceK: int
    weights: str
    resamples: int
    seed: int
    since: str | None
    until: str | None
    familyPattern: NotRequired[str]  # how the family views name a model's family (A1); set by the engine
    # Set by the recompute and the day windows: the harnesses a lens may choose, and the lens (None: every harness).
    harnesses: NotRequired[list[str]]
    harness: NotRequired[str | None]
    # Where a snapshot is read: its id, and whether it is demo data.
    snapshot: NotRequired[str]
    demo: NotRequired[bool]
    # INTERVALS_PENDING on a document of points only (scoring.document.score_points): its resampling is still
    # being computed. Absent once computed.
    intervals: NotRequired[str]


class PoolDocument(TypedDict):
    meta: DocumentMeta
    views: dict[str, View]  # every name in VIEWS


def number(value: object) -> float | None:
    """A published number as a float: None for a null, a flag, a non-number or a non-finite value."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    as_float = float(value)
    return as_float if math.isfinite(as_float) else None
