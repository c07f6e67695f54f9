"""What the recorder builds passes the server's own contract and privacy checks, and carries nothing private."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pragmatikos_contract.values import privacy_problem
from pragmatikos_recorder.config import load_identity
from pragmatikos_recorder.envelope import envelope, to_rows
from pragmatikos_recorder.privacy import is_private, safe_effort, safe_token, safe_version
from pragmatikos_recorder.scan import HARNESSES, scan_logs

from ingest.contract import validate_envelope
from tests.recorder.conftest import NOW, World


@pytest.mark.parametrize("harness", HARNESSES)
def test_it_builds_envelopes_the_server_accepts_whole_on_every_fixture(world: World, harness: str) -> None:
    identity = load_identity()
    built = to_rows(scan_logs((harness,), world.roots, now=NOW, progress=False).cycles, identity.secret)
    body = envelope(built.rows, identity.install)
    # The server's validator, as the API runs it: every row valid, none skipped.
    checked = validate_envelope(json.loads(json.dumps(body)), now=datetime.now(UTC), max_rows=20000)
    assert checked.errors == []
    assert checked.is_valid
    assert checked.envelope is not None and len(checked.envelope.rows) == len(built.rows) > 0


def test_it_sends_no_path_prompt_session_id_file_name_or_repository_name(world: World) -> None:
    identity = load_identity()
    cycles = scan_logs(HARNESSES, world.roots, now=NOW, progress=False).cycles
    body = json.dumps(envelope(to_rows(cycles, identity.secret).rows, identity.install))
    private = [
        str(world.app), str(world.tool), str(world.cli), str(world.scratch), "tmp",  # paths
        "app.py", "util.py", "notes", "README", "lib.rs", "USAGE", "cli.py", "scratch",  # file names
        "5b1f0c9e", "0195a1b2", "toolu_", "msg_", "call_", "req_",  # session, message and call ids
        "retry", "verbose", "fetch", "Plan a", "explain",  # words of the prompts
        "someone", "example", "Dev",  # repository url, e-mail, author
    ]  # fmt: skip
    for text in private:
        assert text not in body, text


@pytest.mark.parametrize(
    "value",
    [
        "dev@example.com", "/home/dev/app", "c:\\users\\dev", "~dev", "my model", "notes.md", "cli.py",
        "10.0.0.1", "gpt.10.0.0.1", "5b1f0c9e-2d4a-4c1e-9f3b-7a2e8d6c1b01", "localhost", "toolu_01abc",
        "ses_x", "deadbeefcafe", "sk-aaaaaaaaaaaaaaaaaaaa", "ghp_abcdefghijklmnopqrstu", "akiaabcdefghijklmnop",
        # Refused by the service but let through by the recorder's former copy of the rules.
        "fe80::1ff:fe23:4567:890a", "00:1a:2b:3c:4d:5e", "4111-1111-1111-1111", "alice-macbook-pro.local",
        "llm.corp.internal", "sk_live_zyxwvutsrqponmlkj", "glpat-zyxwvutsrqponmlkj", "eyjhbgcioijiuzi1nij9",
        "notes.txt",
    ],
)  # fmt: skip
def test_it_blanks_every_value_the_server_refuses_as_private(value: str) -> None:
    assert privacy_problem(value) is not None  # the premise: the service refuses it
    assert safe_token(value) == safe_effort(value) == safe_version(value) == ""


@pytest.mark.parametrize("value", ["claude-opus-4.5", "gpt-5-codex", "qwen3:32b", "o3-mini", "anthropic"])
def test_it_keeps_a_model_name(value: str) -> None:
    assert not is_private(value)
    assert safe_token(value) == value


@pytest.mark.parametrize("value", ["2.0.30", "0.46.0", "1.14.2"])
def test_it_keeps_a_version(value: str) -> None:
    assert safe_version(value) == value


def test_it_blanks_a_value_that_could_identify_rather_than_sending_it() -> None:
    assert safe_token("ft:gpt-4o:acme:0123456789abcdef") == ""  # a fine-tuned model id carrying an org and a hex id
    assert safe_token("Claude-Opus-4.5") == "claude-opus-4.5"
    assert safe_version("1.2.3.4") == ""  # shaped like an IPv4 address
    assert safe_version("2.0.30") == "2.0.30"


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40) | st.from_regex(r"[a-z0-9][a-z0-9._:+@/-]{0,40}", fullmatch=True))
def test_it_only_ever_sends_values_the_server_accepts(raw: str) -> None:
    model, effort, version = safe_token(raw), safe_effort(raw), safe_version(raw)
    provider = "anthropic" if model else ""
    row = [
        "0123456789abcdef", "2025-03-10", model or "some-model", "anthropic", 2, "", "", model, provider,
        1, 1, 0, 0, 0, 0.0, 0, 0.0, 0, 0, -1.0, 2, effort, "", effort if model else "", "claude-code", version,
    ]  # fmt: skip
    body = envelope([row], "5b1f0c9e-2d4a-4c1e-9f3b-7a2e8d6c1b0f")
    checked = validate_envelope(body, now=datetime.now(UTC), max_rows=10)
    assert checked.errors == []
