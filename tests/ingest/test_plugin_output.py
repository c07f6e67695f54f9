"""The OpenCode plugin's ordinary output lands: placeholders, vendor model ids, its own path.

Rows are built the way the plugin's extractor writes them (cycle-record.md, "What the real client
sends"); every expected stored value below is written out by hand.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from django.test import Client

from ingest.columns import COLUMNS_BY_SCHEMA, FACT_FIELDS
from ingest.models import Cycle, Receipt, install_hash
from tests.cycles.wire import envelope, wire_cycle
from tests.ingest.conftest import PREVIEW, Api, stored_counts

pytestmark = pytest.mark.django_db

PLUGIN_PATH = "/v1/contribute"


def plugin_rows() -> list[dict[str, Any]]:
    """Four cycles with the placeholders and vendor forms the extractor passes through."""
    return [
        # A session with no model message: model and provider "(none)", no effort on any message.
        wire_cycle(0, model="(none)", prov="(none)", variant="(none)", pv="(none)", bv="(none)", hversion="(unknown)"),
        # Vertex's dated id, upper case anywhere; the planner's provider missing on its message.
        wire_cycle(1, model="Claude-Sonnet-4@20250514", prov="Vertex", pm="claude-opus-4.7", pp="(unlisted)"),
        # Ollama and Bedrock ids; the builder's model missing on its message.
        wire_cycle(2, model="qwen3:32b", prov="ollama", bm="(unlisted)", bp="bedrock"),
        wire_cycle(3, model="anthropic.claude-opus-4-1-20250805-v1:0", prov="amazon-bedrock", pm="(none)", pp="(none)"),
    ]


def stored(install: str) -> dict[str, dict[str, Any]]:
    rows = Cycle.objects.filter(contributor__install_hash=install_hash(uuid.UUID(install)))
    return {row["cycle_key"]: row for row in rows.values("cycle_key", *FACT_FIELDS)}


def key(index: int) -> str:
    return wire_cycle(index)["cycle_key"]


@pytest.mark.parametrize("schema", [1, 2, 3])
def test_it_stores_the_plugins_placeholders_and_vendor_ids_at_its_own_path(api: Api, schema: int) -> None:
    body = envelope(plugin_rows(), schema=schema)

    response = api.post(PLUGIN_PATH, body)

    assert response.status_code == 202, response.json()
    assert response.json()["accepted"] == 4 and response.json()["skipped"] == 0
    rows = stored(body["install"])
    assert (rows[key(0)]["model"], rows[key(0)]["provider"]) == ("", "")
    assert (rows[key(1)]["model"], rows[key(1)]["provider"]) == ("claude-sonnet-4", "vertex")
    # A placeholder on one side of a role clears the role: no planner to judge.
    assert (rows[key(1)]["planner_model"], rows[key(1)]["planner_provider"]) == ("", "")
    assert rows[key(1)]["builder_model"] == wire_cycle(1)["bm"]
    assert (rows[key(2)]["model"], rows[key(2)]["provider"]) == ("qwen3:32b", "ollama")
    assert (rows[key(2)]["builder_model"], rows[key(2)]["builder_provider"]) == ("", "")
    assert rows[key(3)]["model"] == "claude-opus-4.1"  # stored canonical, as every model name
    assert (rows[key(3)]["planner_model"], rows[key(3)]["planner_provider"]) == ("", "")
    if "variant" in COLUMNS_BY_SCHEMA[schema]:
        assert (rows[key(0)]["effort"], rows[key(0)]["planner_effort"], rows[key(0)]["builder_effort"]) == ("", "", "")
        assert rows[key(0)]["harness_version"] == ""


# "/": people give the plugin the host alone, and it posts to that address exactly as written.
@pytest.mark.parametrize(
    "path", [PLUGIN_PATH, PLUGIN_PATH + "/", "/api/v1/contributions", "/api/v1/contributions/", "/"]
)
def test_it_serves_the_contract_with_and_without_a_trailing_slash(api: Api, path: str) -> None:
    response = api.post(path, envelope(2))

    assert response.status_code == 202
    assert response.json()["inserted"] == 2


def test_a_post_to_the_front_page_needs_no_csrf_token_and_the_page_still_reads() -> None:
    """The plugin sends no cookie and no token: a CSRF 403 there would leave it retrying forever."""
    client = Client(enforce_csrf_checks=True)
    body = envelope(3)

    posted = Api(client).post("/", body)
    page = client.get("/")

    assert posted.status_code == 202, posted.content[:200]
    assert sorted(stored(body["install"])) == sorted(row[0] for row in body["rows"])
    assert page.status_code == 200 and page["Content-Type"].startswith("text/html")


@pytest.mark.parametrize("path", ["/api/v1/stats/", "/api/v1/pool.json/"])
def test_it_answers_the_read_paths_with_a_trailing_slash_too(api: Api, path: str) -> None:
    assert api.client.get(path).status_code in (200, 503)  # pool.json: 503 until a first snapshot


def test_it_skips_a_row_with_an_email_in_a_model_name_and_stores_the_rest(api: Api) -> None:
    rows = plugin_rows()
    rows[2] = {**rows[2], "model": "ann.smith@example.org"}
    body = envelope(rows)

    response = api.post(PLUGIN_PATH, body)

    assert response.status_code == 202
    answer = response.json()
    assert (answer["accepted"], answer["inserted"], answer["skipped"]) == (3, 3, 1)
    assert [(error["row"], error["col"]) for error in answer["errors"]] == [(2, "model")]
    assert "ann.smith" not in response.content.decode()
    assert sorted(stored(body["install"])) == sorted([key(0), key(1), key(3)])
    assert Receipt.objects.get().skipped == 1


def test_it_refuses_the_same_request_whole_when_asked_for_atomic(api: Api) -> None:
    rows = plugin_rows()
    rows[2] = {**rows[2], "model": "ann.smith@example.org"}

    response = api.post(PLUGIN_PATH + "?atomic=1", envelope(rows))

    assert response.status_code == 400
    assert [(error["row"], error["col"]) for error in response.json()["errors"]] == [(2, "model")]
    assert response.json()["error"].endswith("nothing was stored.")
    assert stored_counts() == (0, 0, 0)


# Exactly the two values the OpenAPI schema lists: "true" or an empty value is refused, not read as a guess.
@pytest.mark.parametrize("value", ["yes-please", "true", "", "%201", "TRUE"])
def test_it_refuses_an_atomic_value_that_is_neither_one_nor_zero(api: Api, value: str) -> None:
    response = api.post(f"{PLUGIN_PATH}?atomic={value}", envelope(2))

    assert response.status_code == 400
    assert response.json()["errors"][0]["col"] == "atomic"
    assert stored_counts() == (0, 0, 0)


def test_it_previews_the_kept_rows_and_the_skipped_ones(api: Api) -> None:
    rows = plugin_rows()
    rows[0] = {**rows[0], "prov": "10.0.0.7"}

    preview = api.preview(envelope(rows))
    atomic = api.post(PREVIEW + "?atomic=1", envelope(rows))

    assert preview.status_code == 200
    assert [row["cycle_key"] for row in preview.json()["rows"]] == [key(1), key(2), key(3)]
    assert (preview.json()["skipped"], preview.json()["errors"][0]["col"]) == (1, "prov")
    assert atomic.status_code == 400
    assert stored_counts() == (0, 0, 0)


def test_it_still_refuses_a_request_whose_rows_are_not_arrays_of_scalars(api: Api) -> None:
    body = envelope(3)
    body["rows"][1][body["cols"].index("model")] = None

    response = api.post(PLUGIN_PATH, body)

    assert response.status_code == 400
    assert [(error["row"], error["col"]) for error in response.json()["errors"]] == [(1, "model")]
    assert stored_counts() == (0, 0, 0)
