"""The lab's pages: each source in its own terms, and the lab beside the field.

Both are cached like the leaderboard's pages (per snapshot and cache generation), with the lab's
own generation in the key, so an import or a new alias shows at once.
"""

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_safe

from core.http import NotFound, not_found_page, param
from lab import charts, field, selectors
from lab.models import LabSource
from lab.summary import Row, summary_rows
from pages.serving import cached_page, render_page
from rankings.current import Lazy

VIEW_WORDS = {field.PAIRING_VIEW: "Pairings", field.MODEL_VIEW: "Models"}


def _caveats(source: LabSource) -> list[str]:
    return [line.strip() for line in source.caveats.splitlines() if line.strip()]


def _display(row: Row) -> dict[str, Any]:
    return {
        "row": row,
        "spread": charts.grade_spread(counts=row.grade_counts, label=row.label),
    }


def source_sections(sources: list[LabSource], rows: list[Row]) -> list[dict[str, Any]]:
    sections = []
    for source in sources:
        mine = [r for r in rows if r.source == source.name]
        sections.append(
            {
                "source": source,
                "caveats": _caveats(source),
                "models": [_display(r) for r in mine if not r.is_pairing],
                "pairings": [_display(r) for r in mine if r.is_pairing],
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
        return render_page("lab/lab.html", {"sections": source_sections(sources, rows)})

    return cached_page(request, "lab", (selectors.lab_generation(),), build)


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
            "source_titles": {name: s.title for name, s in sources.items()},
            "entries": [
                {
                    "beside": entry,
                    "lab": [
                        {"source": sources.get(name), "rows": [_display(r) for r in lab_rows]}
                        for name, lab_rows in sorted(entry.lab.items())
                    ],
                }
                for entry in entries
            ],
            "agreement": [] if label else field.rank_agreement(document, rows),
        }
        return render_page("lab/beside.html", context)

    return cached_page(request, "lab-beside", (selectors.lab_generation(), view, label), build)
