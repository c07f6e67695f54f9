"""The compare page's pieces: two groups axis by axis and tier by tier, their ship rates side by side, and links
to the comparisons a reader may want next."""

import math
from typing import Any

from pages.presenters import distances, planner_and_builder
from pages.wording import AXES, TIERS
from scoring.compare_rates import RateTest, ship_rate_test
from scoring.shapes import GroupRow, View


def times(distance: float) -> str:
    if math.isinf(distance):
        return "all the way"
    return f"×{2 ** abs(distance):.2f}"


def compare_axes(a: GroupRow, b: GroupRow) -> list[dict[str, Any]]:
    """Axis by axis on adjusted values: which side is better and by what factor."""
    rows = []
    values_a = [a["adj"].get(axis.key) for axis in AXES]
    values_b = [b["adj"].get(axis.key) for axis in AXES]
    for axis, value_a, value_b, distance in zip(AXES, values_a, values_b, distances(values_a, values_b), strict=True):
        if distance is None:
            verdict, by = "no comparison", ""
        elif distance == 0:
            verdict, by = "even", ""
        else:
            verdict, by = ("A" if distance > 0 else "B"), times(distance)
        rows.append({"axis": axis, "a": value_a, "b": value_b, "better": verdict, "by": by})
    return rows


def compare_tiers(a: GroupRow, b: GroupRow) -> list[dict[str, Any]]:
    rows = []
    for name, weight in TIERS.items():
        value_a = a["tiersAdj"].get(name)
        value_b = b["tiersAdj"].get(name)
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


def quick_links(view_doc: View, a: GroupRow) -> dict[str, list[str]]:
    """Other groups that keep one side of pairing A and change the other, best first."""
    sides = planner_and_builder(a)
    links: dict[str, list[str]] = {"same_builder": [], "same_planner": []}
    if sides is None:
        return links
    planner, builder = sides
    for group in view_doc["groups"]:
        other = planner_and_builder(group)
        if other is None or group["label"] == a["label"]:
            continue
        if other[1] == builder and other[0] != planner:
            links["same_builder"].append(group["label"])
        if other[0] == planner and other[1] != builder:
            links["same_planner"].append(group["label"])
    return links


def rate_test(group_a: GroupRow, group_b: GroupRow) -> RateTest | None:
    """The two-proportion z-test of the raw ship rates (shipped of ship-judged cycles)."""
    shipped_a, judged_a = group_a["hshipped"], group_a["hshipJudged"]
    shipped_b, judged_b = group_b["hshipped"], group_b["hshipJudged"]
    try:
        return ship_rate_test(shipped_a=shipped_a, judged_a=judged_a, shipped_b=shipped_b, judged_b=judged_b)
    except ValueError:  # counts that contradict each other: say nothing rather than fail the page
        return None
