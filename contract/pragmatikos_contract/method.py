"""The scoring method's parts a client needs to read one group against a published pool (scoring spec A1-A5).

Plain Python, one group at a time, null as None. The service's engine finishes every published group through
these functions (scoring.scorecard, scoring.finishing.finish) and the recorder's report scores a person's own
groups through the same ones against the pool the service publishes, so the two cannot drift. The engine's
bootstrap keeps a vectorized form of A5 for speed; tests hold it equal to this one.

The scale a client reads a group on (axes, tiers, k, the ranking floor, the span) is published with every view
of the pool document (Scale.document), so a client takes it from the document rather than from its own copy.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final, Literal

Better = Literal["higher", "lower"]
Kind = Literal["odds", "ratio", "err"]

MIN_JUDGED: Final = 10  # a group is ranked from this many judged cycles (A4)
EVIDENCE_K: Final = 10  # the pool's weight in shrinkage, in cycles (A5)
SPAN: Final = 2  # log2 distance that saturates a position: x4 better or worse (A5)
IMPUTED_TIER: Final = 50.0  # a tier with no position sits at the pool (A5)
NO_EFFORT: Final = "(none)"
PAIR_ARROW: Final = " → "
DEFAULT_FAMILY_PATTERN: Final = (
    r"^(claude-(?:opus|sonnet|haiku|fable)|grok|gpt|gemini|minimax|deepseek|muse-spark|big-pickle)"
)

# The sums of A2, in the engine's column order.
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

Values = dict[str, float | None]  # axis name -> value, None where the method says null


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


@dataclass(frozen=True)
class Tier:
    name: str
    weight: int
    axes: tuple[str, ...]


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

TIERS: Final[tuple[Tier, ...]] = (
    Tier("Outcome", 30, ("shipr", "oneshot")),
    Tier("Cost", 20, ("ttss", "hps", "dpss")),
    Tier("Precision", 15, ("eerrp", "abortp")),
    Tier("Discipline", 15, ("verp",)),
    Tier("Efficiency", 10, ("ept",)),
    Tier("Latency", 10, ("lat",)),
)


# A1: judged cycles and group labels.


def is_judged(steps: int, edits: int, edit_paths: int) -> bool:
    """A cycle is judged when a > 0, tedits > 0 and tpaths = 1."""
    return steps > 0 and edits > 0 and edit_paths == 1


@lru_cache(maxsize=16)
def _family_regex(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def family(model: str, pattern: str = DEFAULT_FAMILY_PATTERN) -> str:
    """The first match of the family pattern in the model name (its first group if it has one), else the name.

    The default pattern is anchored at the start (^); an operator's pattern is searched as written.
    """
    found = _family_regex(pattern).search(model)
    if found is None:
        return model
    return found.group(1) if found.re.groups else found.group(0)


def with_effort(model: str, effort: str) -> str:
    return f"{model}:{effort or NO_EFFORT}"


def pair(planner: str, builder: str) -> str:
    return f"{planner}{PAIR_ARROW}{builder}"


# A2 and A3: one cycle's part of its group's sums, and a group's raw axes from its sums.


@dataclass(frozen=True)
class CycleFacts:
    """The stored values of one judged cycle that the sums read (contract columns in brackets)."""

    human_turns: float  # u
    edits: float  # tedits
    edit_errors: float  # teerr
    cost_usd: float  # tcost
    shipped: int  # tship
    active_hours: float  # thrs
    verified: int  # tver
    intervened: int  # tabort
    ship_status: int  # tshipe
    has_planner: bool  # pm set


def cycle_sums(cycle: CycleFacts) -> dict[str, float]:
    """What one judged cycle adds to each sum of A2."""
    shipped = cycle.shipped == 1
    u = float(cycle.human_turns)
    return {
        "hjudged": 1.0,
        "hshipJudged": float(cycle.ship_status == 0),
        "hshipped": float(shipped),
        "hshippedCosted": float(shipped and cycle.cost_usd > 0),
        "huShip": u if shipped else 0.0,
        "hhrsShip": float(cycle.active_hours) if shipped else 0.0,
        "hcostShip": float(cycle.cost_usd) if shipped else 0.0,
        "hone": float(shipped and (u == 1 or (cycle.has_planner and u <= 2))),
        "hedits": float(cycle.edits),
        "hteerr": float(cycle.edit_errors),
        "hver": float(cycle.verified == 1),
        "habort": float(cycle.intervened == 1),
        "hu": u,
    }


def add_sums(total: dict[str, float], part: Mapping[str, float]) -> dict[str, float]:
    for name in SUMS:
        total[name] = total.get(name, 0.0) + part[name]
    return total


def weighted_median(pairs: Iterable[tuple[float, int]]) -> float | None:
    """The first value, in value order, at which the running weight reaches half the total (A3); None when the
    total weight is 0. Equal values keep their given order, and a zero weight is never the median."""
    ordered = sorted(pairs, key=lambda value_weight: value_weight[0])
    total = sum(weight for _, weight in ordered)
    if total <= 0:
        return None
    target = (total + 1) // 2  # reaching total / 2 in whole numbers
    running = 0
    for value, weight in ordered:
        running += weight
        if running >= target and weight > 0:
            return float(value)
    return None  # unreachable: the running weight ends at the total


def _divide(numerator: float, divisor: float, scale: float = 1.0) -> float | None:
    return scale * numerator / divisor if divisor != 0 else None


def raw_axes(sums: Mapping[str, float], latency: float | None) -> Values:
    """A3: the raw axes from a group's sums and its latency bag's weighted median (None: an empty bag)."""
    s = sums
    return {
        "shipr": _divide(s["hshipped"], s["hshipJudged"], 100),
        "oneshot": _divide(s["hone"], s["hshipped"], 100),
        "ttss": _divide(s["huShip"], s["hshipped"]),
        "hps": _divide(s["hhrsShip"], s["hshipped"]),
        "dpss": _divide(s["hcostShip"], s["hshippedCosted"]) if s["hcostShip"] > 0 else None,
        "eerrp": _divide(s["hteerr"], s["hedits"], 100),
        "abortp": _divide(s["habort"], s["hjudged"], 100),
        "verp": _divide(s["hver"], s["hjudged"], 100),
        "ept": _divide(s["hedits"], s["hu"]),
        "lat": latency,
    }


# A5: the scale, and one group finished on it.


@dataclass(frozen=True)
class Scale:
    """What reading a group against a pool takes: the axes, the tiers and their weights, k of the shrinkage,
    the ranking floor and the span of a position. Published with each view of the pool document."""

    axes: tuple[Axis, ...] = AXES
    tiers: tuple[Tier, ...] = TIERS
    evidence_k: int = EVIDENCE_K
    min_judged: int = MIN_JUDGED
    span: float = SPAN
    imputed_tier: float = IMPUTED_TIER

    def document(self) -> dict[str, Any]:
        """The scale as the pool document carries it (docs/api.md, `scale`)."""
        return {
            "axes": [{"name": a.name, "better": a.better, "kind": a.kind, "evidence": a.evidence} for a in self.axes],
            "tiers": [{"name": t.name, "weight": t.weight, "axes": list(t.axes)} for t in self.tiers],
            "evidenceK": self.evidence_k,
            "minJudged": self.min_judged,
            "span": self.span,
            "imputedTier": self.imputed_tier,
        }

    @classmethod
    def from_document(cls, scale: Mapping[str, Any]) -> Scale:
        """The scale a pool document publishes; ValueError when it is not one this method can read."""
        try:
            axes = tuple(
                Axis(str(a["name"]), _choice(a["better"], BETTER), _choice(a["kind"], KINDS), str(a["evidence"]))
                for a in scale["axes"]
            )
            tiers = tuple(
                Tier(str(t["name"]), int(t["weight"]), tuple(str(x) for x in t["axes"])) for t in scale["tiers"]
            )
            read = cls(
                axes=axes,
                tiers=tiers,
                evidence_k=int(scale["evidenceK"]),
                min_judged=int(scale["minJudged"]),
                span=float(scale["span"]),
                imputed_tier=float(scale["imputedTier"]),
            )
        except (KeyError, TypeError) as error:
            raise ValueError(f"not a scale: {error}") from error
        names = {a.name for a in axes}
        if any(a.evidence not in SUMS for a in axes) or any(x not in names for t in tiers for x in t.axes):
            raise ValueError("not a scale: an axis's evidence or a tier's axis is unknown")
        return read


BETTER: Final[tuple[Better, ...]] = ("higher", "lower")
KINDS: Final[tuple[Kind, ...]] = ("odds", "ratio", "err")


def _choice(value: Any, allowed: tuple[Any, ...]) -> Any:
    if value not in allowed:
        raise ValueError(f"not a scale: {value!r} is not one of {allowed}")
    return value


def adjusted(raw: float | None, evidence: float, pool: float | None, k: float = EVIDENCE_K) -> float | None:
    """(n*raw + k*pool) / (n + k); None where raw or pool is None."""
    if raw is None or pool is None:
        return None
    return (evidence * raw + k * pool) / (evidence + k)


def log_distance(axis: Axis, value: float | None, pool: float | None) -> float | None:
    """r (base 2, better is positive), or None where the spec says null; +-inf kept."""
    if value is None or pool is None:
        return None
    if axis.kind == "ratio":
        if value <= 0 or pool <= 0:
            return None
        return math.log2(value / pool) if axis.higher_is_better else math.log2(pool / value)
    if axis.kind == "odds":
        if pool <= 0 or pool >= 100:
            return None
        if value == pool:
            return 0.0
        if value <= 0:
            r = -math.inf
        elif value >= 100:
            r = math.inf
        else:
            r = math.log2((value / (100 - value)) / (pool / (100 - pool)))
        return r if axis.higher_is_better else -r
    # err: lower is better; no errors at all is infinitely better.
    if pool <= 0:
        return None
    if value == pool:
        return 0.0
    return math.inf if value <= 0 else math.log2(pool / value)


def position(distance: float | None, span: float = SPAN) -> float | None:
    """(clamp(r / span, -1, 1) + 1) / 2: the pool at 0.5, span better or more at 1."""
    if distance is None:
        return None
    return (min(1.0, max(-1.0, distance / span)) + 1.0) / 2.0


def tier_values(positions: Mapping[str, float | None], scale: Scale = Scale()) -> tuple[dict[str, float], list[str]]:
    """100 x the mean of each tier's non-null positions, and the tiers with none (imputed at the scale's 50)."""
    values: dict[str, float] = {}
    imputed: list[str] = []
    for tier in scale.tiers:
        present = [p for p in (positions[name] for name in tier.axes) if p is not None]
        if present:
            total = 0.0
            for p in present:
                total += p
            values[tier.name] = 100 * total / len(present)
        else:
            values[tier.name] = scale.imputed_tier
            imputed.append(tier.name)
    return values, imputed


def weighted_score(tiers: Mapping[str, float], scale: Scale = Scale()) -> float:
    """sum(weight x tier) / 100."""
    total = 0.0
    for tier in scale.tiers:
        total += tiers[tier.name] * tier.weight
    return total / 100


@dataclass(frozen=True)
class Finished:
    """A5 for one group: adjusted values, tiers from raw and adjusted values, imputed tiers, both scores."""

    adj: Values
    tiers: dict[str, float]
    tiers_adj: dict[str, float]
    imputed: list[str]
    score: float
    score_adj: float


def positions_of(values: Mapping[str, float | None], pool: Mapping[str, float | None], scale: Scale) -> Values:
    return {a.name: position(log_distance(a, values[a.name], pool[a.name]), scale.span) for a in scale.axes}


def finish_group(
    raw: Mapping[str, float | None],
    evidence: Mapping[str, float],
    pool: Mapping[str, float | None],
    scale: Scale = Scale(),  # frozen, so one shared default is safe
) -> Finished:
    """One group's A5 against the pool's values: shrink toward the pool by k, place, tier and score."""
    adj = {a.name: adjusted(raw[a.name], evidence[a.name], pool[a.name], scale.evidence_k) for a in scale.axes}
    tiers, imputed = tier_values(positions_of(raw, pool, scale), scale)
    tiers_adj, _ = tier_values(positions_of(adj, pool, scale), scale)
    return Finished(
        adj=adj,
        tiers=tiers,
        tiers_adj=tiers_adj,
        imputed=imputed,
        score=weighted_score(tiers, scale),
        score_adj=weighted_score(tiers_adj, scale),
    )


def evidence_of(sums: Mapping[str, float], scale: Scale = Scale()) -> dict[str, float]:
    """Each axis's evidence n (A3): the sum it names."""
    return {a.name: sums[a.evidence] for a in scale.axes}


# A1's views, as a client groups its own cycles by them.

VIEW_NAMES: Final[tuple[str, ...]] = ("model", "family", "modelEffort", "modelCombo", "famCombo", "modelEffortCombo")


@dataclass(frozen=True)
class CycleNames:
    """The stored names of one cycle that its groups are labelled by (an empty string: not set)."""

    model: str
    effort: str
    planner_model: str
    planner_effort: str
    builder_model: str
    builder_effort: str


def group_label(view: str, names: CycleNames, pattern: str = DEFAULT_FAMILY_PATTERN) -> str | None:
    """The cycle's group in a view (A1), or None when the view leaves it out: a cycle without a model has no
    group in the model views, one without both a planner and a builder none in the pairing views."""
    if view in ("model", "family", "modelEffort"):
        if not names.model:
            return None
        if view == "model":
            return names.model
        return family(names.model, pattern) if view == "family" else with_effort(names.model, names.effort)
    if not names.planner_model or not names.builder_model:
        return None
    if view == "modelCombo":
        return pair(names.planner_model, names.builder_model)
    if view == "famCombo":
        return pair(family(names.planner_model, pattern), family(names.builder_model, pattern))
    if view == "modelEffortCombo":
        return pair(
            with_effort(names.planner_model, names.planner_effort),
            with_effort(names.builder_model, names.builder_effort),
        )
    raise ValueError(f"unknown view {view!r}")


# B1's interval: the t quantile its bootstrap-t takes, without scipy.


def t_quantile(probability: float, df: int) -> float:
    """The quantile of Student's t with df degrees of freedom (df >= 1), to about 1e-12: bisection on the
    distribution function, which is the regularized incomplete beta function."""
    if not 0 < probability < 1 or df < 1:
        raise ValueError("t_quantile needs 0 < probability < 1 and df >= 1")
    if probability < 0.5:
        return -t_quantile(1 - probability, df)
    lo, hi = 0.0, 1.0
    while _t_cdf(hi, df) < probability:
        lo, hi = hi, hi * 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if _t_cdf(mid, df) < probability:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-14 * max(1.0, hi):
            break
    return (lo + hi) / 2


def _t_cdf(t: float, df: int) -> float:
    """P(T <= t) for t >= 0."""
    x = df / (df + t * t)
    return 1 - 0.5 * _regularized_beta(x, df / 2, 0.5)


def _regularized_beta(x: float, a: float, b: float) -> float:
    """I_x(a, b) by its continued fraction (modified Lentz), on the side where it converges fast."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _beta_fraction(x, a, b) / a
    return 1 - front * _beta_fraction(1 - x, b, a) / b


def _beta_fraction(x: float, a: float, b: float) -> float:
    tiny = 1e-300
    c, d = 1.0, 1 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, 500):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1 + numerator * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + numerator / c
            c = c if abs(c) > tiny else tiny
            result *= d * c
        if abs(d * c - 1) < 1e-16:
            break
    return result


def cluster_t_half_width(spread: float, clusters: int, level: float = 0.95) -> float | None:
    """B1's half-width t(1 - (1 - level) / 2, K - 1) * s * sqrt(K / (K - 1)) for K clusters; None for K < 2."""
    if clusters < 2 or math.isnan(spread):
        return None
    return t_quantile(0.5 + level / 2, clusters - 1) * spread * math.sqrt(clusters / (clusters - 1))
