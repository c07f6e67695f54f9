"""The CSV downloads: every stored cycle (a file written per snapshot) and one view's rankings.

A CSV's first line is its header and nothing else, so the as-of time and snapshot ride
in the response headers (X-As-Of, X-Snapshot) and in the file name, never inside the file.
rankings.csv, like the pages, carries an ETag of the snapshot and URL and answers 304 to it.

The cycles come from the gzip file the worker wrote for the newest snapshot (leaderboard/cycles_file.py),
in two representations. cycles.csv.gz is the file as written (application/gzip). cycles.csv is
text/csv: to a client that accepts gzip the same bytes are sent with Content-Encoding: gzip (the
client unpacks them; the server can hand the file to sendfile and does no work per row); to one
that does not (curl without --compressed, Python's urllib, pandas.read_csv) the file is unpacked
while it is sent. Each representation has its own ETag, and the response to cycles.csv varies on
Accept-Encoding. The gzip bytes answer Range requests (one range: 206, or 416 outside the file)
so a broken download resumes; the unpacked stream has no length known in advance and answers
every request whole. Both answer If-None-Match with 304. While the newest snapshot's file is
being written the previous one is sent. Before the first file exists, or while a retraction is
newer than the file, it answers 503 with Retry-After: the file is never built here.

Behind the proxy (EXPORTS_SERVED_BY_PROXY=1) every answer is decided here the same way, but the
bytes are sent by the proxy: the response is empty and names the file (X-Accel-Redirect, a copy
made by leaderboard/served_exports.py: the plain CSV is unpacked once to a file) and the one range it
grants (X-Accel-Range), so no app thread waits on a slow reader.
"""

import csv
import gzip
import io
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

from django.conf import settings
from django.http import (
    FileResponse,
    HttpRequest,
    HttpResponse,
    HttpResponseBase,
    HttpResponseNotModified,
    StreamingHttpResponse,
)
from django.utils import timezone
from django.utils.http import http_date, parse_etags
from django.views.decorators.http import require_safe

from core.http import not_found_page
from core.http import param as query_param
from core.page_cache import mark_cacheable, not_modified, page_etag
from core.times import iso_z
from leaderboard import cycles_file, served_exports
from leaderboard.published import Lazy, serving_snapshot
from pages import presenters, wording
from pages.serving import chosen_view, render_page
from pages.windowed import WINDOW_PARAMETERS, read_window, windowed_document
from scoring.shapes import PAIRING_VIEWS, View

# How soon to ask again while the newest snapshot's export is being written.
EXPORT_RETRY_SECONDS = 30
# Bytes of unpacked CSV per chunk of the plain cycles.csv stream.
UNPACKED_CHUNK_BYTES = 256 * 1024


@dataclass(frozen=True)
class Representation:
    """One way of sending the export: its media type, encoding, ETag suffix and file name suffix.

    `packed` is whether the bytes sent are the file's own (so Range and sendfile apply)."""

    name: str
    content_type: str
    content_encoding: str | None
    suffix: str
    packed: bool
    varies: bool

    def etag(self, export: "cycles_file.Export") -> str:
        return export.etag if self.name == "gz" else f'{export.etag[:-1]}-{self.name}"'


GZIP_FILE = Representation("gz", "application/gzip", None, "csv.gz", packed=True, varies=False)
CSV_GZIP_ENCODED = Representation("gzip", "text/csv; charset=utf-8", "gzip", "csv", packed=True, varies=True)
CSV_PLAIN = Representation("identity", "text/csv; charset=utf-8", None, "csv", packed=False, varies=True)


def accepts_gzip(header: str) -> bool:
    """Whether an Accept-Encoding header takes gzip (RFC 9110 section 12.5.3): named, or `*`, with q > 0.

    No header at all is read as identity only: a client that says nothing gets plain text."""
    weights: dict[str, float] = {}
    for item in header.split(","):
        coding, *params = (part.strip() for part in item.split(";"))
        weight = 1.0
        for param in params:
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0
        if coding:
            weights[coding.lower()] = weight
    for coding in ("gzip", "x-gzip", "*"):
        if coding in weights:
            return weights[coding] > 0
    return False


def _stamp(response: HttpResponseBase, *, snapshot_id: int, kind: str, as_of: Any = None, suffix: str = "csv") -> None:
    as_of = (as_of or timezone.now()).replace(microsecond=0)
    response["X-As-Of"] = iso_z(as_of)
    response["X-Snapshot"] = str(snapshot_id)
    name = f"pragmatikos-{kind}-snapshot-{snapshot_id}-{as_of:%Y%m%dT%H%M%SZ}.{suffix}"
    response["Content-Disposition"] = f'attachment; filename="{name}"'


class Unsatisfiable(ValueError):
    """A Range that starts past the end of the file: 416."""


def requested_range(header: str, size: int) -> tuple[int, int] | None:
    """The one byte range (first, last, inclusive) a Range header asks for; None to send the whole file.

    RFC 9110 section 14: a header that is not one well-formed bytes range is ignored (the whole file is
    a correct answer to it, and several ranges are not worth a multipart body here); a well-formed
    range that starts at or past the end raises Unsatisfiable.
    """
    unit, _, spec = header.strip().partition("=")
    if unit.strip().lower() != "bytes" or "," in spec:
        return None
    first_text, dash, last_text = spec.strip().partition("-")
    first_text, last_text = first_text.strip(), last_text.strip()
    if not dash or not (first_text or last_text):
        return None
    if not all(text.isdigit() and text.isascii() for text in (first_text or "0", last_text or "0")):
        return None
    if not first_text:  # "-n": the last n bytes
        length = int(last_text)
        if length == 0 or size == 0:
            raise Unsatisfiable
        return max(0, size - length), size - 1
    first = int(first_text)
    if last_text and int(last_text) < first:
        return None
    if first >= size:
        raise Unsatisfiable
    return first, min(int(last_text), size - 1) if last_text else size - 1


class FileSlice:
    """Part of an open file, for a 206: read() stops at the range's end, and fileno() lets the
    server sendfile() it (gunicorn sends Content-Length bytes from the file's current offset)."""

    def __init__(self, handle: IO[bytes], first: int, length: int) -> None:
        self.handle = handle
        self.remaining = length
        handle.seek(first)

    def read(self, size: int = -1) -> bytes:
        if self.remaining <= 0:
            return b""
        wanted = self.remaining if size is None or size < 0 else min(size, self.remaining)
        data = self.handle.read(wanted)
        self.remaining -= len(data)
        return data

    def fileno(self) -> int:
        return self.handle.fileno()

    def close(self) -> None:
        self.handle.close()


def export_unavailable() -> HttpResponse:
    response = render_page(
        "503.html",
        {"message": "The cycles download of the newest snapshot is being written; try again in a minute."},
        status=503,
    )
    response["Retry-After"] = str(EXPORT_RETRY_SECONDS)
    response["Cache-Control"] = "no-store"
    return response


def _range_applies(request: HttpRequest, etag: str) -> bool:
    """If-Range: the range only when it names this file's ETag (a date, or another tag, gets the whole file)."""
    if_range = request.headers.get("If-Range")
    return if_range is None or if_range.strip() == etag


@require_safe
def cycles_csv(request: HttpRequest) -> HttpResponseBase:
    gzip_ok = accepts_gzip(request.headers.get("Accept-Encoding", ""))
    response = _cycles_download(request, CSV_GZIP_ENCODED if gzip_ok else CSV_PLAIN)
    response["Vary"] = "Accept-Encoding"
    return response


@require_safe
def cycles_csv_gz(request: HttpRequest) -> HttpResponseBase:
    return _cycles_download(request, GZIP_FILE)


def _cycles_download(request: HttpRequest, representation: Representation) -> HttpResponseBase:
    _, snapshot_id = serving_snapshot()
    found = cycles_file.opened_export(snapshot_id) if snapshot_id else None
    if found is None:
        return export_unavailable()
    export, handle = found
    try:
        if cycles_file.retracted_since(export):
            handle.close()
            return export_unavailable()
        if representation.packed:
            return _file_response(request, export, handle, representation)
        return _unpacked_response(request, export, handle)
    except BaseException:
        handle.close()
        raise


def _unchanged(
    request: HttpRequest, export: cycles_file.Export, representation: Representation
) -> HttpResponseBase | None:
    # Weak comparison, as RFC 9110 asks for If-None-Match.
    offered = {tag.removeprefix("W/") for tag in parse_etags(request.headers.get("If-None-Match", ""))}
    if representation.etag(export) not in offered and "*" not in offered:
        return None
    unchanged = HttpResponseNotModified()
    _file_headers(unchanged, export, representation)
    return unchanged


def _unpacked_response(request: HttpRequest, export: cycles_file.Export, handle: IO[bytes]) -> HttpResponseBase:
    unchanged = _unchanged(request, export, CSV_PLAIN)
    if unchanged is not None:
        handle.close()
        return unchanged
    if settings.EXPORTS_SERVED_BY_PROXY:
        with handle:
            proxied = _proxied(served_exports.unpacked_copy(export, handle), CSV_PLAIN, None)
        _file_headers(proxied, export, CSV_PLAIN)
        return proxied
    response = StreamingHttpResponse(_unpacked(handle), content_type=CSV_PLAIN.content_type)
    _file_headers(response, export, CSV_PLAIN)
    return response


def _unpacked(handle: IO[bytes]) -> Iterator[bytes]:
    try:
        with gzip.GzipFile(fileobj=handle, mode="rb") as unpacking:
            while chunk := unpacking.read(UNPACKED_CHUNK_BYTES):
                yield chunk
    finally:
        handle.close()


def _file_response(
    request: HttpRequest, export: cycles_file.Export, handle: IO[bytes], representation: Representation
) -> HttpResponseBase:
    unchanged = _unchanged(request, export, representation)
    if unchanged is not None:
        handle.close()
        return unchanged
    etag = representation.etag(export)
    # If-Range comes first: a range of another file is no range of this one (the whole file is sent).
    ranged = "Range" in request.headers and _range_applies(request, etag)
    try:
        wanted = requested_range(request.headers["Range"], export.size) if ranged else None
    except Unsatisfiable:
        handle.close()
        refused = HttpResponse(status=416)
        refused["Content-Range"] = f"bytes */{export.size}"
        _file_headers(refused, export, representation)
        return refused
    copy = served_exports.packed_copy(export, handle) if settings.EXPORTS_SERVED_BY_PROXY else None
    if copy is not None:
        handle.close()
        proxied = _proxied(copy, representation, wanted)
        _file_headers(proxied, export, representation)
        return proxied
    response: FileResponse
    if wanted is not None:
        first, last = wanted
        response = FileResponse(FileSlice(handle, first, last - first + 1), status=206)
        response["Content-Length"] = str(last - first + 1)
        response["Content-Range"] = f"bytes {first}-{last}/{export.size}"
    else:
        response = FileResponse(handle)
        response["Content-Length"] = str(export.size)
    response["Content-Type"] = representation.content_type
    if representation.content_encoding:
        response["Content-Encoding"] = representation.content_encoding
    _file_headers(response, export, representation)
    return response


def _proxied(path: str, representation: Representation, wanted: tuple[int, int] | None) -> HttpResponse:
    """An empty answer naming the file the proxy sends (deploy/Caddyfile) and the range it grants, if any."""
    response = HttpResponse(content_type=representation.content_type)
    response["X-Accel-Redirect"] = path
    # Always present (empty: the whole file), so the proxy's placeholder for it is always filled in.
    response["X-Accel-Range"] = f"bytes={wanted[0]}-{wanted[1]}" if wanted else ""
    if representation.content_encoding:
        response["Content-Encoding"] = representation.content_encoding
    return response


def _file_headers(response: HttpResponseBase, export: cycles_file.Export, representation: Representation) -> None:
    _stamp(response, snapshot_id=export.snapshot_id, kind="cycles", as_of=export.as_of, suffix=representation.suffix)
    response["ETag"] = representation.etag(export)
    response["Last-Modified"] = http_date(export.as_of_ns // 1_000_000_000)
    response["Accept-Ranges"] = "bytes" if representation.packed else "none"
    # Kept, but asked about again each time: once a retraction or a new snapshot replaces the
    # file, no cache goes on handing out the old one.
    response["Cache-Control"] = "no-cache"


def ranking_columns() -> list[str]:
    # rank and rank_worst: the places the intervals allow (spec B1); empty interval bounds for one contributor.
    columns = ["view", "status", "rank", "rank_worst", "label", "planner", "builder"]
    columns += ["score_adj", "ci_lo", "ci_hi", "score"]
    columns += ["judged", "shipped", "ship_judged", "contributors", "top_share", "flags", "imputed_tiers"]
    columns += [f"tier_adj_{name.lower()}" for name in wording.TIERS]
    columns += [f"tier_raw_{name.lower()}" for name in wording.TIERS]
    for prefix in ("raw", "adj", "evidence", "pool"):
        columns += [f"{prefix}_{axis.key}" for axis in wording.AXES]
    columns += ["adjusted_odds_ratio", "adjusted_ci_lo", "adjusted_ci_hi", "adjusted_separable"]
    # The stability note: point rank by scoreAdj with each contributor left out in turn (best, worst).
    columns += ["loo_rank_best", "loo_rank_worst"]
    return columns


def ranking_rows(view: str, view_doc: View) -> Iterator[list[Any]]:
    pool = view_doc["pool"]
    pool_values = [pool.get(axis.key) for axis in wording.AXES]
    for group in view_doc["groups"]:
        lo, hi = presenters.interval(group)
        sides = presenters.planner_and_builder(group) if view in PAIRING_VIEWS else None
        adjusted = group.get("adjusted")
        row: list[Any] = [view, "ranked", *presenters.rank_places(group), group["label"], *(sides or ("", ""))]
        row += [group["scoreAdj"], lo, hi, group["score"]]
        row += [group["hjudged"], group["hshipped"], group["hshipJudged"], group["contributors"]]
        row += [group["top_share"], ";".join(group["flags"]), ";".join(group["imputed"])]
        row += [group["tiersAdj"].get(name) for name in wording.TIERS]
        row += [group["tiers"].get(name) for name in wording.TIERS]
        row += [group["raw"].get(axis.key) for axis in wording.AXES]
        row += [group["adj"].get(axis.key) for axis in wording.AXES]
        row += [group["ev"].get(axis.key) for axis in wording.AXES]
        row += pool_values
        row += [adjusted["odds_ratio"], *adjusted["ci"][:2], adjusted["separable"]] if adjusted else [None] * 4
        row += list(presenters.rank_range(group) or (None, None))
        yield row
    blank_axes = [None] * len(wording.AXES)
    for item in view_doc["provisional"]:
        label = item["label"]
        sides = presenters.planner_and_builder(item) if view in PAIRING_VIEWS else None
        row = [view, "provisional", None, None, label, *(sides or ("", "")), None, None, None, None]
        row += [item["hjudged"], None, None, None, None, "", ""]
        row += [None] * (2 * len(wording.TIERS))
        row += [item["raw"].get(axis.key) for axis in wording.AXES]
        row += blank_axes + blank_axes + pool_values + [None] * 6
        yield row


def rankings_body(view: str, view_doc: View) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(ranking_columns())
    writer.writerows(["" if value is None else value for value in row] for row in ranking_rows(view, view_doc))
    return out.getvalue().encode()


@dataclass(frozen=True)
class CyclesSizes:
    """The newest cycles export's sizes for the Data page: the gzip file's, and the CSV's once unpacked."""

    etag: str
    packed: int
    unpacked: int


def cycles_sizes(snapshot_id: int) -> CyclesSizes | None:
    found = cycles_file.opened_export(snapshot_id) if snapshot_id else None
    if found is None:
        return None
    export, handle = found
    with handle:
        # gzip's trailer ends with the unpacked length modulo 2**32 (RFC 1952): exact for the
        # one-member files the export writes while they unpack to under 4 GiB.
        handle.seek(-4, io.SEEK_END)
        unpacked = int.from_bytes(handle.read(4), "little")
    return CyclesSizes(etag=export.etag, packed=export.size, unpacked=unpacked)


@require_safe
def rankings_csv(request: HttpRequest) -> HttpResponse:
    view = chosen_view(request)
    if view is None:
        return not_found_page("There is no such view.")
    # The pages' window (days and harness), so the link under a table downloads that table.
    window = read_window({name: query_param(request, name) for name in WINDOW_PARAMETERS}, today=timezone.now().date())
    _, snapshot_id = serving_snapshot()
    if snapshot_id == 0:
        return not_found_page("Nothing is ranked yet.")
    etag = page_etag(request, snapshot_id, "rankings.csv", view, window.since, window.until)
    unchanged = not_modified(request, etag)
    if unchanged is not None:
        unchanged["X-Snapshot"] = str(snapshot_id)
        return unchanged
    scope = windowed_document(request, window, Lazy(snapshot_id))
    if scope.refused:
        return scope.refused_page()
    if scope.document is None:
        return not_found_page("Nothing is ranked yet.")
    view_doc = scope.document["views"][view]
    scoped = "".join(f"-{part}" for part in (window.harness, window.since, window.until) if part)
    response = HttpResponse(rankings_body(view, view_doc), content_type="text/csv; charset=utf-8")
    _stamp(response, snapshot_id=snapshot_id, kind=f"rankings-{view}{scoped}")
    if scope.earlier:  # an earlier snapshot's window, while this one's is warmed: no ETag to keep it by
        scope.kept_only_if_current(response)
        return response
    mark_cacheable(response, etag)
    return response
