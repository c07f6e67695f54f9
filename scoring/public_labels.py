"""Which names a ranking or a download may show: known ones, or ones that enough contributors sent.

A name is any free text a client sends and the service publishes: a model, an effort, a provider,
a harness and its version. One contributor can send any token that passes the privacy checks (an
organisation's gateway, an internal harness), and it would be published verbatim. So a name is
shown only when an operator allowed it, or it is known (a maintained list, e.g. genai-prices, or a
shape no one can hide a name in), or at least `min_contributors` distinct counted contributors
sent it; an operator's denial hides any name. Every other name is folded into OTHER_LABEL, and its
cycles still count, under that name.

Which contributors count, and for which names, is the caller's to say (`NameRule.counted` and
`NameRule.vouched`): random install ids cost nothing, so the service counts a contributor toward a
name only once it has sent that name on several days after it was first seen a day before.

Pure: pandas and numpy, no Django. pandas is imported where a frame is made, not with the module: the ingest
imports the column names as Django starts.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

OTHER_LABEL: Final = "(other)"
MODEL_COLUMNS: Final = ("model", "planner_model", "builder_model")
EFFORT_COLUMNS: Final = ("effort", "planner_effort", "builder_effort")
PROVIDER_COLUMNS: Final = ("provider", "planner_provider", "builder_provider")
HARNESS_COLUMNS: Final = ("harness",)
HARNESS_VERSION_COLUMNS: Final = ("harness_version",)
PUBLISHED_NAME_COLUMNS: Final = (
    *MODEL_COLUMNS,
    *EFFORT_COLUMNS,
    *PROVIDER_COLUMNS,
    *HARNESS_COLUMNS,
    *HARNESS_VERSION_COLUMNS,
)
# The columns of a frame of (contributor, name) pairs.
NAME_PAIR: Final = ["contributor", "name"]
# Efforts the agents name themselves; any other effort needs its contributors like a model does.
KNOWN_EFFORTS: Final = frozenset(
    {"", "default", "none", "minimal", "low", "medium", "high", "xhigh", "max", "auto", "thinking", "fast"}
)
# A release number, with at most a pre-release word of the usual ones: `9.9.9-contosoprod` is not one. Bounded
# in shape and length (three parts of at most four digits, no leading zeros, a pre-release number of at most
# two): the shape alone lets a name through, so it must hold no room for a phone number or an account id
# (`555123.456789.012345.6789`, `1.2.3-rc.55512345678`). Longer versions need contributors as any name does.
_PART = r"(?:0|[1-9][0-9]{0,3})"
_RELEASE = re.compile(
    rf"v?{_PART}(?:\.{_PART}){{0,2}}(?:-(?:alpha|beta|rc|pre|preview|dev|canary|nightly)(?:\.?(?:0|[1-9][0-9]?))?)?"
)


def is_release_number(name: str) -> bool:
    """Whether a version is a plain release number (nothing a name could hide in)."""
    return _RELEASE.fullmatch(name) is not None


@dataclass(frozen=True)
class NameKind:
    """The published columns that hold one kind of name, and which of its names are known."""

    columns: tuple[str, ...]
    is_known: Callable[[str], bool]


@dataclass(frozen=True)
class NameRule:
    """Which names of each kind may be shown."""

    kinds: tuple[NameKind, ...]
    min_contributors: int
    # The contributors whose sending counts toward min_contributors; None: every contributor.
    counted: frozenset[int] | None = None
    # An operator's decisions: allowed names show at once, denied ones never (known or not).
    allowed: frozenset[str] = frozenset()
    denied: frozenset[str] = frozenset()
    # The (contributor, name) pairs whose sending counts: the contributor sent the name on enough days after it
    # was counted (the caller's rule); None: every counted contributor's sending counts.
    vouched: frozenset[tuple[int, str]] | None = None

    def names_to_show(self, pairs: pd.DataFrame, kind: NameKind) -> set[str]:
        """The names of (contributor, name) pairs of `kind` that may be shown."""
        names = set(pairs["name"].unique())
        counted = pairs if self.counted is None else pairs[pairs["contributor"].isin(self.counted)]
        if self.vouched is not None:
            vouched = self.vouched
            pairs_sent = zip(counted["contributor"].tolist(), counted["name"], strict=True)
            counted = counted[np.fromiter((pair in vouched for pair in pairs_sent), dtype=bool, count=len(counted))]
        senders = counted.drop_duplicates().groupby("name", sort=False).size()
        enough = {str(name) for name, count in senders.items() if count >= self.min_contributors}
        return {
            str(name)
            for name in names
            if name == ""
            or (name not in self.denied and (name in self.allowed or name in enough or kind.is_known(str(name))))
        }

    def shown_in(self, cycles: pd.DataFrame, kind: NameKind) -> set[str]:
        """The names in the frame's columns of `kind` that may be shown."""
        present = [column for column in kind.columns if column in cycles.columns]
        if not present or cycles.empty:
            return set()
        import pandas as pd

        # (contributor, name) pairs, made distinct per column first: a million cycles hold a few thousand.
        pairs = pd.concat(
            [cycles[["contributor", column]].drop_duplicates().set_axis(NAME_PAIR, axis=1) for column in present],
            ignore_index=True,
        )
        return self.names_to_show(pairs, kind)


def fold_unshown_names(cycles: pd.DataFrame, rule: NameRule) -> pd.DataFrame:
    """The cycles with every name that may not be shown replaced by OTHER_LABEL.

    The frame given is returned as it is when every name may be shown, else a copy.
    """
    folded: dict[str, pd.Series] = {}
    for kind in rule.kinds:
        shown = rule.shown_in(cycles, kind)
        for column in kind.columns:
            if column in cycles.columns:
                keep = cycles[column].isin(shown)
                if not keep.all():
                    folded[column] = cycles[column].where(keep, OTHER_LABEL)
    return cycles.assign(**folded) if folded else cycles
