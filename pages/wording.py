"""The words a reader sees, keyed by the scoring method's own names (scoring/shapes.py).

The method's vocabulary (views, axes and their direction, tiers and weights, thresholds) is named
once, in scoring/shapes.py; this module only adds titles, units and explanations to those names.
Numbers the method uses (k, the floor, resamples) are read from a ranking document's meta.
"""

from dataclasses import dataclass
from typing import Final

from scoring.public_labels import OTHER_LABEL
from scoring.shapes import AXES as METHOD_AXES
from scoring.shapes import AXIS_TIER, DEFAULT_VIEW, INTERVAL_LEVEL, TAB_ORDER, TIER_WEIGHTS

__all__ = ["DEFAULT_VIEW"]  # the method's default view, with the words below

# The level of every interval the pages show, as they write it.
INTERVAL_PERCENT: Final = round(100 * INTERVAL_LEVEL)
# What every page may say, from the method's own constants (render_page adds it to each page's context).
EVERY_PAGE: Final[dict[str, object]] = {"interval_percent": INTERVAL_PERCENT}

_VIEW_WORDS: Final[dict[str, str]] = {
    "modelCombo": "Pairings",
    "famCombo": "Family pairings",
    "modelEffortCombo": "Pairings with effort",
    "model": "Models",
    "family": "Families",
    "modelEffort": "Models with effort",
}
# The six views in the method's tab order, with the words a reader sees.
VIEW_TITLES: Final[dict[str, str]] = {view: _VIEW_WORDS[view] for view in TAB_ORDER}

# What one group of a view is called in a sentence, and many of them.
VIEW_NOUNS: Final[dict[str, tuple[str, str]]] = {
    "modelCombo": ("pairing", "pairings"),
    "famCombo": ("family pairing", "family pairings"),
    "modelEffortCombo": ("pairing", "pairings"),
    "model": ("model", "models"),
    "family": ("family", "families"),
    "modelEffort": ("model", "models"),
}
# The columns the leaderboard sorts by (?sort=), with their headings; the default is the method's order.
SORTS: Final[dict[str, str]] = {
    "scoreAdj": "Score",
    "shipr": "Ship rate",
    "odds": "Odds",
    "contributors": "Contributors",
    "judged": "Judged cycles",
}
DEFAULT_SORT: Final = "scoreAdj"

VIEW_EXPLANATIONS: Final[dict[str, str]] = {
    "modelCombo": "planner model → builder model, for cycles with both a plan and a build phase",
    "famCombo": "the same, by model family",
    "modelEffortCombo": "the same, with each side's reasoning effort",
    "model": "the session's dominant model, every judged cycle",
    "family": "the same, by model family",
    "modelEffort": "the model with its reasoning effort",
}


@dataclass(frozen=True)
class ShownAxis:
    """One axis of the method (its key, direction and tier) with the words and unit the pages print."""

    key: str
    name: str
    higher_is_better: bool
    unit: str
    tier: str
    explain: str


# axis key -> (title, unit, what it measures)
_AXIS_WORDS: Final[dict[str, tuple[str, str, str]]] = {
    "shipr": ("Ship rate", "%", "ship-judged cycles whose edits landed in a commit"),
    "oneshot": ("One-shot", "%", "share of shipped cycles that needed one prompt"),
    "ttss": ("Prompts per ship", "", "prompts typed per shipped cycle"),
    "hps": ("Hours per ship", "h", "active hours per shipped cycle"),
    "dpss": ("Dollars per ship", "$", "metered cost per shipped cycle"),
    "eerrp": ("Edit errors", "%", "share of edits that failed"),
    "abortp": ("Interventions", "%", "share of cycles the person aborted or rejected"),
    "verp": ("Verified", "%", "cycles with a test or build after the last edit"),
    "ept": ("Edits per prompt", "", "edits made per prompt typed"),
    "lat": ("Step latency", "s", "weighted median seconds per assistant step"),
}
AXES: Final[tuple[ShownAxis, ...]] = tuple(
    ShownAxis(
        key=axis.name,
        name=_AXIS_WORDS[axis.name][0],
        higher_is_better=axis.higher_is_better,
        unit=_AXIS_WORDS[axis.name][1],
        tier=AXIS_TIER[axis.name],
        explain=_AXIS_WORDS[axis.name][2],
    )
    for axis in METHOD_AXES
)
# Tier name -> weight out of 100 (scoring spec A5), in the method's order.
TIERS: Final[dict[str, int]] = TIER_WEIGHTS
# What a high score part means (50 is the pool, higher is better on every part), as a column's short hint.
TIER_HIGH: Final[dict[str, str]] = {
    "Outcome": "ships more",
    "Cost": "cheaper",
    "Precision": "fewer errors",
    "Discipline": "verifies more",
    "Efficiency": "more per prompt",
    "Latency": "faster",
}
# What a low one means, for the column's longer explanation.
TIER_LOW: Final[dict[str, str]] = {
    "Outcome": "ships less",
    "Cost": "costlier",
    "Precision": "more errors",
    "Discipline": "verifies less",
    "Efficiency": "less per prompt",
    "Latency": "slower",
}


@dataclass(frozen=True)
class ShownTier:
    """One score part as a column heads it: name, weight, and what a number above or below 50 means."""

    name: str
    weight: int
    high: str
    low: str

    @property
    def explain(self) -> str:
        return (
            f"{self.name}, weight {self.weight} of 100. 50 is the pool; above 50 {self.high} than the pool "
            f"(e.g. 60), below 50 {self.low} (e.g. 40)."
        )


SHOWN_TIERS: Final[tuple[ShownTier, ...]] = tuple(
    ShownTier(name, weight, TIER_HIGH[name], TIER_LOW[name]) for name, weight in TIERS.items()
)

FLAG_WORDS: Final[dict[str, str]] = {
    "thin": "thin: fewer than 30 judged cycles",
    "one-contributor": "one contributor",
    "dominated": "dominated: one contributor gave 80% or more",
}
# What a rank range means, said once per page that shows one (scoring spec B1).
RANK_RANGE_WORDS: Final = (
    f"A rank is the range of places the {INTERVAL_PERCENT}% intervals allow: a row is surely ahead of another only "
    "when its whole interval lies above the other one, so each row could sit anywhere between the rows surely ahead "
    "of it and those surely behind it."
)
# B3's contrast, in the words the pages use for it.
ADJUSTED_ODDS_WORDS: Final = "odds of shipping vs the average pairing, for the same contributor"

WINDOW_TITLES: Final[dict[str, str]] = {"all": "All time", "90": "90 days", "30": "30 days", "custom": "Custom"}


def other_words(min_contributors: int) -> str:
    """What the pooled "(other)" label stands for, in one sentence."""
    return (
        f"{OTHER_LABEL} pools the names that fewer than {min_contributors} contributors sent and "
        "no maintained list knows; their cycles count under that name."
    )


# The licence of the pooled data, as the data page names and links it (as OpenRouter's public data).
DATA_LICENCE: Final = "CC BY 4.0"
DATA_LICENCE_URL: Final = "https://creativecommons.org/licenses/by/4.0/"

# The OpenCode plugin (ocInsights): its setting for the service's host, and where it keeps its install id.
# Shown while the snapshot holds points alone (leaderboard.recompute publishes a changed pool's points first).
INTERVALS_PENDING_NOTE: Final = (
    "Newly contributed cycles are counted: these scores, counts and this order are current. Their intervals, "
    "rank ranges and adjusted odds are still being computed, usually within seconds; until then each place is "
    "the point score's alone, and no group is called surely ahead."
)
PLUGIN_URL_SETTING: Final = "OC_INSIGHTS_CONTRIB_URL"
PLUGIN_INSTALL_FILE: Final = "~/.local/share/ocInsights/contributor.json"
# Its README (how to install it in OpenCode) and its package on npm.
PLUGIN_README_URL: Final = "https://github.com/pfoundation/ocInsights#readme"
PLUGIN_NPM_URL: Final = "https://www.npmjs.com/package/@pfoundation/ocinsights"
# The recorder's install, run from the root of a clone: the contract it shares with the service is on no
# package index, so both come from the clone's folders (tests/pages/test_contribute_install.py runs these).
RECORDER_INSTALL_COMMANDS: Final[tuple[str, ...]] = (
    "python3 -m venv ~/.pragmatikos-recorder",
    ". ~/.pragmatikos-recorder/bin/activate",
    "pip install ./contract ./recorder",
)

# What each contributed column (cycle-record.md, schema 3) carries, in the contract's order.
CONTRIBUTED_COLUMNS: Final[tuple[tuple[str, str], ...]] = (
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


def forest_words(sort_title: str | None) -> str:
    """What the front page's forest plot draws, in which order: the score always, in the table's order."""
    drawn = f"Adjusted score and {INTERVAL_PERCENT}% interval of each ranked group"
    if sort_title is None:
        return f"{drawn}, best first."
    return (
        f"{drawn}, in the table's order (by {sort_title.lower()}, largest first), so the scores do not fall "
        "from top to bottom."
    )
