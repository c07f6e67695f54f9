"""The planner × builder matrix of a pairing view: planners down, builders across, one cell per pairing.

Plain functions over a view of a ranking document, like presenters.py: each ranked pairing's published
scoreAdj with its interval and contributors, each provisional pairing marked, empty where no cycle paired
the two. A cell is tinted only where its whole interval lies on one side of 50, the pool's score.
"""

from dataclasses import dataclass, replace
from typing import Any, Final

from django.utils.safestring import SafeString

from leaderboard.lenses import published_harnesses
from leaderboard.published import Published
from leaderboard.windows import Window
from pages.charts import OKABE_ITO, interval_bar
from pages.contexts import lens_context, page_context
from pages.presenters import EFFORT_VIEWS, interval, planner_and_builder, rank_text
from pages.windowed import WINDOW_NAMES, lens_query, window_query
from pages.wording import VIEW_TITLES, WINDOW_TITLES
from scoring.shapes import PAIRING_VIEWS, GroupRow, PoolDocument, ProvisionalRow, View

# The pool scores 50 on every axis, so 50 is the score of a pairing no better or worse than the pool.
POOL_SCORE: Final = 50.0
# Every cell's interval bar on the whole 0–100 axis, so bars compare across the matrix.
WHOLE_SCALE: Final = (0.0, 100.0)
BAR_COLOUR: Final = OKABE_ITO[0]


class NotAPairingView(LookupError):
    """A view whose groups are single models or families: it has no planner × builder matrix."""


@dataclass(frozen=True)
class Cell:
    """One planner × builder pairing as the matrix prints it."""

    label: str
    kind: str  # "ranked" or "provisional"
    score: float | None = None
    lo: float | None = None
    hi: float | None = None
    contributors: int | None = None
    judged: int = 0
    rank: str = ""
    flags: tuple[str, ...] = ()
    side: str = ""  # "above" or "below" when the whole interval lies on that side of the pool's score
    bar: SafeString | None = None

    @property
    def width(self) -> float | None:
        """The interval's width in points; None without an interval (one contributor)."""
        return None if self.lo is None or self.hi is None else self.hi - self.lo

    @property
    def summary(self) -> str:
        """The cell in one sentence: its link's accessible name and tooltip."""
        if self.kind == "provisional":
            return f"{self.label}: provisional, {self.judged} judged cycles, no score yet"
        score = "no score" if self.score is None else f"score {self.score:.1f}"
        spread = "no interval" if self.width is None else f"interval {self.lo:.0f} to {self.hi:.0f}"
        people = f"{self.contributors} contributor{'' if self.contributors == 1 else 's'}"
        return f"{self.label}: {score}, {spread}, {people}, rank {self.rank}"


@dataclass(frozen=True)
class Matrix:
    """Planners (rows) and builders (columns) in name order; cells[i][j] is None where nothing paired them."""

    planners: tuple[str, ...]
    builders: tuple[str, ...]
    cells: tuple[tuple[Cell | None, ...], ...]
    with_effort: bool = False  # sides are model:effort, printed on two lines so columns stay narrow

    def heading(self, side: str) -> tuple[str, str]:
        """(model, effort) of a side as its heading prints it; the effort is empty outside the effort view."""
        if not self.with_effort or ":" not in side:
            return side, ""
        model, effort = side.rsplit(":", 1)
        return model, effort

    @property
    def builder_heads(self) -> list[tuple[str, str]]:
        return [self.heading(builder) for builder in self.builders]

    @property
    def rows(self) -> list[tuple[tuple[str, str], tuple[Cell | None, ...]]]:
        return list(zip((self.heading(planner) for planner in self.planners), self.cells, strict=True))

    @property
    def by_planner(self) -> list[tuple[tuple[str, str], list[tuple[tuple[str, str], Cell]]]]:
        """Each planner with only the builders it was paired with: the phone's list, which shows no empty cell."""
        return [
            (planner, [(builder, cell) for builder, cell in zip(self.builder_heads, cells, strict=True) if cell])
            for planner, cells in self.rows
        ]

    @property
    def filled(self) -> int:
        return sum(cell is not None for row in self.cells for cell in row)


def side_of_pool(lo: float | None, hi: float | None) -> str:
    """ "above" or "below" when the interval lies wholly on one side of the pool's score, else ""."""
    if lo is None or hi is None:
        return ""
    if lo > POOL_SCORE:
        return "above"
    if hi < POOL_SCORE:
        return "below"
    return ""


def ranked_cell(group: GroupRow) -> Cell:
    label, score = group["label"], group["scoreAdj"]
    lo, hi = interval(group)
    return Cell(
        label=label,
        kind="ranked",
        score=score,
        lo=lo,
        hi=hi,
        contributors=group["contributors"],
        judged=group["hjudged"],
        rank=rank_text(group),
        flags=tuple(group["flags"]),
        side=side_of_pool(lo, hi),
        bar=interval_bar(score=score, lo=lo, hi=hi, colour=BAR_COLOUR, label=label, domain=WHOLE_SCALE),
    )


def provisional_cell(item: ProvisionalRow) -> Cell:
    return Cell(label=item["label"], kind="provisional", judged=item["hjudged"])


def pairing_matrix(view_doc: View, view: str) -> Matrix:
    """The view's pairings laid out by planner and builder; NotAPairingView for the single-model views."""
    if view not in PAIRING_VIEWS:
        raise NotAPairingView(view)
    groups = view_doc["groups"]
    placed: dict[tuple[str, str], Cell] = {}
    for item in view_doc["provisional"]:
        sides = planner_and_builder(item)
        if sides is not None:
            placed[sides] = provisional_cell(item)
    for group in groups:  # a ranked group wins over a provisional one of the same two sides
        sides = planner_and_builder(group)
        if sides is not None:
            placed[sides] = ranked_cell(group)
    planners = tuple(sorted({planner for planner, _ in placed}))
    builders = tuple(sorted({builder for _, builder in placed}))
    cells = tuple(tuple(placed.get((planner, builder)) for builder in builders) for planner in planners)
    return Matrix(planners=planners, builders=builders, cells=cells, with_effort=view in EFFORT_VIEWS)


# ---------------------------------------------------------------- the page


def window_links(view: str, window: Window) -> list[tuple[str, str, bool]]:
    """(title, query, current) for each preset window, keeping the lens; a custom window is current but has no
    preset link."""
    links = []
    for name in WINDOW_NAMES[:-1]:
        query = f"?view={view}" + ("" if name == "all" else f"&window={name}") + lens_query(window)
        links.append((WINDOW_TITLES[name], query, not window.error and window.name == name))
    return links


def harness_links(view: str, window: Window, harnesses: list[str]) -> list[tuple[str, str, bool]]:
    """(title, query, current) for every harness together and each one the pool shows, keeping the window;
    none when the pool has one harness and no lens is on."""
    if len(harnesses) < 2 and not window.harness:
        return []
    links = []
    for name in (None, *harnesses):
        query = f"?view={view}" + window_query(replace(window, harness=name))
        links.append((name or "every harness", query, not window.error and window.harness == name))
    return links


def matrix_context(
    snapshot: Published | None, document: PoolDocument | None, *, view: str, window: Window
) -> dict[str, Any]:
    """The matrix page of a pairing view in a window; the matrix only when there is a document."""
    context = page_context(snapshot, document, view=view)
    context.update(
        {
            "window": window,
            "window_links": window_links(view, window),
            "window_title": WINDOW_TITLES.get(window.name, ""),
            "window_suffix": window_query(window),
            "tab_suffix": window_query(window),
            **lens_context(window, []),
            "views": {key: title for key, title in VIEW_TITLES.items() if key in PAIRING_VIEWS},
            "pool_score": POOL_SCORE,
        }
    )
    if document is None:
        return context
    view_doc = document["views"][view]
    grid = pairing_matrix(view_doc, view)
    context.update(
        {
            "harness_links": harness_links(view, window, published_harnesses(document)),
            "matrix": grid,
            "scope_meta": document["meta"],
            "ranked_count": len(view_doc["groups"]),
            "provisional_count": len(view_doc["provisional"]),
        }
    )
    return context


def not_a_pairing_view_context(view: str) -> dict[str, Any]:
    """What the matrix page says for a view without planners and builders: which views have them."""
    return {
        "title": "No matrix for this view",
        "message": f"{VIEW_TITLES[view]} are single groups, with no planner and builder to lay out.",
        "views": {key: title for key, title in VIEW_TITLES.items() if key in PAIRING_VIEWS},
    }
