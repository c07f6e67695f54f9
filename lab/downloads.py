"""The lab's downloads: one summary row per model or pairing (lab.csv), and every run in the open
runs format (lab-runs.jsonl).

Each is built once per lab generation (every import and alias change bumps it) and kept in the shared
cache under it, and for a minute in this process: a download costs no reading of the lab tables
until the tables change. Only existing sources (and all of them together) are ever kept.
"""

import csv
import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Final

from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_safe

from core import soft_cache
from core.http import not_found_page, param
from lab import selectors
from lab.models import LabSource
from lab.services import SOURCE_NAME
from lab.summary import Row, summary_rows

# Kept in the shared cache until the lab changes (a new generation names new keys) or for this long.
DOWNLOAD_SECONDS: Final = 24 * 3600
# How long this process serves its own copy without asking the shared cache (while the cache is
# unreachable the generation reads 0, so this also bounds how stale a copy can be then).
LOCAL_SECONDS: Final = 60.0


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


_local: dict[str, tuple[float, bytes]] = {}
_building = threading.Lock()


def built_download(kind: str, source: str | None, build: Callable[[], bytes]) -> bytes:
    """The bytes of one download as of the lab's current generation, built here only when no copy exists."""
    key = f"lab-download:{selectors.lab_generation()}:{kind}:{source or ''}"
    held = _local.get(key)
    if held is not None and held[0] > time.monotonic():
        return held[1]
    with _building:  # this process's concurrent misses build once
        held = _local.get(key)
        if held is not None and held[0] > time.monotonic():
            return held[1]
        body = soft_cache.get(key)
        if not isinstance(body, bytes):
            body = build()
            soft_cache.set(key, body, DOWNLOAD_SECONDS)
        now = time.monotonic()
        for stale in [k for k, (until, _) in _local.items() if until <= now]:
            del _local[stale]
        _local[key] = (now + LOCAL_SECONDS, body)
    return body


def forget_local_downloads() -> None:
    """Drop this process's copies (tests)."""
    _local.clear()


@require_safe
def lab_csv(request: HttpRequest) -> HttpResponse:
    name, missing = _source(request)
    if missing is not None:
        return missing
    body = built_download(
        "csv", name, lambda: "".join(csv_lines(summary_rows(selectors.lab_runs(source=name)))).encode()
    )
    response = HttpResponse(body, content_type="text/csv; charset=utf-8")
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
def lab_runs_jsonl(request: HttpRequest) -> HttpResponse:
    name, missing = _source(request)
    if missing is not None:
        return missing
    body = built_download("runs", name, lambda: "".join(run_lines(name)).encode())
    response = HttpResponse(body, content_type="application/x-ndjson; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="pragmatikos-lab-runs{"-" + name if name else ""}.jsonl"'
    response["Cache-Control"] = "no-store"
    return response
