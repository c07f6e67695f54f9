"""Reads of the leaderboard: the published snapshot, the scoring input, scoped rankings."""

import contextlib
import datetime as dt
import hashlib
import io
import threading
from typing import Any

import numpy as np
import pandas as pd
from django.conf import settings
from django.db import connection

from ingest.selectors import pool_cycles
from leaderboard import soft_cache
from leaderboard.labels import is_known_model
from leaderboard.models import Snapshot
from scoring import CYCLE_COLUMNS, ScoringConfig, compute_document, enrich_document
from scoring.public_labels import fold_unshown_names

# The scoring input: exactly the columns the scorer reads, in the order the one query selects them.
FRAME_COLUMNS: tuple[str, ...] = CYCLE_COLUMNS
_TEXT_COLUMNS = frozenset(
    {
        "cycle_key",
        "model",
        "provider",
        "planner_model",
        "planner_provider",
        "builder_model",
        "builder_provider",
        "effort",
        "planner_effort",
        "builder_effort",
        "harness",
        "harness_version",
    }
)
_FLOAT_COLUMNS = frozenset({"cost_usd", "active_hours", "step_seconds_median"})
# The contract accepts no day before this one (cycle-record.md, `day`).
EARLIEST_DAY = dt.date(2024, 1, 1)
SCOPED_CACHE_SECONDS = 3600
SCOPED_LOCK_KEY = "scoped:computing"
SCOPED_LOCK_SECONDS = 300
# Stands in for SCOPED_LOCK_KEY while the cache is unreachable.
_window_lock = threading.Lock()


def scoring_config() -> ScoringConfig:
    if settings.SCORING_FAMILY_PATTERN:
        return ScoringConfig(
            resamples=settings.SCORING_RESAMPLES,
            seed=settings.SCORING_SEED,
            family_pattern=settings.SCORING_FAMILY_PATTERN,
        )
    return ScoringConfig(resamples=settings.SCORING_RESAMPLES, seed=settings.SCORING_SEED)


def latest_snapshot() -> Snapshot | None:
    return Snapshot.objects.published().first()


def newest_snapshot_id() -> str | None:
    """The newest published snapshot's id as text (the 202 body and the stats say it), None before any."""
    newest = Snapshot.objects.published().values_list("id", flat=True).first()
    return None if newest is None else str(newest)


def _cycles_sql(*, since: dt.date | None, until: dt.date | None) -> tuple[str, tuple[Any, ...]]:
    """The one query of the scoring input, as SQL and parameters: the ingest's pool, FRAME_COLUMNS in order."""
    return pool_cycles(since=since, until=until).values_list(*FRAME_COLUMNS).query.sql_with_params()


def _typed_frame(frame: pd.DataFrame) -> pd.DataFrame:
    for name in FRAME_COLUMNS:
        if name in _TEXT_COLUMNS:
            frame[name] = frame[name].fillna("").astype(str)
        elif name == "day":
            frame[name] = pd.to_datetime(frame[name]).dt.date
        elif name in _FLOAT_COLUMNS:
            frame[name] = frame[name].astype("float64")
        else:
            frame[name] = frame[name].astype("int64")
    return frame


def cycles_frame(*, since: dt.date | None = None, until: dt.date | None = None) -> pd.DataFrame:
    """Every cycle in the pool, in one query, with the names no ranking may show folded into "(other)".

    On PostgreSQL the rows come through COPY as CSV, which pandas parses far faster than
    Python tuples; elsewhere (the embedded SQLite default) through a plain cursor.
    """
    sql, params = _cycles_sql(since=since, until=until)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            raw = cursor.cursor  # psycopg's own cursor: COPY has no DB-API form
            query = raw.mogrify(sql, params) if params else sql
            copy_sql = f"COPY ({query!s}) TO STDOUT WITH (FORMAT csv, HEADER true)"
            buffer = io.BytesIO()
            # Shows the COPY in Django's query log (debug cursors, tests), like any other query.
            logged = cursor.debug_sql(copy_sql) if hasattr(cursor, "debug_sql") else contextlib.nullcontext()
            with logged, raw.copy(copy_sql) as copy:
                for block in copy:
                    buffer.write(block)
            buffer.seek(0)
            dtypes = {name: str for name in _TEXT_COLUMNS}
            # Named by position: the query selects FRAME_COLUMNS in order (the header says contributor_id).
            frame = pd.read_csv(
                buffer,
                header=0,
                names=list(FRAME_COLUMNS),
                dtype=dtypes,
                keep_default_na=False,  # type: ignore[arg-type]
            )
            if frame.empty:
                frame = pd.DataFrame({name: pd.Series(dtype="object") for name in FRAME_COLUMNS})
        else:
            cursor.execute(sql, params)
            frame = pd.DataFrame.from_records(cursor.fetchall(), columns=list(FRAME_COLUMNS))
    return fold_unshown_names(
        _typed_frame(frame[list(FRAME_COLUMNS)]),
        is_known_model=is_known_model,
        min_contributors=settings.PUBLIC_LABEL_MIN_CONTRIBUTORS,
    )


def cycles_fingerprint(frame: pd.DataFrame, config: ScoringConfig) -> str:
    """A digest of what a recompute would score; equal digests give equal rankings."""
    digest = hashlib.sha256(repr(config).encode())
    if not frame.empty:
        # Sorted row hashes: the same rows in another scan order are the same pool.
        rows = np.sort(pd.util.hash_pandas_object(frame, index=False).to_numpy())
        digest.update(rows.tobytes())
    return digest.hexdigest()


def snapshot_document(snapshot: Snapshot) -> dict[str, Any]:
    """The published document with the snapshot's own identity in its meta."""
    document = dict(snapshot.document)
    meta = dict(document.get("meta", {}))
    meta["snapshot"] = str(snapshot.id)
    meta["generated"] = snapshot.created_at.isoformat().replace("+00:00", "Z")
    meta["demo"] = snapshot.is_demo
    document["meta"] = meta
    return document


class WindowBusy(Exception):
    """Another request is computing a day window; come back in a few seconds."""


def preset_window(days: int, *, today: dt.date) -> tuple[dt.date, dt.date]:
    """The last `days` days up to today: the 90- and 30-day windows the pages offer."""
    return today - dt.timedelta(days=days - 1), today


def scoped_document(
    *, since: dt.date | None, until: dt.date | None, snapshot: Snapshot | None = None
) -> dict[str, Any] | None:
    """Rankings for a day window, computed on demand and cached per snapshot.

    None when nothing has been published yet. The all-time window is the snapshot itself.
    Raises WindowBusy while another window is being computed.
    """
    snapshot = snapshot or latest_snapshot()
    if snapshot is None:
        return None
    if since is None and until is None:
        return snapshot_document(snapshot)
    key = f"scoped:{snapshot.id}:{since}:{until}"
    document: dict[str, Any] | None = soft_cache.get(key)
    if document is not None:
        return document
    # One window at a time across every web worker: a burst of new windows cannot tie up
    # all of them, and the same window asked for twice at once is computed once.
    locked = soft_cache.add(SCOPED_LOCK_KEY, key, SCOPED_LOCK_SECONDS)
    if locked is None:
        # The cache is unreachable: one window at a time in this process instead.
        if not _window_lock.acquire(blocking=False):
            raise WindowBusy
    elif not locked:
        raise WindowBusy
    try:
        frame = cycles_frame(since=since, until=until)
        config = scoring_config()
        document = compute_document(
            frame,
            config,
            since=since,
            until=until,
            generated=snapshot.created_at.isoformat().replace("+00:00", "Z"),
        )
        enrich_document(document, frame, config, since=since, until=until)
        meta = dict(document.get("meta", {}))
        meta["snapshot"] = str(snapshot.id)
        meta["demo"] = snapshot.is_demo
        document["meta"] = meta
        soft_cache.set(key, document, SCOPED_CACHE_SECONDS)
    finally:
        if locked is None:
            _window_lock.release()
        else:
            soft_cache.delete(SCOPED_LOCK_KEY)
    return document
