"""The field side of "Capable · Effective": joins the lab's rows to a ranking document.

The only module that reads the field's document shape (pool.json: views → groups with label,
scoreAdj, ci, contributors, hjudged; pairing labels "planner → builder"), so the field side can
change without touching the rest of the lab. Pure functions over that dict.

Joins: a lab row for one model meets the field's model of that name, and also the field's
pairing of that model with itself (a solo run plans and builds with one model); a lab
planner → builder row meets the field's pairing of the same two models.
"""

import dataclasses
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lab import stats
from lab.summary import PAIR_SEPARATOR, Row

MODEL_VIEW = "model"
PAIRING_VIEW = "modelCombo"
VIEWS = (PAIRING_VIEW, MODEL_VIEW)


@dataclass(frozen=True)
class FieldScore:
    view: str
    label: str
    score: float | None
    lo: float | None
    hi: float | None
    contributors: int | None
    hjudged: int | None


@dataclass
class Beside:
    """One field group and the lab rows that join it, per source."""

    field: FieldScore
    lab: dict[str, list[Row]] = dataclasses.field(default_factory=dict)


@dataclass(frozen=True)
class SharedModel:
    """A model both the field's model view and one lab source rank: its field score and its lab row."""

    field: FieldScore
    row: Row

    @property
    def lab_share(self) -> float | None:
        """The lab's mean grade as a percent of its grade maximum, so sources on any scale share an axis."""
        grade, top = self.row.mean_grade.value, self.row.grade_max
        return None if grade is None or not top else 100.0 * grade / top


@dataclass(frozen=True)
class SourceAgreement:
    source: str
    agreement: stats.Agreement
    models: list[str]
    shared: list[SharedModel] = dataclasses.field(default_factory=list)


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _count(value: object) -> int | None:
    return int(value) if isinstance(value, int) and not isinstance(value, bool) else None


def view_document(document: Mapping[str, Any] | None, view: str) -> dict[str, Any]:
    """One view of the ranking ({} when there is none)."""
    found = ((document or {}).get("views") or {}).get(view)
    return found if isinstance(found, dict) else {}


def field_scores(document: Mapping[str, Any] | None, view: str) -> dict[str, FieldScore]:
    """The ranked groups of one view, by label."""
    groups = view_document(document, view).get("groups") or []
    found = {}
    for group in groups:
        if not isinstance(group, dict) or not isinstance(group.get("label"), str):
            continue
        ci: list[Any] = group["ci"] if isinstance(group.get("ci"), list) and len(group["ci"]) == 2 else [None, None]
        found[group["label"]] = FieldScore(
            view=view,
            label=group["label"],
            score=_number(group.get("scoreAdj")),
            lo=_number(ci[0]),
            hi=_number(ci[1]),
            contributors=_count(group.get("contributors")),
            hjudged=_count(group.get("hjudged")),
        )
    return found


def pairing_label(planner: str, builder: str) -> str:
    return f"{planner}{PAIR_SEPARATOR}{builder}"


def field_labels(model: str, planner: str, builder: str) -> list[tuple[str, str]]:
    """(view, label) of the field groups a lab run (or row) of these names joins."""
    if planner and builder:
        return [(PAIRING_VIEW, pairing_label(planner, builder))]
    return [(MODEL_VIEW, model), (PAIRING_VIEW, pairing_label(model, model))]


def field_labels_for(row: Row) -> list[tuple[str, str]]:
    """(view, label) of the field groups a lab row joins."""
    return field_labels(row.model, row.planner, row.builder)


def side_by_side(document: Mapping[str, Any] | None, rows: Sequence[Row]) -> list[Beside]:
    """Every field model and pairing that some lab row joins, field score first, pairings before models."""
    scores = {view: field_scores(document, view) for view in VIEWS}
    joined: dict[tuple[str, str], Beside] = {}
    for row in rows:
        for view, label in field_labels_for(row):
            score = scores[view].get(label)
            if score is None:
                continue
            entry = joined.setdefault((view, label), Beside(field=score))
            entry.lab.setdefault(row.source, []).append(row)
    return sorted(
        joined.values(),
        key=lambda b: (VIEWS.index(b.field.view), -(b.field.score if b.field.score is not None else -1), b.field.label),
    )


def shared_models(document: Mapping[str, Any] | None, rows: Sequence[Row]) -> dict[str, list[SharedModel]]:
    """Per source, the lab's model rows (not pairings) whose model the field ranks, both with a score."""
    scores = field_scores(document, MODEL_VIEW)
    by_source: dict[str, list[SharedModel]] = defaultdict(list)
    for row in rows:
        score = scores.get(row.model) if not row.is_pairing else None
        if score is None or score.score is None or row.mean_grade.value is None:
            continue
        by_source[row.source].append(SharedModel(field=score, row=row))
    return by_source


def rank_agreement(
    document: Mapping[str, Any] | None, rows: Sequence[Row], *, resamples: int = stats.RESAMPLES
) -> list[SourceAgreement]:
    """Per source: Kendall's tau between the field's model scores and the lab's mean grades, over shared models."""
    by_source = shared_models(document, rows)
    sources = sorted({row.source for row in rows})
    found = []
    for source in sources:
        shared = sorted(by_source[source], key=lambda m: m.row.model)
        agreement = stats.rank_agreement(
            [m.field.score or 0.0 for m in shared], [m.row.mean_grade.value or 0.0 for m in shared], resamples=resamples
        )
        found.append(
            SourceAgreement(source=source, agreement=agreement, models=[m.row.model for m in shared], shared=shared)
        )
    return found
