"""What the public pages show, read from a ranking document (pool.json shape plus caveats).

Plain functions over dicts: the views fetch, these shape, the templates print. The page
cache lives here too, keyed by a generation that names the newest published snapshot.
"""

import hashlib
import json
import math
import time
from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from django.conf import settings
from django.db import transaction
from django.db.models.signals import post_save
from django.dispatch import receiver

from leaderboard import soft_cache
from leaderboard.models import Snapshot
from leaderboard.selectors import EARLIEST_DAY, preset_window
from leaderboard.services import GENERATION_KEY, cache_generation
from scoring.bootstrap import LEVEL, t_factor
from scoring.public_labels import OTHER_LABEL

# The six views in tab order, with the words a reader sees.
VIEWS: dict[str, str] = {
    "modelCombo": "Pairings",
    "famCombo": "Family pairings",
    "modelEffortCombo": "Pairings with effort",
    "model": "Models",
    "family": "Families",
    "modelEffort": "Models with effort",
}
DEFAULT_VIEW = "modelCombo"
PAIRING_VIEWS = frozenset({"modelCombo", "famCombo", "modelEffortCombo"})
PAIR_SEPARATOR = " → "


@dataclass(frozen=True)
class Axis:
    key: str
    name: str
    higher_is_better: bool
    kind: str  # "odds", "ratio" or "err" (scoring spec A5)
    unit: str
    tier: str
    explain: str


AXES: tuple[Axis, ...] = (
    Axis("shipr", "Ship rate", True, "odds", "%", "Outcome", "ship-judged cycles whose edits landed in a commit"),
    Axis("oneshot", "One-shot", True, "odds", "%", "Outcome", "share of shipped cycles that needed one prompt"),
    Axis("ttss", "Prompts per ship", False, "ratio", "", "Cost", "prompts typed per shipped cycle"),
    Axis("hps", "Hours per ship", False, "ratio", "h", "Cost", "active hours per shipped cycle"),
    Axis("dpss", "Dollars per ship", False, "ratio", "$", "Cost", "metered cost per shipped cycle"),
    Axis("eerrp", "Edit errors", False, "err", "%", "Precision", "share of edits that failed"),
    Axis("abortp", "Interventions", False, "err", "%", "Precision", "share of cycles the person aborted or rejected"),
    Axis("verp", "Verified", True, "odds", "%", "Discipline", "cycles with a test or build after the last edit"),
    Axis("ept", "Edits per prompt", True, "ratio", "", "Efficiency", "edits made per prompt typed"),
    Axis("lat", "Step latency", False, "ratio", "s", "Latency", "weighted median seconds per assistant step"),
)
AXES_BY_KEY = {axis.key: axis for axis in AXES}

# Scoring spec A5: tier weights out of 100.
TIERS: dict[str, int] = {
    "Outcome": 30,
    "Cost": 20,
    "Precision": 15,
    "Discipline": 15,
    "Efficiency": 10,
    "Latency": 10,
}

FLAG_WORDS: dict[str, str] = {
    "thin": "thin: fewer than 30 judged cycles",
    "one-contributor": "one contributor",
    "dominated": "dominated: one contributor gave 80% or more",
}
# What a rank range means, said once per page that shows one (scoring spec B1).
RANK_RANGE_WORDS = (
    "A rank is the range of places the 95% intervals allow: a row is surely ahead of another only when its whole "
    "interval lies above the other one, so each row could sit anywhere between the rows surely ahead of it and "
    "those surely behind it."
)
# B3's contrast, in the words the pages use for it.
ADJUSTED_ODDS_WORDS = "odds of shipping vs the average pairing, for the same contributor"

WINDOWS: dict[str, str] = {"all": "All time", "90": "90 days", "30": "30 days", "custom": "Custom"}

# Log span of the x4 scale (scoring spec A5): log2(4).
DEFAULT_SPAN = 2.0

PAGE_SECONDS = 24 * 3600
# Which snapshot the current cache generation serves. Short-lived, so a publish that never
# bumps the generation (an admin shell) still shows within a minute.
SERVING_KEY = "leaderboard:serving"
SERVING_SECONDS = 60
# How long a process trusts its last look at the generation before asking the cache again:
# a publish elsewhere shows within a second; one in this process at once (see below).
SERVING_LOCAL_SECONDS = 1.0


class UnknownGroup(LookupError):
    """A view or label that the document does not hold: the page answers 404."""


# ---------------------------------------------------------------- cache generations


_serving: tuple[float, int, int] | None = None  # (trusted until, generation, snapshot id)


def serving_snapshot() -> tuple[int, int]:
    """(cache generation, newest snapshot id or 0): usually from this process's last look,
    else one cache round trip, plus one query only when the generation has moved."""
    global _serving
    now = time.monotonic()
    local = _serving
    if local is not None and local[0] > now:
        return local[1], local[2]
    held = soft_cache.get_many([GENERATION_KEY, SERVING_KEY])
    if held is None:
        # The cache is unreachable: the newest snapshot from the database, and generation 0,
        # which names no shared cache entry (pages are then kept in this process only).
        snapshot_id = Snapshot.objects.published().values_list("id", flat=True).first() or 0
        _serving = (now + SERVING_LOCAL_SECONDS, 0, snapshot_id)
        return 0, snapshot_id
    generation = held.get(GENERATION_KEY)
    if generation is None:
        generation = cache_generation()
    serving = held.get(SERVING_KEY)
    if isinstance(serving, tuple | list) and len(serving) == 2 and serving[0] == generation:
        snapshot_id = int(serving[1])
    else:
        snapshot_id = Snapshot.objects.published().values_list("id", flat=True).first() or 0
        soft_cache.set(SERVING_KEY, (generation, snapshot_id), SERVING_SECONDS)
    _serving = (now + SERVING_LOCAL_SECONDS, int(generation), snapshot_id)
    return int(generation), snapshot_id


def forget_serving() -> None:
    global _serving
    _serving = None


@receiver(post_save, sender=Snapshot, dispatch_uid="leaderboard.pages.snapshot_published")
def _snapshot_published(sender: type[Snapshot], instance: Snapshot, created: bool, **kwargs: Any) -> None:
    # A snapshot published in this process shows on its next page at once, not a second later.
    if created:
        transaction.on_commit(forget_serving)


def page_cache_key(snapshot_id: int, generation: int, page: str, *parts: object) -> str:
    # Parts are validated values or capped parameters, hashed so any label makes a safe key.
    digest = hashlib.sha256(repr(parts).encode()).hexdigest()[:32]
    return f"page:{snapshot_id}:{generation}:{page}:{digest}"


# ---------------------------------------------------------------- reading documents


def view_document(document: dict[str, Any], view: str) -> dict[str, Any]:
    views = document.get("views") or {}
    if view not in VIEWS or view not in views:
        raise UnknownGroup(view)
    found: dict[str, Any] = views[view]
    return found


def find_group(view_doc: dict[str, Any], label: str) -> dict[str, Any]:
    for group in view_doc.get("groups", []):
        if group.get("label") == label:
            found: dict[str, Any] = group
            return found
    raise UnknownGroup(label)


def planner_and_builder(group: dict[str, Any]) -> tuple[str, str] | None:
    """The two sides of a pairing label; None for the single-model views."""
    if group.get("planner") and group.get("builder"):
        return str(group["planner"]), str(group["builder"])
    label = str(group.get("label", ""))
    if PAIR_SEPARATOR in label:
        planner, builder = label.split(PAIR_SEPARATOR, 1)
        return planner, builder
    return None


def hue_colour(hue: object, *, lightness: int = 42) -> str:
    try:
        degrees = int(float(hue)) % 360  # type: ignore[arg-type]
    except (TypeError, ValueError):
        degrees = 210
    return f"hsl({degrees} 60% {lightness}%)"


def flag_words(group: dict[str, Any]) -> list[str]:
    return [FLAG_WORDS.get(flag, flag) for flag in group.get("flags", [])]


def number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    as_float = float(value)
    return as_float if math.isfinite(as_float) else None


def interval(group: dict[str, Any]) -> tuple[float | None, float | None]:
    ci = group.get("ci") or [None, None]
    if not isinstance(ci, list | tuple) or len(ci) != 2:
        return None, None
    return number(ci[0]), number(ci[1])


def _whole(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def rank_range(group: dict[str, Any]) -> tuple[int, int] | None:
    """Best and worst point rank (by scoreAdj alone) when each contributor in turn is left out, when computed."""
    found = group.get("rank_range")
    if isinstance(found, list | tuple) and len(found) == 2 and all(_whole(v) is not None for v in found):
        return int(found[0]), int(found[1])
    return None


def rank_places(group: dict[str, Any]) -> tuple[int, int] | None:
    """The places the intervals allow (B1): (rank, rank_worst); rank_worst defaults to rank in older documents."""
    best = _whole(group.get("rank"))
    if best is None:
        return None
    worst = _whole(group.get("rank_worst"))
    return best, max(best, worst if worst is not None else best)


def rank_text(group: dict[str, Any]) -> str:
    """`1`, or `2–5` where the intervals leave a range of places."""
    places = rank_places(group)
    if places is None:
        return "–"
    best, worst = places
    return str(best) if best == worst else f"{best}–{worst}"


def stability_note(group: dict[str, Any]) -> str:
    """The leave-one-contributor-out range, as a short note only where it reaches outside the rank range.

    It is a stability check on the point order, not a confidence statement: inside the rank range it adds nothing.
    """
    places, moved = rank_places(group), rank_range(group)
    if places is None or moved is None or (places[0] <= moved[0] and moved[1] <= places[1]):
        return ""
    span = str(moved[0]) if moved[0] == moved[1] else f"{moved[0]}–{moved[1]}"
    return f"without one contributor: place {span} by score alone"


def odds_ratio_text(value: object) -> str:
    as_number = number(value)
    return "n/a" if as_number is None else f"×{as_number:.2f}"


def adjusted_words(group: dict[str, Any], view_meta: dict[str, Any]) -> dict[str, str] | None:
    """The contributor-adjusted ship odds in words, beside the raw ship rate; None where the view has none.

    kind is "ok" (odds and interval), "not-separable" (one contributor gave every fitted cycle), "unavailable"
    (the view's fit did not run or converge) or "not-computed" (the fit left this group out).
    """
    if "adjustment" not in view_meta:
        return None  # a view the adjustment is not made for
    shipr = number((group.get("raw") or {}).get("shipr"))
    words = {"raw": "ship rate n/a (raw)" if shipr is None else f"ship rate {shipr:.0f}% (raw)"}
    if view_meta.get("adjustment") != "ok":
        return {**words, "kind": "unavailable", "adjusted": "adjustment unavailable"}
    adjusted = group.get("adjusted") or {}
    ci = adjusted.get("ci") or [None, None]
    odds = number(adjusted.get("odds_ratio"))
    if adjusted.get("separable") is False:
        return {**words, "kind": "not-separable", "adjusted": "not separable: every cycle from one contributor"}
    if adjusted.get("separable") is not True or odds is None:
        return {**words, "kind": "not-computed", "adjusted": "no adjusted odds for this group"}
    lo, hi = (number(ci[0]), number(ci[1])) if isinstance(ci, list | tuple) and len(ci) == 2 else (None, None)
    interval_text = f" [{lo:.2f}–{hi:.2f}]" if lo is not None and hi is not None else ""
    return {
        **words,
        "kind": "ok",
        "adjusted": f"{ADJUSTED_ODDS_WORDS} ×{odds:.2f}{interval_text}",
        "odds": odds_ratio_text(odds),
        "lo": odds_ratio_text(lo),
        "hi": odds_ratio_text(hi),
    }


def variance_share_words(view_meta: dict[str, Any]) -> str:
    """The contributors' share of the variance in shipping, in a sentence; empty where the view has no fit."""
    if "adjustment" not in view_meta:
        return ""
    if view_meta.get("adjustment") != "ok":
        reason = str(view_meta.get("adjustment") or "").removeprefix("adjustment unavailable").lstrip(": ")
        because = f" ({reason})" if reason else ""
        return f"Contributor adjustment unavailable for this view{because}: ship rates are shown raw only."
    share_value = number(view_meta.get("contributor_variance_share"))
    if share_value is None:
        return ""
    return (
        f"Of the variation in shipping that the model puts down to who ran a cycle or to the pairing, "
        f"{share_value * 100:.0f}% belongs to the contributors and {100 - round(share_value * 100):.0f}% "
        f"to the pairings."
    )


def leaderboard_rows(view_doc: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per ranked group, in the document's order: by scoreAdj, best first."""
    rows = []
    groups = view_doc.get("groups", [])
    for group in groups:
        lo, hi = interval(group)
        rank = group.get("rank")
        rows.append(
            {
                "group": group,
                "label": group.get("label", ""),
                "rank": rank,
                "rank_text": rank_text(group),
                "stability": stability_note(group),
                "score_adj": number(group.get("scoreAdj")),
                "lo": lo,
                "hi": hi,
                "tiers": [(name, number((group.get("tiersAdj") or {}).get(name))) for name in TIERS],
                "imputed": list(group.get("imputed", [])),
                "hjudged": group.get("hjudged", 0),
                "contributors": group.get("contributors"),
                "top_share": number(group.get("top_share")),
                "flags": flag_words(group),
                "colour": hue_colour(group.get("hue")),
                "adjusted": group.get("adjusted"),
                "shipping": adjusted_words(group, view_doc.get("meta") or {}),
                "rank_range": rank_range(group),
            }
        )
    return rows


def row_for(view_doc: dict[str, Any], label: str) -> dict[str, Any]:
    """One group's leaderboard row."""
    for row in leaderboard_rows(view_doc):
        if row["label"] == label:
            return row
    raise UnknownGroup(label)


def provisional_rows(view_doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"label": item.get("label", ""), "hjudged": item.get("hjudged", 0), "raw": item.get("raw") or {}}
        for item in view_doc.get("provisional", [])
    ]


# ---------------------------------------------------------------- positions on the x4 scale


def log_distance(axis: Axis, value: float | None, reference: float | None) -> float | None:
    """Scoring spec A5: base-2 distance of value from reference, better positive; may be ±inf."""
    if value is None or reference is None:
        return None
    if axis.kind == "ratio":
        if value <= 0 or reference <= 0:
            return None
        r = math.log2(value / reference)
        return r if axis.higher_is_better else -r
    if axis.kind == "odds":
        if reference <= 0 or reference >= 100:
            return None
        if value == reference:
            return 0.0
        if value <= 0:
            r = -math.inf
        elif value >= 100:
            r = math.inf
        else:
            r = math.log2((value / (100 - value)) / (reference / (100 - reference)))
        return r if axis.higher_is_better else -r
    # err: lower is better, a zero rate beats every positive one.
    if reference <= 0:
        return None
    if value == reference:
        return 0.0
    if value <= 0:
        return math.inf
    return math.log2(reference / value)


def position(distance: float | None, span: float) -> float | None:
    """Where a distance sits on the strip, 0..1 with the pool at 0.5."""
    if distance is None:
        return None
    return (max(-1.0, min(1.0, distance / span)) + 1) / 2


def span_of(view_doc: dict[str, Any]) -> float:
    span = number(view_doc.get("span"))
    return span if span and span > 0 else DEFAULT_SPAN


def axis_rows(group: dict[str, Any], view_doc: dict[str, Any]) -> list[dict[str, Any]]:
    pool = view_doc.get("pool") or {}
    span = span_of(view_doc)
    raw = group.get("raw") or {}
    adj = group.get("adj") or {}
    evidence = group.get("ev") or {}
    rows = []
    for axis in AXES:
        pool_value = number(pool.get(axis.key))
        raw_value = number(raw.get(axis.key))
        adj_value = number(adj.get(axis.key))
        rows.append(
            {
                "axis": axis,
                "raw": raw_value,
                "pool": pool_value,
                "adj": adj_value,
                "evidence": evidence.get(axis.key, 0),
                "raw_position": position(log_distance(axis, raw_value, pool_value), span),
                "adj_position": position(log_distance(axis, adj_value, pool_value), span),
            }
        )
    return rows


# ---------------------------------------------------------------- comparing two groups


def times(distance: float) -> str:
    if math.isinf(distance):
        return "all the way"
    return f"×{2 ** abs(distance):.2f}"


def compare_axes(a: dict[str, Any], b: dict[str, Any]) -> list[dict[str, Any]]:
    """Axis by axis on adjusted values: which side is better and by what factor."""
    rows = []
    adj_a = a.get("adj") or {}
    adj_b = b.get("adj") or {}
    for axis in AXES:
        value_a = number(adj_a.get(axis.key))
        value_b = number(adj_b.get(axis.key))
        distance = log_distance(axis, value_a, value_b)
        if distance is None:
            verdict, by = "no comparison", ""
        elif distance == 0:
            verdict, by = "even", ""
        else:
            verdict, by = ("A" if distance > 0 else "B"), times(distance)
        rows.append({"axis": axis, "a": value_a, "b": value_b, "better": verdict, "by": by})
    return rows


def compare_tiers(a: dict[str, Any], b: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for name, weight in TIERS.items():
        value_a = number((a.get("tiersAdj") or {}).get(name))
        value_b = number((b.get("tiersAdj") or {}).get(name))
        difference = None if value_a is None or value_b is None else value_a - value_b
        if difference is None:
            better = "no comparison"
        elif abs(difference) < 0.05:
            better = "even"
        else:
            better = "A" if difference > 0 else "B"
        rows.append(
            {"tier": name, "weight": weight, "a": value_a, "b": value_b, "difference": difference, "better": better}
        )
    return rows


def quick_links(view_doc: dict[str, Any], a: dict[str, Any]) -> dict[str, list[str]]:
    """Other groups that keep one side of pairing A and change the other, best first."""
    sides = planner_and_builder(a)
    links: dict[str, list[str]] = {"same_builder": [], "same_planner": []}
    if sides is None:
        return links
    planner, builder = sides
    for group in view_doc.get("groups", []):
        other = planner_and_builder(group)
        if other is None or group.get("label") == a.get("label"):
            continue
        if other[1] == builder and other[0] != planner:
            links["same_builder"].append(str(group["label"]))
        if other[0] == planner and other[1] != builder:
            links["same_planner"].append(str(group["label"]))
    return links


# ---------------------------------------------------------------- windows


@dataclass(frozen=True)
class Window:
    name: str
    since: date | None = None
    until: date | None = None
    error: str = ""

    @property
    def is_all_time(self) -> bool:
        return self.since is None and self.until is None


def parse_day(raw: str) -> date | None:
    try:
        return date.fromisoformat(raw) if len(raw) == 10 else None
    except ValueError:
        return None


def read_window(params: dict[str, str], *, today: date) -> Window:
    name = params.get("window", "all")
    if name in ("90", "30"):
        first, last = preset_window(int(name), today=today)
        return Window(name, since=first, until=last)
    if name == "custom":
        since = parse_day(params.get("since", "")) if params.get("since") else None
        until = parse_day(params.get("until", "")) if params.get("until") else None
        if (params.get("since") and since is None) or (params.get("until") and until is None):
            return Window("custom", error="Dates are written YYYY-MM-DD, for example 2026-09-01.")
        # The contract accepts no cycle outside these days, so no other window can differ.
        if any(day is not None and not EARLIEST_DAY <= day <= today + timedelta(days=1) for day in (since, until)):
            return Window("custom", error=f"Days lie between {EARLIEST_DAY} and tomorrow.")
        if since and until and since > until:
            return Window("custom", error="The start of the window is after its end.")
        if since is None and until is None:
            return Window("custom", error="Give a start day, an end day or both.")
        return Window("custom", since=since, until=until)
    return Window("all")


# ---------------------------------------------------------------- words for the contribute and methodology pages

VIEW_EXPLANATIONS: dict[str, str] = {
    "modelCombo": "planner model → builder model, for cycles with both a plan and a build phase",
    "famCombo": "the same, by model family",
    "modelEffortCombo": "the same, with each side's reasoning effort",
    "model": "the session's dominant model, every judged cycle",
    "family": "the same, by model family",
    "modelEffort": "the model with its reasoning effort",
}


def other_words(min_contributors: int) -> str:
    """What the pooled "(other)" label stands for, in one sentence."""
    return (
        f"{OTHER_LABEL} pools the models and efforts that fewer than {min_contributors} contributors sent and "
        "no maintained list of models knows; their cycles count under that name."
    )


def has_other(view_doc: dict[str, Any]) -> bool:
    labels = [str(g.get("label", "")) for g in [*view_doc.get("groups", []), *view_doc.get("provisional", [])]]
    return any(OTHER_LABEL in label for label in labels)


# The OpenCode plugin (ocInsights): its setting for the service's host, and where it keeps its install id.
PLUGIN_URL_SETTING = "OC_INSIGHTS_CONTRIB_URL"
PLUGIN_INSTALL_FILE = "~/.local/share/ocInsights/contributor.json"

# What each contributed column (cycle-record.md, schema 3) carries, in the contract's order.
CONTRIBUTED_COLUMNS: tuple[tuple[str, str], ...] = (
    ("cycle_key", "a random 16-hex key for the cycle, so a re-send updates rather than duplicates"),
    ("day", "the day of the cycle (no time of day)"),
    ("model", "the session's dominant model, e.g. claude-opus-4.7"),
    ("prov", "its provider"),
    ("role", "0 other, 1 plan, 2 build: the session's last agent"),
    ("pm", "the dominant model of the plan phase, empty when there was none"),
    ("pp", "its provider"),
    ("bm", "the dominant model of the build phase"),
    ("bp", "its provider"),
    ("u", "how many prompts the person typed"),
    ("a", "how many assistant steps ran"),
    ("tedits", "how many file edits were made, subagents included"),
    ("tpaths", "1 when an edit was inside a repository (no path is sent)"),
    ("teerr", "how many edits failed"),
    ("tcost", "metered cost in US dollars, 0 when not metered"),
    ("tship", "1 when a commit touching the edited files landed within 7 days"),
    ("thrs", "active hours"),
    ("tver", "1 when a test, build or check ran after the last edit"),
    ("tabort", "1 when the person aborted or rejected something"),
    ("latmed", "median seconds per assistant step, -1 when unknown"),
    ("tshipe", "0 judged, 1 pending (the 7-day window is still open), 2 cannot ship (no repository)"),
    ("variant", "the reasoning effort of the model, e.g. high"),
    ("pv", "the planner's effort"),
    ("bv", "the builder's effort"),
    ("harness", "the agent harness, e.g. opencode"),
    ("hversion", "its version"),
)


# ---------------------------------------------------------------- what an interval means (methodology page)

# bench/coverage.py writes its table here; the file is committed, so the page shows what was last measured.
COVERAGE_FILE = Path(__file__).resolve().parent.parent / "bench" / "results" / "coverage.json"
# Contributor counts whose interval multiplier the methodology page lists.
MULTIPLIER_CONTRIBUTORS = (2, 3, 5, 10, 20, 40)


def interval_constants() -> dict[str, Any]:
    """The interval's constants as the engine uses them: level, resamples, seed and t(0.975, K-1)·sqrt(K/(K-1))."""
    factors = t_factor(np.array(MULTIPLIER_CONTRIBUTORS))
    return {
        "level": round(100 * LEVEL),
        "resamples": settings.SCORING_RESAMPLES,
        "seed": settings.SCORING_SEED,
        "multipliers": [(k, float(f)) for k, f in zip(MULTIPLIER_CONTRIBUTORS, factors, strict=True)],
    }


@lru_cache(maxsize=1)
def coverage_figures(path: Path = COVERAGE_FILE) -> dict[str, Any] | None:
    """bench/coverage.py's last measured table, or None when the file is missing or unreadable."""
    try:
        found = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if (
        not isinstance(found, dict)
        or not isinstance(found.get("rows"), list)
        or not isinstance(found.get("meta"), dict)
    ):
        return None
    return found
