"""The lab's downloads: one summary row per model or pairing (lab.csv), and every run in the open
runs format (lab-runs.jsonl). Both read the lab tables as they are: never cached."""

import csv
import json
from collections.abc import Iterator

from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.views.decorators.http import require_safe

from lab import selectors
from lab.models import LabSource
from lab.services import SOURCE_NAME
from lab.summary import Row, summary_rows
from leaderboard.http import not_found_page, param


class _Line:
    def write(self, text: str) -> str:
        return text


def _cell(value: float | None, digits: int = 4) -> str:
    """A number rounded to `digits` decimals, without trailing zeros; empty for none."""
    if value is None:
        return ""
    text = f"{value:.{digits}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def csv_lines(rows: list[Row]) -> Iterator[str]:
    top = max((r.grade_max for r in rows if r.grade_max is not None), default=0)
    writer = csv.writer(_Line())
    yield writer.writerow(
        [
            "source",
            "model",
            "planner",
            "builder",
            "runs",
            "tasks",
            "mean_grade",
            "grade_max",
            *(f"grade_{g}" for g in range(top + 1)),
            "median_task_seconds",
            "median_tokens_in",
            "median_tokens_out",
            "mean_cost_usd",
        ]
    )
    for row in rows:
        counts = row.grade_counts + [0] * (top + 1 - len(row.grade_counts)) if row.grade_counts else [""] * (top + 1)
        yield writer.writerow(
            [
                row.source,
                row.model,
                row.planner,
                row.builder,
                row.runs,
                row.tasks,
                _cell(row.mean_grade.value),
                "" if row.grade_max is None else row.grade_max,
                *counts,
                _cell(row.median_task_seconds, 2),
                _cell(row.median_tokens_in, 0),
                _cell(row.median_tokens_out, 0),
                _cell(row.mean_cost_usd),
            ]
        )


def _source(request: HttpRequest) -> tuple[str | None, HttpResponse | None]:
    name = param(request, "source") or None
    # Source names are slugs: anything else names no source (and never reaches the database).
    if name is not None and (not SOURCE_NAME.match(name) or not LabSource.objects.filter(name=name).exists()):
        return None, not_found_page("There is no lab source of that name.")
    return name, None


@require_safe
def lab_csv(request: HttpRequest) -> HttpResponse:
    name, missing = _source(request)
    if missing is not None:
        return missing
    rows = summary_rows(selectors.lab_runs(source=name))
    response = HttpResponse("".join(csv_lines(rows)), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="pragmatikos-lab{"-" + name if name else ""}.csv"'
    response["Cache-Control"] = "no-store"
    return response


def run_lines(source: str | None) -> Iterator[str]:
    for run in selectors.export_runs(source=source):
        run["day"] = run["day"].isoformat() if run["day"] else None
        for name in ("planner", "builder", "effort"):
            if not run[name]:
                del run[name]
        yield json.dumps(run, ensure_ascii=False) + "\n"


@require_safe
def lab_runs_jsonl(request: HttpRequest) -> HttpResponse | StreamingHttpResponse:
    name, missing = _source(request)
    if missing is not None:
        return missing
    response = StreamingHttpResponse(run_lines(name), content_type="application/x-ndjson; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="pragmatikos-lab-runs{"-" + name if name else ""}.jsonl"'
    response["Cache-Control"] = "no-store"
    return response
