"""The CSV downloads: every stored cycle (streamed) and one view's rankings.

A CSV's first line is its header and nothing else, so the as-of time and snapshot ride
in the response headers (X-As-Of, X-Snapshot) and in the file name, never inside the file.
rankings.csv, like the pages, carries an ETag of the snapshot and URL and answers 304 to it.
cycles.csv is the stored cycles as they are at download time: never cached, no ETag.
"""

import csv
from collections.abc import Iterator
from typing import Any

from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.utils import timezone
from django.views.decorators.http import require_safe

from ingest.columns import FACT_FIELDS
from ingest.models import Cycle
from leaderboard import pages
from leaderboard.views import mark_cacheable, not_found_page, not_modified, page_etag, param, published_snapshot

# Rows fetched per round trip, and written per chunk of the response: memory stays flat.
FETCH_ROWS = 2000
CHUNK_ROWS = 500

ROLE_WORDS = {Cycle.Role.OTHER: "other", Cycle.Role.PLAN: "plan", Cycle.Role.BUILD: "build"}
SHIP_STATUS_WORDS = {
    Cycle.ShipStatus.JUDGED: "judged",
    Cycle.ShipStatus.PENDING: "pending",
    Cycle.ShipStatus.UNSHIPPABLE: "unshippable",
}
CYCLE_COLUMNS: tuple[str, ...] = ("contributor", *FACT_FIELDS)
_ROLE_INDEX = CYCLE_COLUMNS.index("role")
_SHIP_STATUS_INDEX = CYCLE_COLUMNS.index("ship_status")


class _Line:
    """csv.writer wants a file; this one hands each line back instead of keeping it."""

    def write(self, text: str) -> str:
        return text


def _stamp(response: HttpResponse | StreamingHttpResponse, *, snapshot_id: int, kind: str) -> None:
    as_of = timezone.now().replace(microsecond=0)
    response["X-As-Of"] = as_of.isoformat().replace("+00:00", "Z")
    response["X-Snapshot"] = str(snapshot_id)
    name = f"pragmatikos-{kind}-snapshot-{snapshot_id}-{as_of:%Y%m%dT%H%M%SZ}.csv"
    response["Content-Disposition"] = f'attachment; filename="{name}"'


def cycle_lines() -> Iterator[str]:
    writer = csv.writer(_Line())
    yield writer.writerow(CYCLE_COLUMNS)
    rows = (
        Cycle.objects.filter(contributor__retracted_at__isnull=True)
        .order_by("id")
        .values_list("contributor__number", *FACT_FIELDS)
    )
    chunk: list[str] = []
    for row in rows.iterator(chunk_size=FETCH_ROWS):
        values: list[Any] = list(row)
        # Contributor.pseudonym: c<number>, dense, in order of first contribution and stable across exports.
        values[0] = f"c{values[0]}"
        values[_ROLE_INDEX] = ROLE_WORDS.get(values[_ROLE_INDEX], values[_ROLE_INDEX])
        values[_SHIP_STATUS_INDEX] = SHIP_STATUS_WORDS.get(values[_SHIP_STATUS_INDEX], values[_SHIP_STATUS_INDEX])
        chunk.append(writer.writerow(values))
        if len(chunk) >= CHUNK_ROWS:
            yield "".join(chunk)
            chunk = []
    if chunk:
        yield "".join(chunk)


@require_safe
def cycles_csv(request: HttpRequest) -> StreamingHttpResponse | HttpResponse:
    _, snapshot_id = pages.serving_snapshot()
    response = StreamingHttpResponse(cycle_lines(), content_type="text/csv; charset=utf-8")
    _stamp(response, snapshot_id=snapshot_id, kind="cycles")
    # The stored cycles, not a snapshot: they change between recomputes (a retraction
    # takes effect at once), so no ETag of the snapshot may vouch for them and no cache keeps them.
    response["Cache-Control"] = "no-store"
    return response


def ranking_columns() -> list[str]:
    # rank and rank_worst: the places the 95% intervals allow (spec B1); empty interval bounds for one contributor.
    columns = ["view", "status", "rank", "rank_worst", "label", "planner", "builder"]
    columns += ["score_adj", "ci_lo", "ci_hi", "score"]
    columns += ["judged", "shipped", "ship_judged", "contributors", "top_share", "flags", "imputed_tiers"]
    columns += [f"tier_adj_{name.lower()}" for name in pages.TIERS]
    columns += [f"tier_raw_{name.lower()}" for name in pages.TIERS]
    for prefix in ("raw", "adj", "evidence", "pool"):
        columns += [f"{prefix}_{axis.key}" for axis in pages.AXES]
    columns += ["adjusted_odds_ratio", "adjusted_ci_lo", "adjusted_ci_hi", "adjusted_separable"]
    # The stability note: point rank by scoreAdj with each contributor left out in turn (best, worst).
    columns += ["loo_rank_best", "loo_rank_worst"]
    return columns


def ranking_rows(view: str, view_doc: dict[str, Any]) -> Iterator[list[Any]]:
    pool = view_doc.get("pool") or {}
    pool_values = [pool.get(axis.key) for axis in pages.AXES]
    for group in view_doc.get("groups", []):
        lo, hi = pages.interval(group)
        sides = pages.planner_and_builder(group) if view in pages.PAIRING_VIEWS else None
        adjusted = group.get("adjusted") or {}
        adjusted_ci = adjusted.get("ci") or [None, None]
        places = pages.rank_places(group) or (None, None)
        row: list[Any] = [view, "ranked", *places, group.get("label"), *(sides or ("", ""))]
        row += [group.get("scoreAdj"), lo, hi, group.get("score")]
        row += [group.get("hjudged"), group.get("hshipped"), group.get("hshipJudged"), group.get("contributors")]
        row += [group.get("top_share"), ";".join(group.get("flags", [])), ";".join(group.get("imputed", []))]
        row += [(group.get("tiersAdj") or {}).get(name) for name in pages.TIERS]
        row += [(group.get("tiers") or {}).get(name) for name in pages.TIERS]
        for part in ("raw", "adj", "ev"):
            row += [(group.get(part) or {}).get(axis.key) for axis in pages.AXES]
        row += pool_values
        row += [adjusted.get("odds_ratio"), *adjusted_ci[:2], adjusted.get("separable")] if adjusted else [None] * 4
        row += list(pages.rank_range(group) or (None, None))
        yield row
    blank_axes = [None] * len(pages.AXES)
    for item in view_doc.get("provisional", []):
        label = str(item.get("label", ""))
        sides = pages.planner_and_builder({"label": label}) if view in pages.PAIRING_VIEWS else None
        row = [view, "provisional", None, None, label, *(sides or ("", "")), None, None, None, None]
        row += [item.get("hjudged"), None, None, None, None, "", ""]
        row += [None] * (2 * len(pages.TIERS))
        row += [(item.get("raw") or {}).get(axis.key) for axis in pages.AXES]
        row += blank_axes + blank_axes + pool_values + [None] * 6
        yield row


@require_safe
def rankings_csv(request: HttpRequest) -> HttpResponse:
    view = param(request, "view", pages.DEFAULT_VIEW)
    if view not in pages.VIEWS:
        return not_found_page("There is no such view.")
    _, snapshot_id = pages.serving_snapshot()
    if snapshot_id == 0:
        return not_found_page("Nothing is ranked yet.")
    etag = page_etag(request, snapshot_id, "rankings.csv", view)
    unchanged = not_modified(request, etag)
    if unchanged is not None:
        unchanged["X-Snapshot"] = str(snapshot_id)
        return unchanged
    snapshot = published_snapshot(snapshot_id)
    if snapshot is None:
        return not_found_page("Nothing is ranked yet.")
    view_doc = (snapshot.document.get("views") or {}).get(view) or {}
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    writer = csv.writer(response)
    writer.writerow(ranking_columns())
    writer.writerows(["" if value is None else value for value in row] for row in ranking_rows(view, view_doc))
    _stamp(response, snapshot_id=snapshot.id, kind=f"rankings-{view}")
    mark_cacheable(response, etag)
    return response
