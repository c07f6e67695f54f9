"""cycles.csv as a file: written once per snapshot by the worker, sent as it is by the web process.

After each publish the worker streams the stored cycles out of PostgreSQL with COPY (the readable
words and c<number> pseudonyms are made by the query itself) through gzip into a temporary file
under settings.EXPORT_DIR, then renames it to cycles-snapshot-<id>-upto-c<n>-r<k>.csv.gz: a reader
sees the whole file or none. Older snapshots' files are deleted then. A download in progress keeps reading a
deleted file (POSIX), so pruning never cuts one short.

A file on disk rather than a PostgreSQL large object: the web process hands the open file to the
server (sendfile), so an 88 MB download costs it neither CPU per byte nor a database connection
held for the length of the download. The web and worker processes must share EXPORT_DIR (the
compose file's services share the checkout, where the default var/exports lies). The directory
belongs to one database.

Between a publish and its export being written, the previous snapshot's file is served (with
its own snapshot id in X-Snapshot and the file name).

A file's modification time is the moment its rows were read ("as of"). Its rows are read in one
transaction that sees one state of the database (core.backend.one_snapshot), and its name carries
two things that transaction saw: `n`, the highest contributor number (numbers are handed out in the
transaction that stores a contributor's first cycles, so nobody numbered above n can be in the
file), and `k`, the order of the last retraction (ingest.selectors.retractions_seen: orders follow
the retractions' commits, so the file holds nobody retracted up to k). A contributor numbered up
to n whose retraction is ordered above k may be in it, however the times fall; the web process
checks for such a retraction (one query) and answers 503 until the file is written again without
them: by the recompute the retraction queued, which rewrites the newest snapshot's file even when the pool
it scores is unchanged (the file can hold cycles no snapshot saw yet). So a retracted
contributor's rows are never sent once the retraction has committed, and a retraction of someone
the file cannot hold (a new install that contributed and retracted between two exports)
refuses nothing.

With the embedded default (SQLite, tasks in-process) the rows come through the ORM instead.
"""

import csv
import gzip
import logging
import os
import re
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import IO, Any

from django.conf import settings
from django.db.models import Case, CharField, F, Max, QuerySet, Value, When
from django.db.models.functions import Cast, Concat
from django.utils import timezone

from core.backend import bulk_statements, copy_out, one_snapshot
from ingest.columns import FACT_FIELDS
from ingest.models import Contributor, Cycle
from ingest.selectors import pool_cycles, retracted_after, retractions_seen
from leaderboard.models import Snapshot
from leaderboard.public_names import counted_contributors, name_decisions, public_name_rule
from scoring.public_labels import NAME_PAIR, OTHER_LABEL

log = logging.getLogger(__name__)

ROLE_WORDS = {Cycle.Role.OTHER: "other", Cycle.Role.PLAN: "plan", Cycle.Role.BUILD: "build"}
SHIP_STATUS_WORDS = {
    Cycle.ShipStatus.JUDGED: "judged",
    Cycle.ShipStatus.PENDING: "pending",
    Cycle.ShipStatus.UNSHIPPABLE: "unshippable",
}
CYCLE_COLUMNS: tuple[str, ...] = ("contributor", *FACT_FIELDS)

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_FILE_NAME = re.compile(r"^cycles-snapshot-(\d+)-upto-c(\d+)-r(\d+)\.csv\.gz$")
# Files written before the name carried the highest number and the last retraction seen: never served,
# deleted at the next export.
_OLDER_NAME = re.compile(r"^cycles-snapshot-\d+(-upto-c\d+)?\.csv\.gz$")
_TEMP_PREFIX = ".cycles-snapshot-"
# A temporary file this old belongs to a writer that died: removed at the next export.
STALE_TEMP_SECONDS = 3600
# Rows per round trip on the ORM path: memory stays flat.
FETCH_ROWS = 2000


@dataclass(frozen=True)
class Export:
    """One written export: its snapshot, file, size, the moment its rows were read, and the highest
    contributor number and last retraction its rows' transaction saw (see the module's note)."""

    snapshot_id: int
    path: Path
    size: int
    as_of_ns: int
    highest_number: int
    retractions_seen: int

    @property
    def as_of(self) -> datetime:
        return EPOCH + timedelta(microseconds=self.as_of_ns // 1000)

    @property
    def etag(self) -> str:
        # Names the snapshot and this very file: a rewrite (same snapshot, new rows) gets a new tag.
        return f'"cycles-{self.snapshot_id}-{self.size:x}-{self.as_of_ns:x}"'


def export_dir() -> Path:
    return Path(settings.EXPORT_DIR)


def export_path(snapshot_id: int, highest_number: int, retractions: int) -> Path:
    return export_dir() / f"cycles-snapshot-{snapshot_id}-upto-c{highest_number}-r{retractions}.csv.gz"


def _written_files() -> list[tuple[int, int, int]]:
    """(snapshot id, highest number, last retraction seen) of every written export, newest first."""
    try:
        names = [entry.name for entry in os.scandir(export_dir())]
    except FileNotFoundError:
        return []
    return sorted(((int(m[1]), int(m[2]), int(m[3])) for m in map(_FILE_NAME.match, names) if m), reverse=True)


def opened_export(newest_id: int) -> tuple[Export, IO[bytes]] | None:
    """The newest written export of a snapshot no newer than `newest_id`, with an open handle on it
    (the caller closes it); None when there is none yet.

    The newest snapshot's file is being written for a while after each publish: meanwhile the
    previous snapshot's file is served (it says which snapshot it is). Of one snapshot's files, the
    one read last (the highest number, then the last retraction seen) is served. A file is opened
    before it is measured, so one pruned in between is either whole or skipped.
    """
    for snapshot_id, highest_number, retractions in _written_files():
        if snapshot_id > newest_id:
            continue  # published a moment ago; this process will see it within a second
        path = export_path(snapshot_id, highest_number, retractions)
        try:
            handle = path.open("rb")
        except FileNotFoundError:
            continue
        stat = os.fstat(handle.fileno())
        export = Export(
            snapshot_id=snapshot_id,
            path=path,
            size=stat.st_size,
            as_of_ns=stat.st_mtime_ns,
            highest_number=highest_number,
            retractions_seen=retractions,
        )
        return export, handle
    return None


def newest_export(snapshot_id: int) -> Export | None:
    """The export written for this very snapshot, if there is one."""
    found = opened_export(snapshot_id)
    if found is None:
        return None
    export, handle = found
    handle.close()
    return export if export.snapshot_id == snapshot_id else None


def retracted_since(export: Export) -> bool:
    """Whether a contributor the file may hold has retracted since its rows were read: a retraction its
    transaction did not see, of someone numbered by then."""
    return retracted_after(export.retractions_seen, numbered_up_to=export.highest_number)


# ---------------------------------------------------------------- writing (the worker)


def write_cycles_export(*, snapshot_id: int) -> Export | None:
    """Write the export of the newest snapshot once, then delete older snapshots' exports.

    None when a newer snapshot exists: its own export is queued. A file already written for this
    snapshot (a redelivered task) is kept, unless someone it may hold retracted since, or it is
    older than the snapshot (left by another database in the same directory): then it is written anew.
    """
    newest = Snapshot.objects.published().values_list("id", "created_at").first()
    if newest is None or newest[0] != snapshot_id:
        return None
    export_dir().mkdir(parents=True, exist_ok=True)
    published_ns = (newest[1] - EPOCH) // timedelta(microseconds=1) * 1000
    written = newest_export(snapshot_id)
    if written is None or written.as_of_ns < published_ns or retracted_since(written):
        started = time.perf_counter()
        final = _write_file(snapshot_id=snapshot_id)
        seconds = time.perf_counter() - started
        log.info("export: wrote %s (%d bytes) in %.1f s", final.name, final.stat().st_size, seconds)
    prune_exports(keep=snapshot_id)
    return newest_export(snapshot_id)


def _write_file(*, snapshot_id: int) -> Path:
    as_of = timezone.now()
    temp = export_dir() / f"{_TEMP_PREFIX}{uuid.uuid4().hex}.tmp"
    try:
        with temp.open("wb") as raw, one_snapshot():
            # The transaction's first read: the rows hold nobody retracted up to it (see the module's note).
            seen = retractions_seen()
            # The name and time inside the gzip header are fixed: no temporary name leaks into the file.
            with gzip.GzipFile(filename="cycles.csv", mode="wb", fileobj=raw, compresslevel=6, mtime=0) as zipped:
                if bulk_statements():
                    _copy_rows(zipped)
                else:
                    for line in cycle_lines():
                        zipped.write(line.encode())
            raw.flush()
            os.fsync(raw.fileno())
            # Read once the rows are: whoever the file holds was numbered by then (see the module's note).
            highest = Contributor.objects.aggregate(highest=Max("number"))["highest"] or 0
        final = export_path(snapshot_id, highest, seen)
        as_of_ns = (as_of - EPOCH) // timedelta(microseconds=1) * 1000  # exact: no float in between
        os.utime(temp, ns=(as_of_ns, as_of_ns))
        os.replace(temp, final)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    return final


def prune_exports(*, keep: int) -> None:
    """Delete the exports of snapshots older than `keep` and the earlier files of `keep` itself, and
    temporary files left by dead writers."""
    stale_before = time.time() - STALE_TEMP_SECONDS
    kept = next((rest for snapshot_id, *rest in _written_files() if snapshot_id == keep), None)
    for path in export_dir().iterdir():
        matched = _FILE_NAME.match(path.name)
        try:
            older = matched and (
                int(matched[1]) < keep or (int(matched[1]) == keep and [int(matched[2]), int(matched[3])] != kept)
            )
            if older or _OLDER_NAME.match(path.name):
                path.unlink(missing_ok=True)
                log.info("export: deleted %s", path.name)
            elif path.name.startswith(_TEMP_PREFIX) and path.stat().st_mtime < stale_before:
                path.unlink(missing_ok=True)
        except FileNotFoundError:
            continue  # another worker pruned it first


def shown_names() -> dict[str, set[str]]:
    """The names each published column of the export may show, by the public-label rule the rankings follow."""
    import pandas as pd  # here: the pages import this module as Django starts, and only the worker writes

    pool = pool_cycles()
    rule = public_name_rule(counted=counted_contributors(), decisions=name_decisions())
    shown: dict[str, set[str]] = {}
    for kind in rule.kinds:
        found = [
            pd.DataFrame(list(pool.values_list("contributor_id", column).distinct()), columns=NAME_PAIR)
            for column in kind.columns
        ]
        names = rule.names_to_show(pd.concat(found, ignore_index=True), kind)
        shown |= dict.fromkeys(kind.columns, names)
    return shown


def export_rows() -> "QuerySet[Cycle, tuple[Any, ...]]":
    """The export's rows, CYCLE_COLUMNS in order: the cycles of the pool (as the rankings count them),
    c<number> pseudonyms, words for codes, and names no ranking may show as (other)."""
    names_shown = shown_names()

    def words(field: str, mapping: dict[Any, str]) -> Case:
        return Case(
            *[When(**{field: value}, then=Value(word)) for value, word in mapping.items()],
            default=Cast(field, CharField()),
        )

    def shown(field: str, names: set[str]) -> Case:
        return Case(When(**{f"{field}__in": sorted(names)}, then=F(field)), default=Value(OTHER_LABEL))

    expressions: dict[str, Any] = {"x_contributor": Concat(Value("c"), Cast("contributor__number", CharField()))}
    for name in FACT_FIELDS:
        if name == "role":
            expressions[f"x_{name}"] = words(name, ROLE_WORDS)
        elif name == "ship_status":
            expressions[f"x_{name}"] = words(name, SHIP_STATUS_WORDS)
        elif name in names_shown:
            expressions[f"x_{name}"] = shown(name, names_shown[name])
    names = [f"x_{name}" if f"x_{name}" in expressions else name for name in CYCLE_COLUMNS]
    return pool_cycles().annotate(**expressions).order_by("id").values_list(*names)


def _copy_rows(out: gzip.GzipFile) -> None:
    # The header is written here: COPY's own would carry the query's column names.
    out.write((",".join(CYCLE_COLUMNS) + "\n").encode())
    sql, params = export_rows().query.sql_with_params()
    for block in copy_out(sql, params, options="FORMAT csv"):
        out.write(block)


class _Line:
    """csv.writer wants a file; this one hands each line back instead of keeping it."""

    def write(self, text: str) -> str:
        return text


def cycle_lines() -> Iterator[str]:
    """The export's lines through the ORM (the embedded default): the same rows as the COPY."""
    writer = csv.writer(_Line(), lineterminator="\n")
    yield writer.writerow(CYCLE_COLUMNS)
    for row in export_rows().iterator(chunk_size=FETCH_ROWS):
        yield writer.writerow(row)
