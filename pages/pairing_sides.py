"""A pairing's two neighbourhoods: its builder with each planner ranked with it, and its planner with each builder.

Only what the snapshot publishes: each ranked pairing's scoreAdj, contributor-clustered interval and
contributors, drawn by the forest plot (charts.forest_plot) in the front page's family colours. The one
claim, that the other side is "separated" (the choice clearly matters), is the verdict's rule
(verdict.surely_ahead): some row's whole interval lies above another's; a row without an interval
(one contributor) is above and below nobody.
"""

import re
from dataclasses import dataclass
from typing import Any, Final, Literal

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from pages.charts import forest_plot
from pages.contexts import colours_of
from pages.presenters import leaderboard_rows, planner_and_builder
from pages.verdict import described, surely_ahead
from pages.wording import INTERVAL_PERCENT
from scoring.shapes import GroupRow, PoolDocument, View

Side = Literal["builder", "planner"]
OTHER_SIDE: Final[dict[Side, Side]] = {"builder": "planner", "planner": "builder"}
# Up to this many rows, a "not separated yet" sentence names each one's contributors; past it, their range.
NAMED_COUNTS: Final = 3


@dataclass(frozen=True)
class SidePanel:
    """One side of the pairing held (`kept`, named `name`), the other side varied: its rows, sentence and picture."""

    kept: Side
    name: str
    key: str  # the section's anchor and the chart's ids
    rows: tuple[dict[str, Any], ...]  # leaderboard rows of the pairings sharing the kept side, labelled by the other
    separated: bool
    sentence: str
    provisional: int  # pairings with the kept side that are not ranked yet
    chart: SafeString | str

    @property
    def varied(self) -> Side:
        return OTHER_SIDE[self.kept]

    @property
    def heading(self) -> str:
        return f"Same {self.kept}, different {self.varied}s"

    def as_html(self) -> SafeString:
        """The sentence with each model name kept whole on a line (names break at their hyphens otherwise)."""
        names = sorted({self.name, *(str(row["label"]) for row in self.rows)}, key=len, reverse=True)
        pattern = "|".join(re.escape(str(escape(name))) for name in names)
        text = re.sub(
            pattern, lambda found: f'<span class="side-name">{found.group(0)}</span>', str(escape(self.sentence))
        )
        return mark_safe(text)  # noqa: S308 - the sentence is escaped above; only the spans are added


def side_rows(rows: list[dict[str, Any]], *, kept: Side, name: str, label: str) -> list[dict[str, Any]]:
    """The rows whose `kept` side is `name`, in the document's order, each labelled by its other side;
    the page's own pairing marked current."""
    found = []
    for row in rows:
        sides = row.get("sides")
        if sides is None:
            continue
        planner, builder = sides
        if (builder if kept == "builder" else planner) != name:
            continue
        other = planner if kept == "builder" else builder
        found.append({**row, "label": other, "pairing": row["label"], "current": row["label"] == label})
    return found


def _counts(rows: list[dict[str, Any]]) -> str:
    named = [(str(row["label"]), int(row.get("contributors") or 0)) for row in rows]
    if len(rows) <= NAMED_COUNTS:
        return ", ".join(f"{n} contributor{'s' if n != 1 else ''} for {name}" for name, n in named)
    counts = [n for _, n in named]
    low, high = min(counts), max(counts)
    return f"{low} contributors each" if low == high else f"{low} to {high} contributors each"


def panel_sentence(rows: list[dict[str, Any]], *, kept: Side, name: str) -> tuple[bool, str]:
    """(separated, the sentence): whether some row's interval lies wholly above another's, said from the numbers."""
    varied = OTHER_SIDE[kept]
    with_it = f"With {kept} {name}"
    if len(rows) == 1:
        return False, f"Only one {varied} is ranked with {kept} {name} so far: {varied} {described(rows[0])}."
    pairs = [(a, b) for a in rows for b in rows if a is not b and surely_ahead(a, b)]
    if pairs:
        ahead = next(a for a in rows if any(a is first for first, _ in pairs))
        behind = [b for first, b in pairs if first is ahead][-1]  # rows are best first: the lowest one it beats
        sentence = (
            f"{with_it}, the choice of {varied} clearly matters: {varied} {described(ahead)} is surely ahead of "
            f"{varied} {described(behind)}, its whole interval lying above the other's."
        )
        if len(pairs) > 1:
            every = len(rows) * (len(rows) - 1) // 2
            sentence += f" {len(pairs)} of the {every} pairs of {varied}s are separated this way."
        return True, sentence
    return False, (
        f"{with_it}, the {len(rows)} {varied}s are not separated yet: no {varied}'s interval lies wholly above "
        f"another's ({_counts(rows)}). More contributors with these {varied}s would show whether the choice of "
        f"{varied} matters for this {kept}."
    )


def side_panel(rows: list[dict[str, Any]], view_doc: View, *, kept: Side, name: str, label: str, key: str) -> SidePanel:
    shown = side_rows(rows, kept=kept, name=name, label=label)
    separated, sentence = panel_sentence(shown, kept=kept, name=name)
    index = 1 if kept == "builder" else 0
    ranked = {row["pairing"] for row in shown}
    waiting = sum(
        1
        for item in view_doc["provisional"]
        if (sides := planner_and_builder(item)) is not None and sides[index] == name and item["label"] not in ranked
    )
    varied = OTHER_SIDE[kept]
    title = (
        f"{kept.capitalize()} {name} with each {varied} ranked with it: adjusted score and {INTERVAL_PERCENT}% "
        f"interval on one 0–100 axis, best first; this pairing is marked"
    )
    chart = forest_plot(rows=shown, title=title, name=key) if len(shown) > 1 else ""
    return SidePanel(kept, name, key, tuple(shown), separated, sentence, waiting, chart)


def sides_context(view_doc: View, *, view: str, label: str, group: GroupRow, document: PoolDocument) -> dict[str, Any]:
    """The pairing page's two panels: same builder with each planner first (the seed's question), then the mirror.

    Empty for the single-model views.
    """
    sides = planner_and_builder(group)
    if sides is None:
        return {"side_panels": []}
    planner, builder = sides
    rows = leaderboard_rows(view_doc, colours_of(view_doc, view, document)[0])
    return {
        "side_panels": [
            side_panel(rows, view_doc, kept="builder", name=builder, label=label, key="same-builder"),
            side_panel(rows, view_doc, kept="planner", name=planner, label=label, key="same-planner"),
        ]
    }
