"""Which names a ranking may show: known ones, or ones that enough contributors sent.

A label is any free-text name a client sends (a model, an effort). One contributor can send any
token that passes the privacy checks, and it would show on the front page as a ranked model. So a
name is shown only when it is known (a maintained list of models, e.g. genai-prices) or at least
`min_contributors` distinct contributors sent it; every other name is folded into OTHER_LABEL
before scoring, and its cycles still count, under that name.

Pure: pandas and numpy, no Django.
"""

from collections.abc import Callable
from typing import Final

import pandas as pd

OTHER_LABEL: Final = "(other)"
MODEL_COLUMNS: Final = ("model", "planner_model", "builder_model")
EFFORT_COLUMNS: Final = ("effort", "planner_effort", "builder_effort")
# The columns of a frame of (contributor, name) pairs.
NAME_PAIR: Final = ["contributor", "name"]
# Efforts the agents name themselves; any other effort needs its contributors like a model does.
KNOWN_EFFORTS: Final = frozenset(
    {"", "default", "none", "minimal", "low", "medium", "high", "xhigh", "max", "auto", "thinking", "fast"}
)


def public_names(
    cycles: pd.DataFrame, columns: tuple[str, ...], *, is_known: Callable[[str], bool], min_contributors: int
) -> set[str]:
    """The names in `columns` that may be shown: known, or sent by at least min_contributors contributors."""
    present = [column for column in columns if column in cycles.columns]
    if not present or cycles.empty:
        return set()
    # (contributor, name) pairs, made distinct per column first: a million cycles hold a few thousand.
    pairs = pd.concat(
        [cycles[["contributor", column]].drop_duplicates().set_axis(NAME_PAIR, axis=1) for column in present],
        ignore_index=True,
    )
    return names_to_show(pairs, is_known=is_known, min_contributors=min_contributors)


def names_to_show(pairs: pd.DataFrame, *, is_known: Callable[[str], bool], min_contributors: int) -> set[str]:
    """The names of (contributor, name) pairs that may be shown: known, or sent by enough contributors."""
    senders = pairs.drop_duplicates().groupby("name", sort=False).size()
    return {
        str(name) for name, count in senders.items() if name == "" or count >= min_contributors or is_known(str(name))
    }


def fold_unshown_names(
    cycles: pd.DataFrame, *, is_known_model: Callable[[str], bool], min_contributors: int
) -> pd.DataFrame:
    """The cycles with every model and effort name that may not be shown replaced by OTHER_LABEL.

    The frame given is returned as it is when every name may be shown, else a copy.
    """
    shown_models = public_names(cycles, MODEL_COLUMNS, is_known=is_known_model, min_contributors=min_contributors)
    shown_efforts = public_names(
        cycles, EFFORT_COLUMNS, is_known=KNOWN_EFFORTS.__contains__, min_contributors=min_contributors
    )
    folded: dict[str, pd.Series] = {}
    for columns, shown in ((MODEL_COLUMNS, shown_models), (EFFORT_COLUMNS, shown_efforts)):
        for column in columns:
            if column in cycles.columns:
                keep = cycles[column].isin(shown)
                if not keep.all():
                    folded[column] = cycles[column].where(keep, OTHER_LABEL)
    return cycles.assign(**folded) if folded else cycles
