"""What the embedded default and production do differently, said once.

Production runs on PostgreSQL and Redis: rows move in and out with COPY, a transaction can hold an
advisory lock, and locks and counters live in Redis, shared by every process. The embedded default
(`make run`: SQLite, tasks in-process, no Redis) has none of these; the ORM's plain forms and the
in-process stand-ins here do the same work. Domain code asks for what it needs, never which database
it runs on.
"""

import contextlib
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from functools import cache
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections, transaction

# ---------------------------------------------------------------- the database


def bulk_statements(using: str = DEFAULT_DB_ALIAS) -> bool:
    """Whether the database takes the bulk forms this service reads and writes with (COPY, arrays, unnest):
    PostgreSQL's. Elsewhere (the embedded SQLite) the ORM's plain forms move the same rows."""
    return connections[using].vendor == "postgresql"


def advisory_lock(key: int, *, using: str = DEFAULT_DB_ALIAS) -> None:
    """Hold the lock `key` until the transaction ends. SQLite runs one write transaction at a time, so there
    it is held already."""
    connection = connections[using]
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [key])


@contextlib.contextmanager
def one_snapshot(using: str = DEFAULT_DB_ALIAS) -> Iterator[None]:
    """A transaction whose reads all see the database as its first read did: REPEATABLE READ on PostgreSQL;
    a SQLite transaction reads one state anyway. Inside a transaction already begun (tests), that one's own
    isolation applies: each statement then sees at least what the ones before it saw."""
    connection = connections[using]
    begins = not connection.in_atomic_block
    with transaction.atomic(using=using):
        if begins and connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        yield


def copy_in(statement: str, rows: Iterable[Sequence[Any]], *, types: Sequence[str], count: int) -> None:
    """Write `rows` with one binary `COPY ... FROM STDIN` (PostgreSQL only: see bulk_statements).

    Binary rows carry each column's exact type (`types`, e.g. "varchar"). `count`: how many rows, for the
    query log, which COPY bypasses.
    """
    connection = connections[DEFAULT_DB_ALIAS]
    started = time.monotonic()
    # psycopg's own cursor raises psycopg's errors: Django's wrapper turns them into django.db's, so a
    # connection cut mid-COPY answers the API's 503 (core/errors.py), not a 500, and is not reused.
    with connection.cursor() as cursor, connection.wrap_database_errors, cursor.cursor.copy(statement) as copy:
        copy.set_types(list(types))
        for row in rows:
            copy.write_row(row)
    if connection.queries_logged:
        # COPY bypasses the cursor wrapper's logging; record it so query counts stay honest.
        connection.queries_log.append(
            {"sql": f"{statement} -- {count} rows", "time": f"{time.monotonic() - started:.3f}"}
        )


def copy_out(sql: str, params: Sequence[Any] | None, *, options: str) -> Iterator[bytes]:
    """The rows of a query as blocks of `COPY (...) TO STDOUT (options)` (PostgreSQL only: see bulk_statements)."""
    connection = connections[DEFAULT_DB_ALIAS]
    with connection.cursor() as cursor:
        raw = cursor.cursor  # psycopg's own cursor: COPY has no DB-API form
        query = raw.mogrify(sql, params) if params else sql
        copy_sql = f"COPY ({query!s}) TO STDOUT ({options})"
        # Shows the COPY in Django's query log (debug cursors, tests), like any other query.
        logged = cursor.debug_sql(copy_sql) if hasattr(cursor, "debug_sql") else contextlib.nullcontext()
        # Django's wrapper turns psycopg's errors into django.db's, and marks a cut connection unusable.
        with logged, connection.wrap_database_errors, raw.copy(copy_sql) as copy:
            yield from copy


# ---------------------------------------------------------------- in this process, without Redis


@cache
def process_lock(name: str) -> threading.Lock:
    """This process's lock of that name: what stands in for a shared lock when there is no shared cache."""
    return threading.Lock()


class LocalCoordinator:
    """The recompute's lock and owed flag in this process (leaderboard.coordination's Coordinator, without Redis)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.guard = threading.Lock()
        self.pending = 0

    def mark_pending(self) -> None:
        with self.guard:
            self.pending += 1

    def pending_mark(self) -> int | None:
        with self.guard:
            return self.pending or None

    def clear_pending(self, mark: int) -> bool:
        with self.guard:
            if self.pending != mark:
                return False
            self.pending = 0
            return True

    def is_pending(self) -> bool:
        return bool(self.pending)

    def try_lock(self) -> bool:
        return self.lock.acquire(blocking=False)

    def renew_lock(self) -> bool:
        return self.lock.locked()  # an in-process lock cannot outlive its holder

    def unlock(self) -> None:
        self.lock.release()

    def start_cooldown(self) -> None:
        pass  # tasks run in the request that asks for them: nothing would come back for work left owed

    def cooldown_left(self) -> float:
        return 0.0

    def claim_follow_up(self) -> int | None:
        return None  # the holder runs in this process and does the follow-up itself


class InProcessCounts:
    """The throttles' sliding windows kept in this process: exact within it. The embedded default's counters,
    and where counters that may fail open (core.throttles.admit) are kept while Redis is unreachable. Holds at
    most MAX_KEYS keys, forgetting the least recently counted, so made-up clients cannot fill the memory."""

    MAX_KEYS = 10_000

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._history: OrderedDict[str, list[float]] = OrderedDict()

    def admit(self, key: str, limit: int, seconds: int) -> tuple[bool, float]:
        with self._lock:
            now = time.monotonic()
            history = [at for at in self._history.pop(key, []) if at > now - seconds]
            admitted = len(history) < limit
            if admitted:
                history.append(now)
            self._history[key] = history
            while len(self._history) > self.MAX_KEYS:
                self._history.popitem(last=False)
            return admitted, 0.0 if admitted else history[0] + seconds - now

    def clear(self) -> None:
        with self._lock:
            self._history.clear()


in_process_counts = InProcessCounts()
