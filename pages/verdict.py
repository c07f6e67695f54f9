"""The sentence above the table: which group, if any, the snapshot's own intervals put ahead of every other.

It reads only what the document publishes (each ranked group's contributor-clustered interval, its
rank range and contributors), so it never claims more than the table beside it: a group is surely
ahead of another only when its whole interval lies above the other one's (scoring spec B1), and a
group without an interval (one contributor) is surely ahead of, or behind, nobody.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from pages.wording import VIEW_NOUNS
from scoring.shapes import PAIR_ARROW

# The largest leading set the verdict names; a bigger one is no answer to "which one ships".
MOST_NAMED: Final = 3


@dataclass(frozen=True)
class Verdict:
    """What the front page says first: the leaders when the intervals separate them, else who could be first."""

    separated: bool
    leaders: tuple[str, ...]  # surely ahead of every other group; empty when none is
    contenders: int  # groups whose interval allows first place
    best_supported: str  # most contributors, then the narrowest interval, among the contenders
    sentence: str

    def as_html(self) -> SafeString:
        """The sentence with each named group kept whole on a line (a pairing may break at its arrow only)."""
        text = str(escape(self.sentence))
        for label in sorted({*self.leaders, self.best_supported}, key=len, reverse=True):
            sides = [f'<span class="side-name">{escape(side)}</span>' for side in label.split(PAIR_ARROW)]
            text = text.replace(str(escape(label)), escape(PAIR_ARROW).join(sides))
        return mark_safe(text)  # noqa: S308 - the sentence and every label are escaped above


def _bounds(row: dict[str, Any]) -> tuple[float, float]:
    lo, hi = row.get("lo"), row.get("hi")
    return (-math.inf if lo is None else float(lo)), (math.inf if hi is None else float(hi))


def surely_ahead(row: dict[str, Any], other: dict[str, Any]) -> bool:
    """Whether row's whole interval lies above other's; never for a row without an interval."""
    return _bounds(row)[0] > _bounds(other)[1]


def _leading_set(rows: Sequence[dict[str, Any]]) -> int:
    """The smallest k (up to MOST_NAMED) whose first k rows lie wholly above every other row; 0 when none does."""
    for k in range(1, min(MOST_NAMED, len(rows) - 1) + 1):
        lowest_leader = min(_bounds(row)[0] for row in rows[:k])
        highest_other = max(_bounds(row)[1] for row in rows[k:])
        if lowest_leader > highest_other:
            return k
    return 0


def _support(row: dict[str, Any]) -> tuple[int, float]:
    lo, hi = _bounds(row)
    return -(row.get("contributors") or 0), hi - lo


def described(row: dict[str, Any]) -> str:
    """A row as the sentences name it: label, score, interval and contributors."""
    contributors = row.get("contributors") or 0
    people = f"{contributors} contributor{'s' if contributors != 1 else ''}"
    if row.get("lo") is None or row.get("hi") is None:
        return f"{row['label']} (score {row['score_adj']:.1f}, no interval, {people})"
    return f"{row['label']} (score {row['score_adj']:.1f}, interval {row['lo']:.0f}–{row['hi']:.0f}, {people})"


def _names(labels: Sequence[str]) -> str:
    return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]


def verdict(rows: Sequence[dict[str, Any]], *, view: str) -> Verdict | None:
    """The verdict over a view's ranked rows in the document's order (best scoreAdj first); None when none is ranked."""
    ranked = [row for row in rows if row.get("score_adj") is not None]
    if not ranked:
        return None
    one, many = VIEW_NOUNS[view]
    if len(ranked) == 1:
        only = ranked[0]["label"]
        return Verdict(True, (only,), 1, only, f"Only one {one} is ranked so far: {described(ranked[0])}.")
    k = _leading_set(ranked)
    contenders = [row for row in ranked if row.get("rank") == 1] or ranked[:1]
    best = min(contenders, key=_support)
    if k:
        leaders = tuple(row["label"] for row in ranked[:k])
        if k == 1:
            sentence = (
                f"{described(ranked[0])} is surely ahead of every other {one}: its interval lies above all theirs."
            )
        else:
            sentence = (
                f"{_names([described(row) for row in ranked[:k]])} are surely ahead of every other {one}; "
                f"between these {k} the intervals do not decide."
            )
        return Verdict(True, leaders, len(contenders), best["label"], sentence)
    sentence = (
        f"No {one} is surely ahead yet: {len(contenders)} of the {len(ranked)} {many} could be first, "
        f"since no interval lies wholly above theirs. The best supported is {described(best)}. "
        f"More contributors for the leading {many} would narrow their intervals and settle it."
    )
    return Verdict(False, (), len(contenders), best["label"], sentence)
