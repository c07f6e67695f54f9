"""The OpenAPI document's request bodies say what the contract says (ingest.openapi, cycle-record.md).

Checked with a JSON Schema 2020-12 validator against the contract's own rule corpus (tests/ingest/rules.py):
every fault of the envelope is outside the schema, every row-level fault keeps the envelope valid
but leaves the row's stored shape, and the few rules no schema can state are named here.
"""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema
import pytest
from django.test import Client
from hypothesis import given
from hypothesis import strategies as st
from pragmatikos_contract.values import TOKEN_RE, VERSION_RE, privacy_problem

from ingest import openapi
from ingest.api import ENVELOPE_REQUEST
from ingest.columns import COLUMNS_BY_SCHEMA
from tests.cycles.wire import envelope
from tests.ingest.conftest import PREVIEW
from tests.ingest.rules import PRIVACY_RULES, REFUSING_RULES, SKIPPING_RULES, Rule

# Rules that move with the clock, compare two cells or two rows, or tell 2 from 2.0 (JSON Schema's
# integers include 2.0): checked by the server, stated in the schema's descriptions only.
BEYOND_JSON_SCHEMA = {
    "generated_in_the_future",
    "day_after_tomorrow",
    "teerr_over_tedits",
    "cycle_key_repeated",
    "u_integral_float",
}


def validator(name: str) -> jsonschema.Draft202012Validator:
    document = {"$ref": f"#/components/schemas/{name}", "components": {"schemas": openapi.components()}}
    return jsonschema.Draft202012Validator(document, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)


def is_valid(name: str, instance: Any) -> bool:
    return validator(name).is_valid(instance)


def changed_row(rule: Rule) -> list[Any]:
    return rule.change(envelope(3))["rows"][rule.row if rule.row is not None else 1]


@pytest.mark.parametrize("schema", sorted(COLUMNS_BY_SCHEMA))
def test_it_describes_the_plugins_envelope_of_each_schema(schema: int) -> None:
    body = envelope(5, schema=schema)

    assert is_valid("Envelope", body)
    assert all(is_valid(f"CycleRow{schema}", row) for row in body["rows"])
    assert not is_valid("Envelope", {**body, "schema": 1 + schema % 3})


@pytest.mark.parametrize("rule", REFUSING_RULES, ids=lambda rule: rule.name)
def test_it_puts_every_fault_of_the_envelope_outside_the_schema(rule: Rule) -> None:
    changed = rule.change(envelope(3))

    assert is_valid("Envelope", changed) is (rule.name in BEYOND_JSON_SCHEMA)


@pytest.mark.parametrize("rule", SKIPPING_RULES, ids=lambda rule: rule.name)
def test_it_keeps_the_envelope_valid_but_not_the_stored_row_for_a_bad_value(rule: Rule) -> None:
    changed = rule.change(envelope(3))

    assert is_valid("Envelope", changed)  # skipped, not refused (cycle-record.md, "Envelope")
    assert is_valid("CycleRow3", changed_row(rule)) is (rule.name in BEYOND_JSON_SCHEMA)


def test_it_caps_the_rows_at_the_configured_maximum(settings: Any) -> None:
    settings.INGEST_MAX_ROWS = 4

    assert is_valid("Envelope", envelope(4))
    assert not is_valid("Envelope", envelope(5))


@pytest.mark.parametrize("name", ["RetractRequest", "InstallCountsRequest"])
def test_it_takes_exactly_an_install_to_retract_or_count(name: str) -> None:
    install = str(envelope(1)["install"])

    assert is_valid(name, {"install": install.upper()})
    assert not is_valid(name, {"install": install, "note": "x"})
    assert not is_valid(name, {"install": "not-a-uuid"})


def matches_a_privacy_pattern(value: str) -> bool:
    return any(re.search(pattern, value) for pattern in openapi.privacy_patterns())


@pytest.mark.parametrize("rule", PRIVACY_RULES, ids=lambda rule: rule.name)
def test_it_states_each_privacy_check_as_a_pattern(rule: Rule) -> None:
    value = changed_row(rule)[COLUMNS_BY_SCHEMA[3].index(str(rule.col))]

    assert matches_a_privacy_pattern(value)


@given(st.from_regex(VERSION_RE, fullmatch=True) | st.from_regex(TOKEN_RE, fullmatch=True))
def test_its_privacy_patterns_refuse_what_the_contract_refuses(value: str) -> None:
    # Either case of a letter: the contract checks the lowercased value, the schema the value sent.
    assert matches_a_privacy_pattern(value) is (privacy_problem(value.lower()) is not None)


def test_its_documented_example_passes_every_check(client: Client, db: None) -> None:
    example = ENVELOPE_REQUEST.examples[0].value

    response = client.post(PREVIEW, json.dumps(example), content_type="application/json")

    assert is_valid("Envelope", example)
    assert response.status_code == 200
    assert (response.json()["accepted"], response.json()["skipped"]) == (1, 0)


def test_it_marks_the_request_bodies_required(client: Client) -> None:
    schema = client.get("/api/schema/?format=json").json()

    for path in ("/api/v1/contributions", PREVIEW, "/api/v1/contributions/retract", "/api/v1/contributions/counts"):
        assert schema["paths"][path]["post"]["requestBody"]["required"] is True
    assert schema["openapi"].startswith("3.1")


def test_it_names_every_operation_in_words(client: Client) -> None:
    """The docs page lists operations by summary and links them by id: both are written, never generated
    from the path (drf-spectacular's fallback reads like `api_v1_pool.json_retrieve`)."""
    schema = client.get("/api/schema/?format=json").json()

    operations = [(path, op) for path, methods in schema["paths"].items() for op in methods.values()]
    assert len(operations) >= 5
    ids = [op["operationId"] for _, op in operations]
    assert len(set(ids)) == len(ids)
    for path, op in operations:
        assert re.fullmatch(r"[a-z]+(?:_[a-z]+)*", op["operationId"]), (path, op["operationId"])
        assert not op["operationId"].startswith("api_"), path
        assert op.get("summary") and op["summary"][0].isupper(), path
    assert schema["paths"]["/api/v1/pool.json"]["get"]["operationId"] == "pool"


def test_the_docs_meet_the_current_schemas_envelope_first() -> None:
    found = openapi.components()
    variants = [ref["$ref"].rsplit("/", 1)[1] for ref in found["Envelope"]["oneOf"]]
    assert variants == ["Envelope3", "Envelope2", "Envelope1"]
    titles = [found[name]["title"] for name in variants]
    assert titles == ["Schema 3 (current)", "Schema 2 (older clients)", "Schema 1 (older clients)"]
