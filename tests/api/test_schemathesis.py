"""The API against its own OpenAPI document: Schemathesis generates requests from /api/schema/ and runs every check.

Positive cases (valid by the schema) must be accepted, negative ones refused, every answer must match
its documented status and body, and nothing may answer 5xx. The requests go through the real Django
app (WSGI, in process) onto the test database and Redis.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any

import hypothesis
import pytest
import schemathesis
from django.conf import settings
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from django.test import override_settings
from schemathesis.config import SchemathesisConfig

from ingest import contract, contract_rules
from ingest.models import Cycle
from leaderboard import recompute
from tests.cycles.stored import make_contributor, make_cycles
from tests.cycles.wire import envelope, with_cell

# A fixed seed: the same cases on every run, so a failure here is a regression, not luck. 40 fuzzed
# examples per operation, besides the schema's example and the coverage phase's edge cases.
CONFIG = SchemathesisConfig.from_dict(
    {
        "seed": 20261130,
        "generation": {"max-examples": 40, "database": "none"},
        # The contract answers too many rows (over maxItems) with 413, not 400.
        "checks": {"negative_data_rejection": {"expected-statuses": ["400", "405", "413", "415"]}},
    }
)
APP = get_wsgi_application()
schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", APP, config=CONFIG)

INTEGER_COLUMNS = ("role", "u", "a", "tedits", "tpaths", "teerr", "tship", "tver", "tabort", "tshipe")
CONTRIBUTIONS = "POST /api/v1/contributions"
CONTRIBUTE = "/api/v1/contributions"
PREVIEW = "/api/v1/contributions/preview"
RETRACT = "/api/v1/contributions/retract"


@pytest.fixture
def published(db: None) -> None:
    """A ranking snapshot, so pool.json has a document to serve (without one it answers 503)."""
    make_cycles(make_contributor(), count=30, seed=7)
    recompute.publish()


@pytest.fixture
def in_test_transaction() -> Iterator[None]:
    """Keep the test's database connection across requests, as Django's test client does.

    A WSGI request ends by closing connections that are not in autocommit; inside a test's
    transaction that would be every request.
    """
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@pytest.fixture
def unthrottled() -> Iterator[None]:
    with override_settings(INGEST_RATE_PER_ADDRESS="1000000/hour", INGEST_RATE_PER_INSTALL="1000000/hour"):
        yield


def within_what_no_schema_says(case: schemathesis.Case) -> None:
    """Keep a valid case valid where the contract has rules JSON Schema cannot express.

    * `generated` may be at most 5 minutes ahead of the server's clock, and a day at most
      tomorrow: both move with the clock, so a generated time or day later than that is moved to now.
    * In a row: 1 where JSON Schema also allows 1.0 (the contract wants JSON integers), and
      teerr no more than tedits (no schema compares two values).
    * pool.json's since/until must lie between 2024-01-01 and tomorrow, since no later than until,
      and its harness must be one the pool shows (its meta.harnesses: here opencode).
    * With atomic=1, a row that breaks a rule refuses the request (400), and most of those rules
      (between columns, privacy, a day no later than tomorrow, 1 rather than 1.0, no cycle_key
      twice) are beyond JSON Schema: the rows the contract would skip are left out of such a case.
    * A retracted install is refused (410): each operation's cases run in a transaction of their
      own, so no retraction reaches the contributions' cases, and nothing needs changing here.

    Only positive cases are touched, and only in ways that keep them valid by the schema: a
    negative case is sent as generated.
    """
    if case.meta is None or not case.meta.generation.mode.is_positive:
        return
    now = datetime.now(UTC)
    tomorrow = now.date() + timedelta(days=1)
    body: Any = case.body
    if isinstance(body, dict) and isinstance(body.get("generated"), str):
        try:
            generated = datetime.fromisoformat(body["generated"])
        except ValueError:
            generated = None  # a date-time Python cannot read: sent as is, so the mismatch shows
        if generated is not None and generated > now:
            body["generated"] = now.isoformat(timespec="milliseconds").replace("+00:00", "Z")
        for row in body["rows"]:
            if isinstance(row, list) and len(row) == len(body["cols"]):
                within_the_row_rules(row, body["cols"], tomorrow=tomorrow)
        if isinstance(case.query, dict) and case.query.get("atomic") == "1":
            body["rows"] = rows_the_contract_stores(body, now=now)
    if case.operation.path == "/api/v1/pool.json" and isinstance(case.query, dict):
        query: dict[str, Any] = case.query
        for name in ("since", "until"):
            day = _day(query.get(name, ""))
            if day is not None and not contract_rules.FIRST_DAY <= day <= tomorrow:
                query[name] = now.date().isoformat()
        if query.get("since") and query.get("until") and query["since"] > query["until"]:
            query["since"], query["until"] = query["until"], query["since"]
        if query.get("harness"):
            query["harness"] = "opencode"


def within_the_row_rules(row: list[Any], cols: list[str], *, tomorrow: date) -> None:
    """A generated row of stored-row shape as its client would write it (see within_what_no_schema_says)."""
    position = {col: index for index, col in enumerate(cols)}
    day = _day(row[position["day"]])
    if day is not None and day > tomorrow:
        row[position["day"]] = (tomorrow - timedelta(days=1)).isoformat()
    for col in INTEGER_COLUMNS:
        value = row[position[col]] if col in position else None
        if type(value) is float and value.is_integer():
            row[position[col]] = int(value)
    tedits, teerr = row[position["tedits"]], row[position["teerr"]]
    if type(tedits) is int and type(teerr) is int and teerr > tedits:
        row[position["teerr"]] = tedits


def rows_the_contract_stores(body: dict[str, Any], *, now: datetime) -> list[Any]:
    validation = contract.validate_envelope(body, now=now, max_rows=settings.INGEST_MAX_ROWS)
    if validation.envelope is None or validation.row_errors.total > len(validation.row_errors):
        return []
    skipped = {error.row for error in validation.row_errors}
    return [row for index, row in enumerate(body["rows"]) if index not in skipped]


def _day(raw: Any) -> date | None:
    """The day a schema-valid value names, or None (not a day: left for the server to answer)."""
    try:
        return date.fromisoformat(raw)
    except (TypeError, ValueError):
        return None


@pytest.fixture
def reaches_storage(request: pytest.FixtureRequest, published: None) -> Iterator[None]:
    """The contributions' cases must store rows: a schema that fuzzers cannot get past is no description."""
    before = Cycle.objects.count()
    yield
    if getattr(request.node, "operation_label", None) == CONTRIBUTIONS:
        assert Cycle.objects.count() > before, "no generated contribution stored a row"


@schema.parametrize()
# The fixtures are meant to be shared by all of an operation's cases: one snapshot, one transaction.
@hypothesis.settings(suppress_health_check=[hypothesis.HealthCheck.function_scoped_fixture])
def test_it_answers_every_generated_request_as_its_schema_says(
    case: schemathesis.Case, published: None, in_test_transaction: None, unthrottled: None, reaches_storage: None
) -> None:
    within_what_no_schema_says(case)
    case.call_and_validate()


def answer_as_documented(path: str, body: Any, query: dict[str, str] | None = None) -> int:
    """Send one chosen request and run every response check on its answer; return its status."""
    case = schema[path]["POST"].Case(body=body, query=query)
    response = case.call()
    case.validate_response(response)
    return response.status_code


# Answers a fuzzer seldom or never provokes, each checked against its documented status, body and headers.
@pytest.mark.django_db
def test_it_answers_a_retracted_install_as_documented(in_test_transaction: None) -> None:
    body = envelope(2)

    assert answer_as_documented(RETRACT, {"install": body["install"]}) == 200
    assert answer_as_documented(CONTRIBUTE, body) == 410


@pytest.mark.django_db
def test_it_answers_too_many_rows_as_documented(in_test_transaction: None) -> None:
    with override_settings(INGEST_MAX_ROWS=1):
        assert answer_as_documented(CONTRIBUTE, envelope(2)) == 413


@pytest.mark.django_db
def test_it_answers_a_throttled_client_as_documented(in_test_transaction: None) -> None:
    with override_settings(INGEST_RATE_PER_ADDRESS="1/hour"):
        assert answer_as_documented(PREVIEW, envelope(1)) == 200
        assert answer_as_documented(PREVIEW, envelope(1)) == 429


@pytest.mark.django_db
def test_it_answers_an_atomic_request_with_a_bad_row_as_documented(in_test_transaction: None) -> None:
    body = with_cell(envelope(2), 1, "model", "alice-macbook-pro.local")

    assert answer_as_documented(CONTRIBUTE, body, query={"atomic": "0"}) == 202
    assert answer_as_documented(CONTRIBUTE, body, query={"atomic": "1"}) == 400
