"""Writes of the ingest: storing a validated contribution, retracting an install.

Every write runs in one transaction with a constant number of statements, whatever the
batch size: the contributor row is upserted (which also locks it, so two requests of one
install run one after the other and neither loses nor double counts a row), the stored
copies of the batch's keys are fetched in one query, new rows go in with one COPY and
changed ones with one UPDATE (on PostgreSQL; the embedded SQLite default uses Django's
bulk operations).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import connection, models, transaction
from django.db.models import BooleanField, Exists, Max, OuterRef, Q
from django.db.models.expressions import RawSQL

from core.backend import advisory_lock, bulk_statements, copy_in
from ingest.columns import FACT_FIELDS
from ingest.contract import STORED_FIELDS, Envelope
from ingest.hooks import announce_cycles_changed, newest_snapshot_id
from ingest.models import (
    RETRACTION_ORDER_LOCK,
    Contributor,
    Cycle,
    NameSighting,
    Receipt,
    Retraction,
    install_hash,
    install_lock_key,
)
from ingest.name_sightings import record_sightings
from ingest.selectors import forget_pool_counts


class InstallRetractedError(Exception):
    """The install asked for its data to be deleted; nothing more is accepted from it."""


@dataclass(frozen=True, slots=True)
class ContributionResult:
    accepted: int
    inserted: int
    updated: int
    unchanged: int
    # The newest published snapshot, read inside the write: once the rows are committed, nothing
    # that could fail stands between the commit and the answer.
    snapshot: str | None = None


def _queue_recompute() -> None:
    """After a commit that changed cycles: forget the cached pool counts and announce it (a recompute follows)."""
    # Registered robust: the rows are committed by then, so a cache or broker that is down must
    # not turn the answer into an error that makes the client resend; the scheduled recompute
    # catches up, and cached counts expire within POOL_COUNTS_SECONDS.
    try:
        forget_pool_counts()
    finally:
        announce_cycles_changed()


def _lock_install(digest: str) -> None:
    """Serialize the writes of one install (contributions, retractions) until the transaction ends.

    A lock on the install rather than on its contributor row: a retraction of an install never seen
    has no row to lock, and must still not interleave with that install's first contribution. SQLite
    runs one write transaction at a time anyway.
    """
    advisory_lock(install_lock_key(digest))


def _is_retracted(digest: str) -> bool:
    return Retraction.objects.filter(install_hash=digest).exists()


def _lock_contributor(*, digest: str, now: datetime) -> Contributor:
    """Create or touch the contributor and hold its row lock until the transaction ends."""
    Contributor.objects.bulk_create(
        [Contributor(install_hash=digest, first_seen=now, last_seen=now)],
        update_conflicts=True,
        unique_fields=["install_hash"],
        update_fields=["last_seen"],
    )
    return Contributor.objects.only("id", "retracted_at", "number").get(install_hash=digest)


def contribute(*, envelope: Envelope, now: datetime, skipped: int = 0) -> ContributionResult:
    """Store a validated contribution: insert new cycles, update changed ones, never regress.

    A stored copy from a later `generated` than this request's is left as it is. `skipped` is how
    many rows of the request failed the checks (recorded on the receipt). Raises
    InstallRetractedError (and writes nothing) when the install has retracted.
    """
    digest = install_hash(envelope.install)
    generated = envelope.generated
    if not envelope.rows:
        # Nothing to store (an empty envelope, or every row skipped): no contributor row is made for it.
        return _contribute_nothing(digest=digest, envelope=envelope, now=now, skipped=skipped)
    with transaction.atomic():
        _lock_install(digest)
        if _is_retracted(digest):
            raise InstallRetractedError
        contributor = _lock_contributor(digest=digest, now=now)
        record_sightings(contributor_id=contributor.id, rows=envelope.rows, now=now)
        mine = Cycle.objects.filter(contributor_id=contributor.id)
        # A first send, often a whole history, has no stored copies to look up key by key.
        stored = (
            {
                values[0]: values
                for values in mine.filter(_among("cycle_key", [row[0] for row in envelope.rows])).values_list(
                    "cycle_key", "id", "generated", *FACT_FIELDS
                )
            }
            if mine.exists()
            else {}
        )
        new_rows: list[tuple[Any, ...]] = []
        # (stored id, row): stored copies whose facts changed, to overwrite.
        rewrites: list[tuple[int, tuple[Any, ...]]] = []
        # Stored copies of the same facts, extracted later: only `generated` moves on.
        moved_on: list[int] = []
        updated = unchanged = 0
        for row in envelope.rows:
            copy = stored.get(row[0])
            if copy is None:
                new_rows.append(row)
                continue
            if copy[2] > generated:
                unchanged += 1
                continue
            # Rows are (cycle_key, *FACT_FIELDS); the stored copy is (cycle_key, id, generated, *FACT_FIELDS).
            same_facts = row[1:] == copy[3:]
            if same_facts:
                unchanged += 1
                # Same facts from a later extraction: move `generated` on, so an older request
                # that arrives late cannot roll these facts back.
                if copy[2] < generated:
                    moved_on.append(copy[1])
            else:
                updated += 1
                rewrites.append((copy[1], row))
        if new_rows:
            _insert_cycles(new_rows, contributor_id=contributor.id, generated=generated, now=now)
            if contributor.number is None:
                # Its first cycles: the next pseudonym number. Contributors that never store a
                # cycle (retractions of unknown installs, refused requests) never take one.
                Contributor.objects.filter(id=contributor.id).assign_numbers()
        if rewrites:
            _rewrite_cycles(rewrites, generated=generated, now=now)
        if moved_on:
            _move_cycles_on(moved_on, generated=generated, now=now)
        inserted = len(new_rows)
        Receipt.objects.create(
            received_at=now,
            schema=envelope.schema,
            extractor=envelope.extractor,
            accepted=len(envelope.rows),
            inserted=inserted,
            updated=updated,
            unchanged=unchanged,
            skipped=skipped,
        )
        if inserted or updated:
            transaction.on_commit(_queue_recompute, robust=True)
        snapshot = newest_snapshot_id()
    return ContributionResult(
        accepted=len(envelope.rows), inserted=inserted, updated=updated, unchanged=unchanged, snapshot=snapshot
    )


def _contribute_nothing(*, digest: str, envelope: Envelope, now: datetime, skipped: int) -> ContributionResult:
    with transaction.atomic():
        if _is_retracted(digest):
            raise InstallRetractedError
        Receipt.objects.create(
            received_at=now,
            schema=envelope.schema,
            extractor=envelope.extractor,
            accepted=0,
            inserted=0,
            updated=0,
            unchanged=0,
            skipped=skipped,
        )
        snapshot = newest_snapshot_id()
    return ContributionResult(accepted=0, inserted=0, updated=0, unchanged=0, snapshot=snapshot)


def _among(name: str, values: list[Any]) -> Q | RawSQL:
    """The field `name` in values; on PostgreSQL as = ANY(one array), which spares building and parsing a
    statement with a placeholder per value (a third of a 1,000-row request's CPU time)."""
    if not bulk_statements():
        return Q(**{f"{name}__in": values})
    column = connection.ops.quote_name(_column_name(name))
    return RawSQL(f"{column} = ANY(%s)", (values,), BooleanField())  # noqa: S611 (a quoted column name; values are bound)


def _insert_cycles(rows: list[tuple[Any, ...]], *, contributor_id: int, generated: datetime, now: datetime) -> None:
    """Insert new cycles in one statement: COPY on PostgreSQL, bulk_create elsewhere."""
    if not bulk_statements():
        cycles = [
            Cycle(
                contributor_id=contributor_id,
                generated=generated,
                received_at=now,
                **dict(zip(STORED_FIELDS, row, strict=True)),
            )
            for row in rows
        ]
        Cycle.objects.bulk_create(cycles)
        return
    # Binary COPY rather than INSERT: several times faster for a batch, since no value is
    # written out or parsed as text. The rows are validated and the contributor row is
    # locked, so no duplicate can reach it.
    meta = Cycle._meta
    quote = connection.ops.quote_name
    names = ["contributor_id", "cycle_key", *FACT_FIELDS, "generated", "received_at"]
    columns = ", ".join(quote(_column_name(name)) for name in names)
    statement = f"COPY {quote(meta.db_table)} ({columns}) FROM STDIN (FORMAT BINARY)"
    # Binary rows must carry each column's exact type: "varchar(64)" -> "varchar".
    types = [_column_type(_concrete_field(name)).split("(", 1)[0] for name in names]
    copy_in(statement, ((contributor_id, *row, generated, now) for row in rows), types=types, count=len(rows))


def _move_cycles_on(ids: list[int], *, generated: datetime, now: datetime) -> None:
    """Move `generated` on for stored cycles whose facts a later extraction repeated: a resent history is mostly
    these, and writing only the two times (the cells read none of them) costs a fraction of a rewrite."""
    Cycle.objects.filter(_among("id", ids)).update(generated=generated, received_at=now)


def _rewrite_cycles(rewrites: list[tuple[int, tuple[Any, ...]]], *, generated: datetime, now: datetime) -> None:
    """Overwrite the facts of stored cycles in one statement."""
    if not bulk_statements():
        cycles = [
            Cycle(id=pk, generated=generated, received_at=now, **dict(zip(STORED_FIELDS, row, strict=True)))
            for pk, row in rewrites
        ]
        Cycle.objects.bulk_update(cycles, [*FACT_FIELDS, "generated", "received_at"])
        return
    # One UPDATE ... FROM unnest(arrays): a statement whose size does not grow with the
    # number of fields times rows, unlike bulk_update's CASE expressions.
    meta = Cycle._meta
    quote = connection.ops.quote_name
    fields = [field for name in FACT_FIELDS if isinstance(field := meta.get_field(name), models.Field)]
    arrays: list[list[Any]] = [[pk for pk, _ in rewrites]]
    # A row is (cycle_key, *FACT_FIELDS): fact i sits at position i + 1.
    arrays += [[row[position] for _, row in rewrites] for position in range(1, len(fields) + 1)]
    casts = [f"%s::{_column_type(field)}[]" for field in [meta.pk, *fields]]
    columns = [str(f.column) for f in fields]
    names = ["id", *columns]
    assignments = [f"{quote(column)} = v.{quote(column)}" for column in columns]
    assignments += [f"{quote('generated')} = %s", f"{quote('received_at')} = %s"]
    # Identifiers come from the model's meta and are quoted; every value is a bound parameter.
    sql = (
        f"UPDATE {quote(meta.db_table)} AS c SET {', '.join(assignments)} "  # noqa: S608
        f"FROM unnest({', '.join(casts)}) AS v({', '.join(quote(n) for n in names)}) "
        f"WHERE c.{quote('id')} = v.{quote('id')}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [generated, now, *arrays])


def _concrete_field(name: str) -> models.Field[Any, Any]:
    field = Cycle._meta.get_field(name)
    if not isinstance(field, models.Field):
        raise TypeError("only concrete fields have columns")
    return field


def _column_name(name: str) -> str:
    return str(_concrete_field(name).column)


def _column_type(field: models.Field[Any, Any] | None) -> str:
    column_type = field.db_type(connection) if field is not None else None
    if column_type is None:
        raise TypeError("every rewritten column needs a database type")
    return column_type


def store_made_facts(facts: Mapping[int, Sequence[Mapping[str, Any]]], *, generated: datetime, now: datetime) -> int:
    """Store cycles made outside a contribution (the demo pool) by contributor id, each a mapping of stored
    field names, with the contribution's own insert (COPY on PostgreSQL); returns how many were stored.

    Building a model instance per cycle costs far more than the COPY itself, so the demo skips it.
    """
    stored = 0
    with transaction.atomic():
        for contributor_id, cycles in facts.items():
            rows = [tuple(cycle[name] for name in STORED_FIELDS) for cycle in cycles]
            _insert_cycles(rows, contributor_id=contributor_id, generated=generated, now=now)
            stored += len(rows)
        Contributor.objects.filter(id__in=list(facts)).assign_numbers()
    return stored


def retract(*, install: uuid.UUID, now: datetime) -> int:
    """Delete every cycle of an install and remember its hash so later contributions get 410.

    Idempotent: a second retraction deletes nothing and returns 0. An install never seen is
    remembered too, without a contributor row, for RETRACTION_UNSEEN_DAYS: each retraction forgets
    the ones of installs never seen that are older, so the table holds at most that many days of them.
    """
    digest = install_hash(install)
    with transaction.atomic():
        _lock_install(digest)
        Retraction.objects.bulk_create(
            [Retraction(install_hash=digest, retracted_at=now)], ignore_conflicts=True, unique_fields=["install_hash"]
        )
        _forget_unseen_retractions(now=now)
        contributor = Contributor.objects.only("id", "retracted_at").filter(install_hash=digest).first()
        if contributor is None:
            return 0
        deleted, _ = Cycle.objects.filter(contributor_id=contributor.id).delete()
        NameSighting.objects.filter(contributor_id=contributor.id).delete()
        if contributor.retracted_at is None:
            Contributor.objects.filter(id=contributor.id).update(retracted_at=now)
        if deleted:
            transaction.on_commit(_queue_recompute, robust=True)
            _order_retraction(contributor.id)
    return deleted


def _order_retraction(contributor_id: int) -> None:
    """Give the retraction the next order, and hold it until the transaction commits: the last statement of the
    retraction, so retractions commit in the order of their numbers and wait on each other only that long.

    `now` is when the request began, not when it committed: an export or snapshot that read the cycles in
    between would not be told apart by time. By order it is (ingest.selectors.retractions_seen).
    """
    hold_retractions()
    # Read under the lock: the retraction that held it before has committed its number.
    highest = Contributor.objects.aggregate(highest=Max("retraction_order"))["highest"] or 0
    Contributor.objects.filter(id=contributor_id).update(retraction_order=highest + 1)


def hold_retractions() -> None:
    """Keep any retraction from committing until this transaction ends (one that holds this already commits
    first): whatever the transaction checks with ingest.selectors.retracted_after stays so until it commits."""
    advisory_lock(RETRACTION_ORDER_LOCK)


def _forget_unseen_retractions(*, now: datetime) -> None:
    """Delete retractions older than RETRACTION_UNSEEN_DAYS of installs that never stored a cycle.

    Such a retraction deleted nothing: it only turns that install's later contributions away. Kept
    forever, anyone could grow the table without bound by retracting made-up installs. An install
    that did store cycles has a contributor row, and its retraction is kept for good.
    """
    cutoff = now - timedelta(days=settings.RETRACTION_UNSEEN_DAYS)
    seen = Contributor.objects.filter(install_hash=OuterRef("install_hash"))
    Retraction.objects.filter(retracted_at__lt=cutoff).exclude(Exists(seen)).delete()


@dataclass(frozen=True, slots=True)
class PreviewResult:
    accepted: int
    retracted: bool


def preview(*, envelope: Envelope) -> PreviewResult:
    """What a contribution would meet, without writing: only whether its install has retracted."""
    return PreviewResult(accepted=len(envelope.rows), retracted=_is_retracted(install_hash(envelope.install)))
