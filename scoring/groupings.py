"""The six views (scoring spec A1): group keys, labels, families and hues."""

import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

# A1's labels are the shared method's, which the recorder's report groups a person's cycles with too.
from pragmatikos_contract.method import family as family
from pragmatikos_contract.method import pair as pair
from pragmatikos_contract.method import with_effort as with_effort

from scoring.shapes import FAMILY_HUES, VIEWS, IntArray, ViewName

if TYPE_CHECKING:  # the pages read a label's family here as Django starts; the engine's frames are not needed
    from scoring.judged import JudgedCycles


def hue(family_name: str) -> int:
    """A stable hue (0-359) per family: the published one where known, else from a CRC of the name."""
    known = FAMILY_HUES.get(family_name)
    return known if known is not None else zlib.crc32(family_name.encode()) % 360


@dataclass(frozen=True)
class Grouping:
    """One view over the judged cycles: each cycle's group (-1 when outside the view) and the groups' names."""

    view: ViewName
    codes: IntArray
    labels: list[str]
    hues: list[int]
    planners: list[str] | None  # the two sides of a pairing group; None for the single-model views
    builders: list[str] | None


def _relabel(codes: IntArray, names: list[str], rename: Callable[[str], str]) -> tuple[IntArray, list[str]]:
    """Map part codes through a function of their names (model -> family), merging equal results."""
    import pandas as pd

    new_codes, new_names = pd.factorize(pd.Series([rename(n) for n in names], dtype=object), sort=True)
    mapped = np.asarray(new_codes, dtype=np.int64)[codes] if len(codes) else np.zeros(0, dtype=np.int64)
    return mapped, [str(n) for n in new_names]


def _combine(
    parts: list[IntArray], sizes: list[int], mask: npt.NDArray[np.bool_]
) -> tuple[IntArray, list[tuple[int, ...]]]:
    """Group codes over combinations of part codes (rows outside `mask` get -1), and each group's part codes."""
    import pandas as pd

    key = np.zeros(len(parts[0]), dtype=np.int64)
    for part, size in zip(parts, sizes, strict=True):
        key = key * max(size, 1) + part
    codes = np.full(len(key), -1, dtype=np.int64)
    inner, uniques = pd.factorize(key[mask], sort=True)
    codes[mask] = inner
    tuples = list(zip(*np.unravel_index(np.asarray(uniques, dtype=np.int64), [max(s, 1) for s in sizes]), strict=True))
    return codes, [tuple(int(x) for x in t) for t in tuples]


def _pairing(view: ViewName, codes: IntArray, sides: list[tuple[str, str]], hues: list[int]) -> Grouping:
    """A pairing view's grouping from each group's (planner, builder) labels."""
    return Grouping(view, codes, [pair(p, b) for p, b in sides], hues, [p for p, _ in sides], [b for _, b in sides])


def view_groupings(judged: "JudgedCycles", family_pattern: str) -> dict[ViewName, Grouping]:
    """All six views' groups over the judged cycles; labels are computed once per distinct key."""
    column = judged.names
    model, models = column["model"].codes, column["model"].values
    effort, efforts = column["effort"].codes, column["effort"].values
    planner, planners = column["planner_model"].codes, column["planner_model"].values
    planner_effort, planner_efforts = column["planner_effort"].codes, column["planner_effort"].values
    builder, builders = column["builder_model"].codes, column["builder_model"].values
    builder_effort, builder_efforts = column["builder_effort"].codes, column["builder_effort"].values
    # A cycle whose model the client could not name (stored empty) has no group in the model views,
    # as one without a planner or builder has none in the pairing views.
    named = column["model"].nonempty()
    paired = column["planner_model"].nonempty() & column["builder_model"].nonempty()

    def fam(name: str) -> str:
        return family(name, family_pattern)

    out: dict[ViewName, Grouping] = {}
    codes, keys = _combine([model], [len(models)], named)
    names = [models[k[0]] for k in keys]
    out["model"] = Grouping("model", codes, names, [hue(fam(n)) for n in names], None, None)

    per_cycle_family, family_names = _relabel(model, models, fam)
    codes, keys = _combine([per_cycle_family], [len(family_names)], named)
    names = [str(family_names[k[0]]) for k in keys]
    out["family"] = Grouping("family", codes, names, [hue(n) for n in names], None, None)

    codes, keys = _combine([model, effort], [len(models), len(efforts)], named)
    names = [with_effort(models[m], efforts[e]) for m, e in keys]
    out["modelEffort"] = Grouping("modelEffort", codes, names, [hue(fam(models[m])) for m, _ in keys], None, None)

    codes, keys = _combine([planner, builder], [len(planners), len(builders)], paired)
    sides = [(planners[p], builders[b]) for p, b in keys]
    out["modelCombo"] = _pairing("modelCombo", codes, sides, [hue(fam(b)) for _, b in sides])

    planner_family, planner_families = _relabel(planner, planners, fam)
    builder_family, builder_families = _relabel(builder, builders, fam)
    codes, keys = _combine([planner_family, builder_family], [len(planner_families), len(builder_families)], paired)
    sides = [(planner_families[p], builder_families[b]) for p, b in keys]
    out["famCombo"] = _pairing("famCombo", codes, sides, [hue(b) for _, b in sides])

    codes, keys = _combine(
        [planner, planner_effort, builder, builder_effort],
        [len(planners), len(planner_efforts), len(builders), len(builder_efforts)],
        paired,
    )
    sides = [
        (with_effort(planners[p], planner_efforts[pe]), with_effort(builders[b], builder_efforts[be]))
        for p, pe, b, be in keys
    ]
    out["modelEffortCombo"] = _pairing("modelEffortCombo", codes, sides, [hue(fam(builders[b])) for _, _, b, _ in keys])
    assert tuple(out) == VIEWS
    return out
