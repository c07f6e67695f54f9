"""Property tests: any valid envelope round-trips; a single bad value is never stored and costs only its row."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ingest.columns import COLUMNS_BY_SCHEMA, CONTRACT_TO_FIELD, DEFAULTS_FOR_MISSING, FACT_FIELDS
from ingest.models import Cycle, install_hash
from tests.cycles import PUBLISHED_EFFORTS, PUBLISHED_MODELS
from tests.cycles.wire import envelope
from tests.ingest.conftest import Api, stored_counts

pytestmark = pytest.mark.django_db

TOKEN_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789._:+-"

# Tokens: the published names, and random ones the privacy checks must let through
# (letters only after the first character keeps hex runs, extensions and prefixes out).
tokens = st.sampled_from(PUBLISHED_MODELS) | st.builds(
    lambda first, rest: first + rest,
    st.sampled_from("ghjkmnpqrtvwyz"),
    st.text(alphabet="ghijklmnopqrstuvwxyz-", max_size=20),
)
efforts = st.sampled_from(("", *PUBLISHED_EFFORTS))
money = st.floats(min_value=0, max_value=5000, allow_nan=False, allow_infinity=False)
hours = st.floats(min_value=0, max_value=72, allow_nan=False, allow_infinity=False)
latency = st.just(-1) | st.floats(min_value=0, max_value=600, allow_nan=False, allow_infinity=False)


@st.composite
def cycle_rows(draw: st.DrawFn, key: int) -> dict[str, Any]:
    edits = draw(st.integers(0, 20000))
    paths = draw(st.integers(0, 1)) if edits else 0
    ship_status = draw(st.integers(0, 2))
    shipped = draw(st.integers(0, 1)) if edits and paths and ship_status == 0 else 0
    planner = draw(st.just("") | tokens)
    builder = draw(st.just("") | tokens)
    today = datetime.now(UTC).date()
    day = draw(st.dates(min_value=date(2024, 1, 1), max_value=today + timedelta(days=1)))
    return {
        "cycle_key": f"{key:016x}",
        "day": day.isoformat(),
        "model": draw(tokens),
        "prov": draw(tokens),
        "role": draw(st.integers(0, 2)),
        "pm": planner,
        "pp": draw(tokens) if planner else "",
        "bm": builder,
        "bp": draw(tokens) if builder else "",
        "u": draw(st.integers(0, 2000)),
        "a": draw(st.integers(0, 50000)),
        "tedits": edits,
        "tpaths": paths,
        "teerr": draw(st.integers(0, edits)),
        "tcost": draw(money),
        "tship": shipped,
        "thrs": draw(hours),
        "tver": draw(st.integers(0, 1)) if edits else 0,
        "tabort": draw(st.integers(0, 1)),
        "latmed": draw(latency),
        "tshipe": ship_status,
        "variant": draw(efforts),
        "pv": draw(efforts),
        "bv": draw(efforts),
        "harness": draw(st.sampled_from(["opencode", "claude-code", "codex"])),
        "hversion": draw(st.sampled_from(["", "1.14.2", "0.9.0-beta+7", "2"])),
    }


@st.composite
def envelopes(draw: st.DrawFn) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    schema = draw(st.sampled_from([1, 2, 3]))
    keys = draw(st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=8, unique=True))
    rows = [draw(cycle_rows(key)) for key in keys]
    missing = {col: value for col, value in DEFAULTS_FOR_MISSING.items() if col not in COLUMNS_BY_SCHEMA[schema]}
    rows = [{**row, **missing} for row in rows]
    body = envelope(
        rows,
        schema=schema,
        extractor=draw(st.sampled_from(["26.9.0", "1", "0.4.2-rc.1"])),
        install=uuid.UUID(int=draw(st.integers(0, 2**128 - 1))),
        generated=datetime.now(UTC) - timedelta(seconds=draw(st.integers(0, 10**7))),
    )
    return body, rows


def expected_field(col: str, value: Any) -> Any:
    if col in ("tcost", "thrs"):
        return round(value, 4)
    if col == "latmed":
        return round(value, 2)
    return value


PROPERTY_SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY_SETTINGS
@given(case=envelopes())
def test_it_round_trips_any_valid_envelope_through_preview_and_storage(case: tuple[dict[str, Any], list]) -> None:
    body, rows = case
    # A fresh install per example: examples must not meet each other's stored rows.
    body = {**body, "install": str(uuid.uuid4())}
    api = Api(Client())

    preview = api.preview(body)
    stored_response = api.contribute(body)

    assert preview.status_code == 200, preview.json()
    assert stored_response.status_code == 202, stored_response.json()
    previewed = {row["cycle_key"]: row for row in preview.json()["rows"]}
    digest = install_hash(uuid.UUID(body["install"]))
    stored = {
        row["cycle_key"]: row
        for row in Cycle.objects.filter(contributor__install_hash=digest).values("cycle_key", *FACT_FIELDS)
    }
    assert set(previewed) == set(stored) == {row["cycle_key"] for row in rows}
    for row in rows:
        for col in COLUMNS_BY_SCHEMA[3]:
            field = CONTRACT_TO_FIELD[col]
            want = expected_field(col, row[col])
            assert previewed[row["cycle_key"]][field] == want, col
            got = stored[row["cycle_key"]][field]
            assert (got.isoformat() if isinstance(got, date) else got) == want, col


def invalid_values(col: str) -> st.SearchStrategy[Any]:
    """Values no row may hold in `col`, whatever the other cells say."""
    wrong_types = (
        st.sampled_from([None, [], {}, True]) if col not in ("tpaths", "tship", "tver", "tabort") else st.none()
    )
    privacy = st.sampled_from(
        ["a b", "x/y", "c:\\d", "~me", "me@host.org", "model.py", "10.1.2.3", "localhost", "ses_1", "ffffffffffff"]
    ) | st.sampled_from(["sk-" + "q" * 16, "akia" + "z" * 16])
    by_column: dict[str, st.SearchStrategy[Any]] = {
        "cycle_key": st.text(max_size=20).filter(lambda s: not (len(s) == 16 and set(s) <= set("0123456789abcdef"))),
        "day": st.sampled_from(["2023-12-31", "2026-13-01", "2026-02-29", "26-01-01", "2099-01-01", ""]),
        "role": st.integers().filter(lambda n: n not in (0, 1, 2)),
        "u": st.integers().filter(lambda n: not 0 <= n <= 2000),
        "a": st.integers().filter(lambda n: not 0 <= n <= 50000),
        "tedits": st.integers().filter(lambda n: not 0 <= n <= 20000),
        "teerr": st.integers().filter(lambda n: not 0 <= n <= 20000),
        "tcost": st.floats(allow_nan=False, allow_infinity=False).filter(lambda x: not 0 <= x <= 5000),
        "thrs": st.floats(allow_nan=False, allow_infinity=False).filter(lambda x: not 0 <= x <= 72),
        "latmed": st.floats(allow_nan=False, allow_infinity=False).filter(lambda x: x != -1 and not 0 <= x <= 600),
        "tshipe": st.integers().filter(lambda n: n not in (0, 1, 2)),
        "hversion": privacy | st.sampled_from(["v1", ".1", "1" * 33]),
    }
    for flag in ("tpaths", "tship", "tver", "tabort"):
        by_column[flag] = st.integers().filter(lambda n: n not in (0, 1)) | st.sampled_from([0.0, 1.0, True])
    for token in ("model", "prov", "harness"):
        by_column[token] = privacy | st.sampled_from(["", "UPPER_AND!", "é"])
    for optional in ("pm", "pp", "bm", "bp", "variant", "pv", "bv"):
        by_column[optional] = privacy
    return wrong_types | by_column[col]


@st.composite
def mutated(draw: st.DrawFn) -> tuple[dict[str, Any], int, str, Any]:
    body, _ = draw(envelopes())
    row = draw(st.integers(0, len(body["rows"]) - 1))
    col = draw(st.sampled_from(body["cols"]))
    value = draw(invalid_values(col))
    body["rows"][row][body["cols"].index(col)] = value
    return body, row, col, value


@PROPERTY_SETTINGS
@given(case=mutated())
def test_it_never_stores_a_single_invalid_value(case: tuple[dict[str, Any], int, str, Any]) -> None:
    body, row, col, value = case
    body = {**body, "install": str(uuid.uuid4())}
    api = Api(Client())
    before = stored_counts()

    response = api.contribute(body)

    answer = response.json()
    if value is None or isinstance(value, list | dict):
        # Not a JSON scalar: the envelope itself is wrong, and nothing is stored.
        assert response.status_code == 400
        assert stored_counts() == before
    else:
        # A bad value costs only its row.
        assert response.status_code == 202
        assert answer["skipped"] == 1 and answer["accepted"] == len(body["rows"]) - 1
        digest = install_hash(uuid.UUID(body["install"]))
        keys = set(Cycle.objects.filter(contributor__install_hash=digest).values_list("cycle_key", flat=True))
        assert keys == {r[0] for i, r in enumerate(body["rows"]) if i != row}
    assert {"row": row, "col": col} in [{"row": e["row"], "col": e["col"]} for e in answer["errors"]]
    if isinstance(value, str) and len(value) >= 4 and col != "cycle_key":
        assert json.dumps(value)[1:-1] not in response.content.decode()
