"""The sentence above the table: the leader by score, and whether the snapshot's own intervals put it ahead.

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
    """What the front page says first: the leader by score, and how far the intervals bear it out."""

    separated: bool
    leaders: tuple[str, ...]  # surely ahead of every other group; empty when none is
    contenders: int  # groups whose interval allows first place
    named: tuple[str, ...]  # every group the sentences name, the leader by score first
    sentence: str  # the headline above the table
    aside: str = ""  # a group whose evidence stands out on one axis, said below the table with the axis named

    @property
    def leader(self) -> str:
        """The group with the highest adjusted score: the only one the verdict ever puts first."""
        return self.named[0]

    def as_html(self) -> SafeString:
        """The headline, each named group kept whole on a line (a pairing may break at its arrow only)."""
        return self._kept_whole(self.sentence)

    def aside_html(self) -> SafeString:
        return self._kept_whole(self.aside)

    def _kept_whole(self, sentence: str) -> SafeString:
        text = str(escape(sentence))
        for label in sorted(set(self.named), key=len, reverse=True):
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


def described(row: dict[str, Any]) -> str:
    """A row as the sentences name it: label, score, interval and contributors."""
    contributors = row.get("contributors") or 0
    people = f"{contributors} contributor{'s' if contributors != 1 else ''}"
    if row.get("lo") is None or row.get("hi") is None:
        return f"{row['label']} (score {row['score_adj']:.1f}, no interval, {people})"
    return f"{row['label']} (score {row['score_adj']:.1f}, interval {row['lo']:.0f}–{row['hi']:.0f}, {people})"


def _names(labels: Sequence[str]) -> str:
    return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]


def _listed(rows: Sequence[dict[str, Any]]) -> str:
    """Up to MOST_NAMED rows by name, in the given order, then how many more (the table beside gives their numbers)."""
    shown = [row["label"] for row in rows[:MOST_NAMED]]
    rest = len(rows) - len(shown)
    return _names([*shown, f"{rest} more"]) if rest else _names(shown)


def clearly_above_average(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows whose contributor-adjusted ship odds lie wholly above the average pairing's (odds interval above ×1)."""
    found = []
    for row in rows:
        adjusted = row.get("adjusted")
        if adjusted is None or adjusted.get("separable") is not True or adjusted.get("odds_ratio") is None:
            continue
        lo, hi = adjusted["ci"]
        if lo is not None and hi is not None and lo > 1:
            found.append(row)
    return found


def _shipping_sentence(rows: Sequence[dict[str, Any]], *, one: str) -> str:
    """The groups whose shipping alone stands out, with the axis named, so no reader takes it for the ranking."""
    if not rows:
        return ""
    evidence = [
        f"{row['label']} (odds ×{row['adjusted']['odds_ratio']:.2f}, "
        f"{row['adjusted']['ci'][0]:.2f}–{row['adjusted']['ci'][1]:.2f})"
        for row in rows[:MOST_NAMED]
    ]
    rest = len(rows) - len(evidence)
    if rest:
        evidence.append(f"{rest} more")
    return (
        f"On shipping alone, one of the score's parts, {_names(evidence)} "
        f"{'ships' if len(rows) == 1 else 'ship'} clearly more often than the average {one}, for the same contributor."
    )


def _not_separated(leader: dict[str, Any], close: Sequence[dict[str, Any]], others: int, *, one: str, many: str) -> str:
    """The leader by score, and the groups its interval does not set it apart from: all of them, or which."""
    why = "it has no interval" if leader.get("lo") is None or leader.get("hi") is None else "the intervals overlap"
    if len(close) == others:
        whom = f"the other {one}" if others == 1 else f"any of the other {others} {many}"
        return f"Highest score: {described(leader)}, but {why}, so it is not separated from {whom}."
    return (
        f"Highest score: {described(leader)}, but {why}, so it is not separated from {len(close)} other "
        f"{one if len(close) == 1 else many}: {_listed(close)}."
    )


def verdict(rows: Sequence[dict[str, Any]], *, view: str) -> Verdict | None:
    """The verdict over a view's ranked rows in the document's order (best scoreAdj first); None when none is ranked.

    It names the leader by score first, always; no sentence orders groups by anything else (contributors,
    ship odds), and a group whose shipping stands out is named with that axis, never as "best".
    """
    ranked = [row for row in rows if row.get("score_adj") is not None]
    if not ranked:
        return None
    one, many = VIEW_NOUNS[view]
    leader = ranked[0]
    if len(ranked) == 1:
        return Verdict(
            True, (leader["label"],), 1, (leader["label"],), f"Only one {one} is ranked so far: {described(leader)}."
        )
    k = _leading_set(ranked)
    contenders = [row for row in ranked if row.get("rank") == 1] or ranked[:1]
    standing = clearly_above_average(ranked)
    if k == 1:
        sentence = (
            f"First by score: {described(leader)}. Its interval lies above every other {one}'s, "
            "so it is surely ahead of them all."
        )
        named = [leader]
    elif k:
        sentence = (
            f"First by score: {_names([described(row) for row in ranked[:k]])}, in that order; these {k} are surely "
            f"ahead of every other {one}, and between them the intervals do not decide."
        )
        named = ranked[:k]
    else:
        close = [row for row in ranked[1:] if not surely_ahead(leader, row)]
        sentence = _not_separated(leader, close, len(ranked) - 1, one=one, many=many)
        named = [leader, *close[:MOST_NAMED]]
    labels = tuple(dict.fromkeys(row["label"] for row in [*named, *standing[:MOST_NAMED]]))
    leaders = tuple(row["label"] for row in ranked[:k])
    return Verdict(bool(k), leaders, len(contenders), labels, sentence, _shipping_sentence(standing, one=one))
