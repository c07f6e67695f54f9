"""The data shapes and constants of the scoring method, named once (scoring spec A1-A5, B1-B2).

Pure: no Django here. Arrays carry axes in AXES order and sums in SUMS order; a null
value is NaN inside the engine and None in the published document.
"""

import math
from dataclasses import dataclass
from typing import Final, Literal, NotRequired, TypedDict

import numpy as np
import numpy.typing as npt

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

MIN_JUDGED: Final = 10  # a group is ranked from this many judged cycles (A4)
EVIDENCE_K: Final = 10  # the pool's weight in shrinkage, in cycles (A5)
SPAN: Final = 2  # log2 distance that saturates a position: x4 better or worse (A5)
SPAN_FACTOR: Final = 2**SPAN  # the same span as a factor: x4
INTERVAL_LEVEL: Final = 0.95  # every interval's two-sided level (B1, B3)
THIN_BELOW: Final = 30  # B2 flag "thin"
DOMINATED_SHARE: Final = 0.8  # B2 flag "dominated"
SCHEMA: Final = 3
# The stored document's own shape (the TypedDicts below); a snapshot stored under another is not read.
DOCUMENT_VERSION: Final = 1
# A document's meta["intervals"] while only its points are computed (scoring.document.score_points): every ci null,
# rank and rank_worst the point places, no B3 or rank ranges. The document with them follows.
INTERVALS_KEY: Final = "intervals"
INTERVALS_PENDING: Final = "pending"
NO_EFFORT: Final = "(none)"
PAIR_ARROW: Final = " → "
DEFAULT_FAMILY_PATTERN: Final = (
    r"^(claude-(?:opus|sonnet|haiku|fable)|grok|gpt|gemini|minimax|deepseek|muse-spark|big-pickle)"
)

# Ship status (cycle-record.md, tshipe).
SHIP_JUDGED: Final = 0
SHIP_PENDING: Final = 1
SHIP_UNSHIPPABLE: Final = 2

Better = Literal["higher", "lower"]
Kind = Literal["odds", "ratio", "err"]

# Per-cycle contributions whose group sums feed the axes (A2), in column order.
SUMS: Final[tuple[str, ...]] = (
    "hjudged",
    "hshipJudged",
    "hshipped",
    "hshippedCosted",
    "huShip",
    "hhrsShip",
    "hcostShip",
    "hone",
    "hedits",
    "hteerr",
    "hver",
    "habort",
    "hu",
)
S: Final[dict[str, int]] = {name: i for i, name in enumerate(SUMS)}


@dataclass(frozen=True)
class Axis:
    """One scored axis (A3): how it is read and which sum is its evidence."""

    name: str
    better: Better
    kind: Kind
    evidence: str  # a name in SUMS

    @property
    def higher_is_better(self) -> bool:
        return self.better == "higher"


AXES: Final[tuple[Axis, ...]] = (
    Axis("shipr", "higher", "odds", "hshipJudged"),
    Axis("oneshot", "higher", "odds", "hshipped"),
    Axis("ttss", "lower", "ratio", "hshipped"),
    Axis("hps", "lower", "ratio", "hshipped"),
    Axis("dpss", "lower", "ratio", "hshippedCosted"),
    Axis("eerrp", "lower", "err", "hjudged"),
    Axis("abortp", "lower", "err", "hjudged"),
    Axis("verp", "higher", "odds", "hjudged"),
    Axis("ept", "higher", "ratio", "hjudged"),
    Axis("lat", "lower", "ratio", "hjudged"),
)
AXIS_NAMES: Final[tuple[str, ...]] = tuple(axis.name for axis in AXES)
A: Final[dict[str, int]] = {name: i for i, name in enumerate(AXIS_NAMES)}


@dataclass(frozen=True)
class Tier:
    name: str
    weight: int
    axes: tuple[str, ...]


TIERS: Final[tuple[Tier, ...]] = (
    Tier("Outcome", 30, ("shipr", "oneshot")),
    Tier("Cost", 20, ("ttss", "hps", "dpss")),
    Tier("Precision", 15, ("eerrp", "abortp")),
    Tier("Discipline", 15, ("verp",)),
    Tier("Efficiency", 10, ("ept",)),
    Tier("Latency", 10, ("lat",)),
)
TIER_NAMES: Final[tuple[str, ...]] = tuple(tier.name for tier in TIERS)
TIER_WEIGHTS: Final[dict[str, int]] = {tier.name: tier.weight for tier in TIERS}  # out of 100
AXIS_TIER: Final[dict[str, str]] = {axis: tier.name for tier in TIERS for axis in tier.axes}
# The weights as the published meta states them, "30/20/15/15/10/10".
WEIGHTS_LABEL: Final = "/".join(str(tier.weight) for tier in TIERS)
IMPUTED_TIER: Final = 50.0  # a tier with no position sits at the pool (A5)

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
