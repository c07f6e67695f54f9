"""The ingest endpoints over HTTP, against real PostgreSQL and the configured cache."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from ingest.columns import COLUMNS_BY_SCHEMA, CONTRACT_TO_FIELD, DEFAULTS_FOR_MISSING, FACT_FIELDS
from ingest.models import Contributor, Cycle, Receipt, install_hash
from ingest.selectors import POOL_COUNTS_CACHE_KEY
from leaderboard.models import Snapshot
from tests.cycles.wire import envelope, wire_cycle, with_cell
from tests.ingest.conftest import CONTRIBUTE, STATS, Api, stored_counts
from tests.ingest.rules import REFUSING_RULES, SKIPPING_RULES, Rule

pytestmark = pytest.mark.django_db


def stored_facts(install: str) -> dict[str, dict[str, object]]:
    rows = Cycle.objects.filter(contributor__install_hash=install_hash(uuid.UUID(install)))
    return {row["cycle_key"]: row for row in rows.values("cycle_key", *FACT_FIELDS)}


@pytest.mark.parametrize("schema", [1, 2, 3])
def test_it_accepts_a_plugin_envelope_of_each_schema(api: Api, schema: int) -> None:
    rows = [wire_cycle(i) for i in range(12)]
    body = envelope(rows, schema=schema)
    assert body["cols"] == list(COLUMNS_BY_SCHEMA[schema])

    response = api.contribute(body)

    assert response.status_code == 202
    assert response.json() == {
        "accepted": 12,
        "inserted": 12,
        "updated": 0,
        "unchanged": 0,
        "snapshot": None,
        "skipped": 0,
        "errors": [],
    }
    stored = stored_facts(body["install"])
    assert sorted(stored) == sorted(row["cycle_key"] for row in rows)
    for facts in rows:
        row = stored[facts["cycle_key"]]
        for col in COLUMNS_BY_SCHEMA[3]:
            expected = facts[col] if col in COLUMNS_BY_SCHEMA[schema] else DEFAULTS_FOR_MISSING[col]
            if col == "day":
                assert str(row["day"]) == expected
            elif col in ("tcost", "thrs", "latmed"):
                assert row[CONTRACT_TO_FIELD[col]] == pytest.approx(expected, abs=0.005)
            elif col != "cycle_key":
                assert row[CONTRACT_TO_FIELD[col]] == expected


@pytest.mark.parametrize("rule", REFUSING_RULES, ids=lambda rule: rule.name)
def test_it_refuses_an_envelope_that_breaks_a_rule_with_400_and_stores_nothing(api: Api, rule: Rule) -> None:
    api.contribute(envelope(2))
    before = stored_counts()

    response = api.contribute(rule.change(envelope(3)))

    assert response.status_code == 400
    body = response.json()
    assert set(body) == {"error", "errors"}
    assert body["error"].endswith("nothing was stored.")
    assert [(e["row"], e["col"]) for e in body["errors"]] == [(rule.row, rule.col)]
    assert stored_counts() == before
    if rule.secret is not None:
        assert rule.secret.lower() not in response.content.decode().lower()


@pytest.mark.parametrize("rule", SKIPPING_RULES, ids=lambda rule: rule.name)
def test_it_skips_a_row_that_breaks_a_rule_stores_the_others_and_reports_it(api: Api, rule: Rule) -> None:
    body = rule.change(envelope(3))

    response = api.contribute(body)

    assert response.status_code == 202
    answer = response.json()
    assert (answer["accepted"], answer["inserted"], answer["skipped"]) == (2, 2, 1)
    assert [(e["row"], e["col"]) for e in answer["errors"]] == [(rule.row, rule.col)]
    assert sorted(stored_facts(body["install"])) == sorted([body["rows"][0][0], body["rows"][2][0]])
    if rule.secret is not None:
        assert rule.secret.lower() not in response.content.decode().lower()


@pytest.mark.parametrize("rule", SKIPPING_RULES, ids=lambda rule: rule.name)
def test_it_refuses_a_bad_row_with_400_and_stores_nothing_when_atomic(api: Api, rule: Rule) -> None:
    api.contribute(envelope(2))
    before = stored_counts()

    response = api.post(CONTRIBUTE + "?atomic=1", rule.change(envelope(3)))

    assert response.status_code == 400
    assert response.json()["error"].endswith("nothing was stored.")
    assert [(e["row"], e["col"]) for e in response.json()["errors"]] == [(rule.row, rule.col)]
    assert stored_counts() == before


def test_it_stores_nothing_when_one_row_of_a_thousand_is_bad_and_atomic(api: Api) -> None:
    body = with_cell(envelope(1000), 999, "model", "ses_0123")

    response = api.post(CONTRIBUTE + "?atomic=1", body)

    assert response.status_code == 400
    assert response.json()["errors"] == [
        {"row": 999, "col": "model", "message": response.json()["errors"][0]["message"]}
    ]
    assert stored_counts() == (0, 0, 0)


def test_it_stores_the_other_999_when_one_row_of_a_thousand_is_bad(api: Api) -> None:
    body = with_cell(envelope(1000), 999, "model", "ses_0123")

    response = api.contribute(body)

    assert response.status_code == 202
    assert (response.json()["inserted"], response.json()["skipped"]) == (999, 1)
    assert Cycle.objects.count() == 999
    assert not Cycle.objects.filter(cycle_key=body["rows"][999][0]).exists()


def test_it_lists_at_most_a_hundred_errors_and_says_how_many(api: Api) -> None:
    body = envelope(150)
    for row in range(150):
        body = with_cell(body, row, "u", -1)

    skipped = api.contribute(body)
    refused = api.post(CONTRIBUTE + "?atomic=1", body)

    assert skipped.status_code == 202
    assert (skipped.json()["accepted"], skipped.json()["skipped"], len(skipped.json()["errors"])) == (0, 150, 100)
    assert refused.status_code == 400
    assert refused.json()["error"].startswith("150 values break the contribution contract")
    assert len(refused.json()["errors"]) == 100


def test_it_counts_a_resend_unchanged_and_a_changed_row_updated(api: Api) -> None:
    install = str(uuid.uuid4())
    rows = [wire_cycle(i, tship=0) for i in range(1, 5)]
    first = datetime.now(UTC) - timedelta(hours=2)
    assert api.contribute(envelope(rows, install=install, generated=first)).json()["inserted"] == 4

    resend = api.contribute(envelope(rows, install=install, generated=first + timedelta(minutes=1)))
    rows[1] = {**rows[1], "tship": 1}
    landed = api.contribute(envelope([*rows, wire_cycle(9)], install=install, generated=first + timedelta(minutes=2)))

    assert resend.status_code == 202
    assert resend.json() | {"snapshot": None} == {
        "accepted": 4,
        "inserted": 0,
        "updated": 0,
        "unchanged": 4,
        "snapshot": None,
        "skipped": 0,
        "errors": [],
    }
    assert landed.json() | {"snapshot": None} == {
        "accepted": 5,
        "inserted": 1,
        "updated": 1,
        "unchanged": 3,
        "snapshot": None,
        "skipped": 0,
        "errors": [],
    }
    assert stored_facts(install)[rows[1]["cycle_key"]]["shipped"] == 1
    assert Cycle.objects.count() == 5


def test_it_never_regresses_a_row_stored_from_a_later_extraction(api: Api) -> None:
    install = str(uuid.uuid4())
    now = datetime.now(UTC)
    newer = wire_cycle(4, tship=1)
    older = wire_cycle(4, tship=0)
    api.contribute(envelope([newer], install=install, generated=now - timedelta(minutes=1)))

    late = api.contribute(envelope([older], install=install, generated=now - timedelta(minutes=30)))

    assert late.json()["unchanged"] == 1 and late.json()["updated"] == 0
    assert stored_facts(install)[newer["cycle_key"]]["shipped"] == 1
    stored = Cycle.objects.get(cycle_key=newer["cycle_key"])
    assert stored.generated > timezone.now() - timedelta(minutes=2)


def test_it_moves_generated_on_for_unchanged_rows_so_a_late_older_copy_cannot_win(api: Api) -> None:
    install = str(uuid.uuid4())
    now = datetime.now(UTC)
    shipped = wire_cycle(4, tship=1)
    api.contribute(envelope([shipped], install=install, generated=now - timedelta(hours=3)))
    api.contribute(envelope([shipped], install=install, generated=now - timedelta(hours=1)))

    late = api.contribute(envelope([{**shipped, "tship": 0}], install=install, generated=now - timedelta(hours=2)))

    assert late.json()["unchanged"] == 1
    assert stored_facts(install)[shipped["cycle_key"]]["shipped"] == 1


def test_it_keeps_the_rows_of_two_installs_apart(api: Api) -> None:
    rows = [wire_cycle(i) for i in range(3)]

    first = api.contribute(envelope(rows))
    second = api.contribute(envelope(rows))

    assert first.json()["inserted"] == second.json()["inserted"] == 3
    assert Contributor.objects.count() == 2 and Cycle.objects.count() == 6


def test_it_writes_a_receipt_per_accepted_request_without_an_address(api: Api) -> None:
    api.contribute(envelope(3, extractor="26.9.1"), REMOTE_ADDR="203.0.113.9")

    receipt = Receipt.objects.get()

    assert (receipt.schema, receipt.extractor, receipt.accepted, receipt.inserted) == (3, "26.9.1", 3, 3)
    assert "203.0.113.9" not in json.dumps(list(Receipt.objects.values()), default=str)


def test_it_answers_the_newest_published_snapshot(api: Api) -> None:
    snapshots = [
        Snapshot.objects.create(
            created_at=timezone.now(), cycles=0, judged=0, contributors=0, fingerprint=str(n), document={}
        )
        for n in range(2)
    ]

    response = api.contribute(envelope(1))

    assert response.json()["snapshot"] == str(snapshots[-1].id)


def test_it_retracts_an_install_and_refuses_it_afterwards_with_410(api: Api) -> None:
    install = str(uuid.uuid4())
    api.contribute(envelope(7, install=install))
    api.contribute(envelope([wire_cycle(50)]))

    retracted = api.retract(install.upper())
    again = api.retract(install)
    later = api.contribute(envelope(2, install=install))
    preview = api.preview(envelope(2, install=install))

    assert (retracted.status_code, retracted.json()) == (200, {"deleted": 7})
    assert (again.status_code, again.json()) == (200, {"deleted": 0})
    assert later.status_code == 410 and "retracted" in later.json()["error"]
    assert preview.status_code == 410
    assert Cycle.objects.count() == 1
    assert Contributor.objects.get(install_hash=install_hash(uuid.UUID(install))).is_retracted


def test_it_remembers_a_retraction_of_an_install_never_seen(api: Api) -> None:
    install = str(uuid.uuid4())

    assert api.retract(install).json() == {"deleted": 0}
    assert api.contribute(envelope(1, install=install)).status_code == 410
    assert Cycle.objects.count() == 0


@pytest.mark.parametrize("body", [{}, {"install": "nope"}, {"install": str(uuid.uuid4()), "extra": 1}, [1]])
def test_it_refuses_a_retraction_without_exactly_an_install(api: Api, body: object) -> None:
    response = api.post("/api/v1/contributions/retract", body)

    assert response.status_code == 400
    assert response.json()["errors"][0]["col"] == "install"


def test_it_previews_readable_rows_and_writes_nothing(api: Api) -> None:
    body = envelope([wire_cycle(3, model="Claude-Opus-5", tcost=1.234567)], schema=2)

    response = api.preview(body)

    assert response.status_code == 200
    preview = response.json()
    assert (preview["accepted"], preview["schema"], preview["extractor"]) == (1, 2, "26.9.0")
    row = preview["rows"][0]
    assert (row["model"], row["cost_usd"], row["harness"], row["effort"]) == ("claude-opus-5", 1.2346, "opencode", "")
    assert row["human_turns"] == wire_cycle(3)["u"] and "u" not in row
    assert "install" not in preview
    assert stored_counts() == (0, 0, 0)


def test_it_previews_with_the_same_checks(api: Api) -> None:
    body = with_cell(envelope(3), 2, "tcost", -5)

    response = api.preview(body)

    assert response.status_code == 200
    assert [row["cycle_key"] for row in response.json()["rows"]] == [body["rows"][0][0], body["rows"][1][0]]
    assert response.json()["skipped"] == 1
    assert response.json()["errors"] == [
        {"row": 2, "col": "tcost", "message": "must be a finite number from 0 to 5000"}
    ]


def test_it_keeps_only_the_keyed_hash_of_an_install_in_any_table(api: Api) -> None:
    install = str(uuid.uuid4())
    api.contribute(envelope(5, install=install.upper()))
    api.preview(envelope(5, install=install))
    api.retract(str(uuid.uuid4()))

    dump = []
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names():
            cursor.execute(f'SELECT row_to_json(t)::text FROM "{table}" AS t')  # noqa: S608
            dump += [row[0] for row in cursor.fetchall()]
    text = "\n".join(dump).lower()

    assert install_hash(uuid.UUID(install)) in text
    assert install.lower() not in text
    assert install.replace("-", "").lower() not in text


def test_it_writes_a_thousand_rows_in_as_many_statements_as_ten(api: Api) -> None:
    def statements(rows: int) -> int:
        install = str(uuid.uuid4())
        api.contribute(envelope(rows, install=install, generated=datetime.now(UTC) - timedelta(hours=1)))
        changed = [wire_cycle(i, tabort=1 - wire_cycle(i)["tabort"]) for i in range(rows)]
        with CaptureQueriesContext(connection) as captured:
            response = api.contribute(envelope([*changed, wire_cycle(rows + 1)], install=install))
        assert response.json()["updated"] == rows and response.json()["inserted"] == 1
        return len(captured.captured_queries)

    assert statements(10) == statements(1000)
    assert statements(1000) <= 14  # two of them note the day's names for the public-name rule


def test_it_counts_the_pool_in_stats(api: Api) -> None:
    judged = [wire_cycle(i, tedits=2, tpaths=1, a=5) for i in range(4)]
    unjudged = [wire_cycle(10, tedits=0, teerr=0, tpaths=0, tship=0, tver=0), wire_cycle(11, a=0)]
    api.contribute(envelope(judged + unjudged))
    gone = str(uuid.uuid4())
    api.contribute(envelope([wire_cycle(20)], install=gone))
    api.retract(gone)

    stats = api.client.get(STATS).json()

    assert (stats["cycles"], stats["judged"], stats["contributors"], stats["snapshot"]) == (6, 4, 1, None)
    assert abs(datetime.fromisoformat(stats["generated"]) - datetime.now(UTC)) < timedelta(minutes=1)


def stats_cycles(api: Api) -> int:
    return int(api.client.get(STATS).json()["cycles"])


def test_it_caches_the_stats_counts_for_thirty_seconds(api: Api) -> None:
    from tests.cycles.stored import make_contributor, make_cycles

    api.contribute(envelope(3))
    first = stats_cycles(api)
    # Rows stored without a commit hook: only an expired or forgotten cache would count them.
    make_cycles(make_contributor(), count=5)

    assert (first, stats_cycles(api)) == (3, 3)
    backend = caches["default"]
    if isinstance(backend, RedisCache):
        ttl = backend._cache.get_client().ttl(backend.make_key(POOL_COUNTS_CACHE_KEY))
        assert 0 < ttl <= 30
    with CaptureQueriesContext(connection) as captured:
        api.client.get(STATS)
    assert not any("ingest_cycle" in query["sql"] for query in captured.captured_queries)


def test_it_answers_fresh_stats_right_after_a_contribution_or_retraction(
    api: Api, django_capture_on_commit_callbacks: Any
) -> None:
    install = str(uuid.uuid4())
    api.contribute(envelope(3, install=install))
    assert stats_cycles(api) == 3

    with django_capture_on_commit_callbacks(execute=True):
        api.contribute(envelope([wire_cycle(i) for i in range(3, 7)], install=install))
    after_contribution = stats_cycles(api)
    with django_capture_on_commit_callbacks(execute=True):
        api.retract(install)

    assert (after_contribution, stats_cycles(api)) == (7, 0)


def test_it_documents_every_endpoint_in_the_openapi_schema(api: Api) -> None:
    schema = api.client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    docs = api.client.get("/api/docs/")

    assert schema.status_code == 200 and docs.status_code == 200
    paths = json.loads(schema.content)["paths"]
    for path in ("contributions", "contributions/preview", "contributions/retract", "stats"):
        assert f"/api/v1/{path}" in paths
    assert "202" in paths["/api/v1/contributions"]["post"]["responses"]
    assert "/api/v1/{path}" not in paths
    assert "drf_spectacular_sidecar/redoc" in docs.content.decode()
    assert "cdn." not in docs.content.decode()


def test_it_never_serves_counts_begun_before_a_commit_that_changed_rows(api: Api) -> None:
    from django.core.cache import cache

    from ingest.selectors import POOL_VERSION_KEY, count_pool, forget_pool_counts, pool_counts
    from tests.cycles.stored import make_contributor, make_cycles

    api.contribute(envelope(3))
    version_before = cache.get(POOL_VERSION_KEY, 0)
    slow_count = count_pool()  # a stats request starts counting...
    make_cycles(make_contributor(), count=5)  # ...a contribution commits...
    forget_pool_counts()  # ...and retires the cached counts...
    cache.set(POOL_COUNTS_CACHE_KEY, (version_before, slow_count), 30)  # ...before the slow count is stored.

    assert pool_counts().cycles == slow_count.cycles + 5 == 8
