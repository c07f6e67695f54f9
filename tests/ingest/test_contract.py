"""The contract's checks on their own: pure Python, no database."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta

import pytest
from pragmatikos_contract.values import privacy_problem

from ingest.columns import COLUMNS_BY_SCHEMA, CONTRACT_TO_FIELD, DEFAULTS_FOR_MISSING, FACT_FIELDS
from ingest.contract import STORED_FIELDS, Validation, validate_envelope
from tests.cycles import PUBLISHED_EFFORTS, PUBLISHED_MODELS
from tests.cycles.wire import envelope, wire_cycle, with_cell
from tests.ingest.rules import REFUSING_RULES, SKIPPING_RULES, Rule

MAX_ROWS = 20_000


def validate(body: object) -> Validation:
    return validate_envelope(body, now=datetime.now(UTC), max_rows=MAX_ROWS)


@pytest.mark.parametrize("rule", REFUSING_RULES, ids=lambda rule: rule.name)
def test_it_refuses_an_envelope_that_breaks_a_rule_and_points_at_it(rule: Rule) -> None:
    result = validate_envelope(rule.change(envelope(3)), now=datetime.now(UTC), max_rows=MAX_ROWS)

    assert result.envelope is None
    assert not result.is_valid
    assert [(e.row, e.col) for e in result.errors] == [(rule.row, rule.col)]
    if rule.secret is not None:
        assert all(rule.secret.lower() not in e.message.lower() for e in result.errors)


@pytest.mark.parametrize("rule", SKIPPING_RULES, ids=lambda rule: rule.name)
def test_it_skips_a_row_that_breaks_a_rule_and_keeps_the_others(rule: Rule) -> None:
    body = rule.change(envelope(3))

    result = validate_envelope(body, now=datetime.now(UTC), max_rows=MAX_ROWS)

    assert result.envelope is not None and result.errors == []
    assert not result.is_valid and result.skipped == 1
    assert [(e.row, e.col) for e in result.row_errors] == [(rule.row, rule.col)]
    kept = [row[0] for row in result.envelope.rows]
    assert kept == [body["rows"][0][0], body["rows"][2][0]]
    if rule.secret is not None:
        assert all(rule.secret.lower() not in e.message.lower() for e in result.row_errors)


@pytest.mark.parametrize("schema", [1, 2, 3])
def test_it_accepts_each_schema_and_fills_missing_columns(schema: int) -> None:
    rows = [wire_cycle(i) for i in range(5)]
    result = validate_envelope(envelope(rows, schema=schema), now=datetime.now(UTC), max_rows=MAX_ROWS)

    assert result.is_valid and result.envelope is not None
    stored = result.envelope.row_dicts()
    assert len(stored) == 5
    for facts, row in zip(rows, stored, strict=True):
        for col in COLUMNS_BY_SCHEMA[3]:
            field = CONTRACT_TO_FIELD[col]
            if col not in COLUMNS_BY_SCHEMA[schema]:
                assert row[field] == DEFAULTS_FOR_MISSING[col]
            elif col == "day":
                assert row[field] == date.fromisoformat(facts[col])
            elif col in ("tcost", "thrs"):
                assert row[field] == round(facts[col], 4)
            elif col == "latmed":
                assert row[field] == round(facts[col], 2)
            else:
                assert row[field] == facts[col]


def test_it_lowercases_and_trims_tokens_and_rounds_numbers() -> None:
    body = envelope(
        [wire_cycle(1, model="  Claude-Opus-4.7 ", prov="Anthropic", bv="HIGH", tcost=1.234567, thrs=2.00016)]
    )
    body = with_cell(body, 0, "latmed", 12.345)

    result = validate(body)

    assert result.envelope is not None
    row = result.envelope.row_dicts()[0]
    assert (row["model"], row["provider"], row["builder_effort"]) == ("claude-opus-4.7", "anthropic", "high")
    assert (row["cost_usd"], row["active_hours"], row["step_seconds_median"]) == (1.2346, 2.0002, 12.35)


@pytest.mark.parametrize(
    ("raw", "stored"),
    [
        # The made-up release suffixes one new install put on every page (issue 30): stored as the model they name.
        ("us.anthropic.claude-opus-4-5-20251101-v5551234:0", "claude-opus-4.5"),
        ("anthropic.claude-opus-4-5-v8675309:0", "claude-opus-4.5"),
        ("claude-opus-4-5-20991231", "claude-opus-4.5"),
        ("Claude-Sonnet-4@20250514", "claude-sonnet-4"),
        ("claude-opus-4-5-20251101-20251101", "claude-opus-4.5"),  # a second suffix is dropped too
        ("qwen3:32b", "qwen3:32b"),
    ],
)
def test_it_stores_model_names_canonical_in_every_model_column(raw: str, stored: str) -> None:
    result = validate(envelope([wire_cycle(1, model=raw, pm=raw, pp="bedrock", bm=raw, bp="bedrock")]))

    assert result.envelope is not None and not result.row_errors
    row = result.envelope.row_dicts()[0]
    assert (row["model"], row["planner_model"], row["builder_model"]) == (stored, stored, stored)


def test_it_checks_the_canonical_name_again_and_keeps_providers_as_sent() -> None:
    # Joining version digits with dots makes an address the raw name did not hold.
    rows = [wire_cycle(1, model="x-10-1-2-3"), wire_cycle(2, prov="anthropic.claude-3-5-v1:0")]

    result = validate(envelope(rows))

    assert result.envelope is not None
    assert [error.as_dict() for error in result.row_errors] == [
        {"row": 0, "col": "model", "message": "must not be shaped like an IPv4 address"}
    ]
    assert result.envelope.row_dicts()[0]["provider"] == "anthropic.claude-3-5-v1:0"


def test_it_keeps_the_case_of_versions() -> None:
    body = envelope([wire_cycle(1, hversion=" 1.4.2-RC1 ")], extractor="26.9.0-Beta")

    result = validate(body)

    assert result.envelope is not None
    assert result.envelope.row_dicts()[0]["harness_version"] == "1.4.2-RC1"
    assert result.envelope.extractor == "26.9.0-Beta"


def test_it_accepts_the_boundaries_of_every_range() -> None:
    tomorrow = (datetime.now(UTC).date() + timedelta(days=1)).isoformat()
    edge = wire_cycle(
        2, day=tomorrow, u=2000, a=50000, tedits=20000, teerr=20000, tcost=5000, thrs=72, latmed=600, tshipe=0
    )
    low = wire_cycle(3, day="2024-01-01", u=0, a=0, tedits=0, teerr=0, tpaths=0, tship=0, tver=0, tcost=0, thrs=0)
    low["latmed"] = -1
    result = validate(envelope([edge, low]))

    assert result.is_valid, result.errors


def test_it_accepts_uppercase_installs_and_a_generated_time_just_inside_the_tolerance() -> None:
    body = envelope(2)
    body["install"] = body["install"].upper()
    body["generated"] = (datetime.now(UTC) + timedelta(minutes=4)).isoformat().replace("+00:00", "Z")

    assert validate(body).is_valid


def test_it_flags_too_many_rows_before_reading_them() -> None:
    body = envelope(1)
    body["rows"] = [["not", "a", "row"]] * (MAX_ROWS + 1)

    result = validate_envelope(body, now=datetime.now(UTC), max_rows=MAX_ROWS)

    assert result.too_many_rows and result.envelope is None


def test_it_reports_every_bad_row_not_just_the_first() -> None:
    body = envelope(6)
    for row in (1, 3, 5):
        body = with_cell(body, row, "role", 9)

    result = validate(body)

    assert [(e.row, e.col) for e in result.row_errors] == [(1, "role"), (3, "role"), (5, "role")]
    assert result.skipped == 3
    assert result.envelope is not None and len(result.envelope.rows) == 3


def test_it_counts_a_row_with_several_bad_values_once() -> None:
    body = with_cell(with_cell(envelope(3), 1, "role", 9), 1, "u", -1)

    result = validate(body)

    assert [(e.row, e.col) for e in result.row_errors] == [(1, "role"), (1, "u")]
    assert result.skipped == 1


def test_it_skips_the_repeat_of_a_cycle_key_and_keeps_its_first_row() -> None:
    body = envelope(3)
    body = with_cell(body, 2, "cycle_key", body["rows"][0][0])

    result = validate(body)

    assert [(e.row, e.col) for e in result.row_errors] == [(2, "cycle_key")]
    assert result.envelope is not None
    assert [row[0] for row in result.envelope.rows] == [body["rows"][0][0], body["rows"][1][0]]


@pytest.mark.parametrize("value", ["gpt.10.0.0.1", "x.192.168.1.1", "10.0.0.1", "proxy-10.0.0.1:8080", "a.b.1.2.3.4"])
def test_it_finds_an_ipv4_address_anywhere_in_a_string(value: str) -> None:
    assert privacy_problem(value) == "must not be shaped like an IPv4 address"


@pytest.mark.parametrize("value", ["claude-opus-4.7", "gemini-2.5.1", "1.2.3", "1234.1.1.1x"])
def test_it_lets_versions_with_fewer_than_four_dotted_parts_through(value: str) -> None:
    assert privacy_problem(value) is None


def test_it_passes_the_published_model_and_effort_names() -> None:
    assert len(PUBLISHED_MODELS) > 5
    assert [name for name in (*PUBLISHED_MODELS, *PUBLISHED_EFFORTS) if privacy_problem(name) is not None] == []


def test_it_validates_twenty_thousand_rows() -> None:
    # Functional only; the speed is measured in bench/ingest.py, never asserted in a test.
    body = json.loads(json.dumps(envelope(MAX_ROWS)))

    result = validate(body)

    assert result.is_valid and result.envelope is not None
    assert len(result.envelope.rows) == MAX_ROWS


def test_it_orders_normalized_rows_as_the_cycle_key_then_the_facts() -> None:
    # The storage writes rows positionally in this order (COPY, the stored-copy comparison).
    assert ("cycle_key", *FACT_FIELDS) == STORED_FIELDS


def test_it_builds_only_the_errors_it_lists_and_counts_the_rest() -> None:
    body = json.loads(json.dumps(envelope(2000)))
    for row in body["rows"]:
        row[body["cols"].index("u")] = -1
        row[body["cols"].index("tabort")] = 7

    result = validate(body)

    assert result.skipped == 2000
    assert len(result.row_errors) == 100 and result.row_errors.total == 4000
    assert [(e.row, e.col) for e in result.row_errors[:4]] == [(0, "u"), (0, "tabort"), (1, "u"), (1, "tabort")]


@pytest.mark.parametrize("col", ["tcost", "thrs", "latmed"])
def test_it_stores_a_negative_zero_as_zero(col: str) -> None:
    """-0.0 is in range and valid JSON; stored as sent it would print as -0 in every download."""
    body = envelope(1)
    body["rows"][0][body["cols"].index(col)] = -0.0

    result = validate(json.loads(json.dumps(body)))  # as the wire carries it: "-0.0"

    assert result.is_valid and result.envelope is not None
    value = result.envelope.row_dicts()[0][CONTRACT_TO_FIELD[col]]
    assert value == 0 and str(value) == "0.0"
