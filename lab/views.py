"""The lab's pages: each source in its own terms, and the lab beside the field.

Both are cached like the leaderboard's pages (per snapshot and cache generation), with the lab's
own generation in the key, so an import or a new alias shows at once.
"""

from collections.abc import Mapping
from typing import Any, cast

from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_safe

from core.http import NotFound, not_found_page, param
from lab import beside_chart, charts, field, selectors
from lab.aliases import STARTER_ALIASES
from lab.models import LabSource
from lab.summary import Row, summary_rows
from leaderboard.published import Lazy
from pages.contexts import colours_of
from pages.serving import cached_page, render_page
from scoring.shapes import PoolDocument, View

VIEW_WORDS = {field.PAIRING_VIEW: "Pairings", field.MODEL_VIEW: "Models"}
# Rows shown before a table folds the rest away, so a source reads in a glance; a fold hides at least FOLD_MIN.
FIRST_ROWS = 10
FOLD_MIN = 5


def _caveats(source: LabSource) -> list[str]:
    return [line.strip() for line in source.caveats.splitlines() if line.strip()]


def _display(row: Row) -> dict[str, Any]:
    return {
        "row": row,
        "spread": charts.grade_spread(counts=row.grade_counts, label=row.label),
    }


def lab_table(rows: list[Row], *, first: int = FIRST_ROWS) -> dict[str, Any]:
    """A table's rows, the first few shown and the rest folded; time per task only where some row has one."""
    shown = [_display(r) for r in rows]
    if len(shown) < first + FOLD_MIN:
        first = len(shown)
    return {
        "first": shown[:first],
        "rest": shown[first:],
        "count": len(shown),
        "timed": any(r.median_task_seconds is not None for r in rows),
        "aggregate": any(r.aggregate_runs for r in rows),
    }


def source_sections(sources: list[LabSource], rows: list[Row]) -> list[dict[str, Any]]:
    sections = []
    for source in sources:
        mine = [r for r in rows if r.source == source.name]
        sections.append(
            {
                "source": source,
                "caveats": _caveats(source),
                "models": lab_table([r for r in mine if not r.is_pairing]),
                "pairings": lab_table([r for r in mine if r.is_pairing]),
                "runs": sum(r.runs for r in mine),
                "style": charts.working_style(rows=mine, title=f"{source.title}: working style"),
                "has_idle": any(r.builder_idle for r in mine),
            }
        )
    return sections


@require_safe
def lab(request: HttpRequest) -> HttpResponse:
    def build(_: object) -> HttpResponse:
        sources = selectors.lab_sources()
        rows = summary_rows(selectors.lab_runs())
        context = {"sections": source_sections(sources, rows), "starter_aliases": sorted(STARTER_ALIASES.items())}
        return render_page("lab/lab.html", context)

    return cached_page(request, "lab", (selectors.lab_generation(),), build)


def agreement_context(document: Mapping[str, Any] | None, rows: list[Row], titles: dict[str, str]) -> dict[str, Any]:
    """Per source, its rank agreement with the field and the scatter of the models both rank, in family colours."""
    model_view = field.view_document(document, field.MODEL_VIEW)  # {} before the first snapshot
    colours, legend = (
        colours_of(cast(View, model_view), field.MODEL_VIEW, cast(PoolDocument, document)) if model_view else ({}, [])
    )
    agreement = field.rank_agreement(document, rows)
    charts_by_source = [
        {
            "agreement": a,
            "title": titles.get(a.source, a.source),
            "chart": beside_chart.field_against_lab(
                source=a.source, shared=a.shared, colours=colours, title=titles.get(a.source, a.source)
            ),
        }
        for a in agreement
        if a.shared
    ]
    shown = {m.row.model for a in agreement for m in a.shared}
    families = [(name, colour) for name, colour in legend if any(colours.get(m) == colour for m in shown)]
    return {"agreement": agreement, "scatters": charts_by_source, "legend": families}


@require_safe
def beside(request: HttpRequest) -> HttpResponse:
    view = param(request, "view")
    label = param(request, "label")
    if (view or label) and view not in field.VIEWS:
        return not_found_page("The lab is shown beside the field's models and pairings only.")

    def build(load: Lazy) -> HttpResponse:
        ranking = selectors.field_ranking(load())
        if label and label not in field.field_scores(ranking.document if ranking else None, view):
            # Checked before the lab is read: a made-up label costs a lookup in the held snapshot, and keeps nothing.
            raise NotFound("No model or pairing of that name is ranked in the field.")
        sources = {s.name: s for s in selectors.lab_sources()}
        titles = {name: s.title for name, s in sources.items()}
        rows = summary_rows(selectors.lab_runs())
        document = ranking.document if ranking else None
        entries = field.side_by_side(document, rows)
        if label:
            entries = [e for e in entries if e.field.view == view and e.field.label == label]
        context = {
            "is_demo": bool(ranking and ranking.is_demo),
            "ranking": ranking,
            "view": view,
            "label": label,
            "view_words": VIEW_WORDS,
            "source_titles": titles,
            "entries": [
                {
                    "beside": entry,
                    "lab": [
                        {"source": sources.get(name), "table": lab_table(lab_rows, first=len(lab_rows))}
                        for name, lab_rows in sorted(entry.lab.items())
                    ],
                }
                for entry in entries
            ],
        }
        context.update(agreement_context(document, rows, titles) if not label else {"agreement": []})
        return render_page("lab/beside.html", context)

    return cached_page(request, "lab-beside", (selectors.lab_generation(), view, label), build)
