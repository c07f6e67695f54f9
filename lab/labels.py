"""Names beside a chart's dots, placed greedily where they collide with nothing already drawn.

Geometry on SVG user units. A label's box is estimated from its length (the charts use one
small font); it goes right of its dot, else left, above or below, and is dropped when every place
overlaps a label already placed, another dot, or the plot's edge. Dots earlier in the list are named first.
label_text draws a placed label the one way every chart does.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from django.utils.html import escape

# Width of one character and the height of a line at the charts' label size (10 user units).
CHAR_WIDTH = 5.6
LINE_HEIGHT = 11.0
GAP = 5.0


@dataclass(frozen=True)
class Box:
    left: float
    top: float
    right: float
    bottom: float

    def overlaps(self, other: "Box") -> bool:
        across = self.left < other.right and other.left < self.right
        return across and self.top < other.bottom and other.top < self.bottom

    def inside(self, bounds: "Box") -> bool:
        return (
            self.left >= bounds.left
            and self.right <= bounds.right
            and self.top >= bounds.top
            and self.bottom <= bounds.bottom
        )


@dataclass(frozen=True)
class Placed:
    x: float  # the text's anchor point
    y: float  # its baseline
    anchor: str  # "start", "end" or "middle"
    box: Box


def _candidates(x: float, y: float, text: str, radius: float) -> list[Placed]:
    width = len(text) * CHAR_WIDTH
    top, bottom = y - LINE_HEIGHT / 2, y + LINE_HEIGHT / 2
    baseline = y + LINE_HEIGHT / 2 - 2
    right_x, left_x = x + radius + GAP / 2, x - radius - GAP / 2
    above, below = y - radius - GAP / 2, y + radius + GAP / 2
    return [
        Placed(right_x, baseline, "start", Box(right_x, top, right_x + width, bottom)),
        Placed(left_x, baseline, "end", Box(left_x - width, top, left_x, bottom)),
        Placed(x, above - 2, "middle", Box(x - width / 2, above - LINE_HEIGHT, x + width / 2, above)),
        Placed(x, below + LINE_HEIGHT - 2, "middle", Box(x - width / 2, below, x + width / 2, below + LINE_HEIGHT)),
    ]


def place_labels(
    points: Sequence[tuple[float, float, str]], *, bounds: Box, radius: float = 4.0
) -> list[Placed | None]:
    """For each (x, y, text), where its label goes, or None where every place collides."""
    dots = [Box(x - radius, y - radius, x + radius, y + radius) for x, y, _ in points]
    placed: list[Placed | None] = []
    taken: list[Box] = []
    for index, (x, y, text) in enumerate(points):
        choice = None
        for candidate in _candidates(x, y, text, radius):
            if not candidate.box.inside(bounds):
                continue
            if any(candidate.box.overlaps(box) for box in taken):
                continue
            if any(candidate.box.overlaps(dot) for i, dot in enumerate(dots) if i != index):
                continue
            choice = candidate
            break
        placed.append(choice)
        if choice is not None:
            taken.append(choice.box)
    return placed


def label_text(place: Placed | None, text: str) -> str:
    """The SVG text of a dot's name where place_labels put it (escaped); "" where it was dropped."""
    if place is None:
        return ""
    return (
        f'<text class="dot-label" x="{place.x:.1f}" y="{place.y:.1f}" font-size="10" '
        f'text-anchor="{place.anchor}" fill="#1d232b">{escape(text)}</text>'
    )
