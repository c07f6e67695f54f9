"""Model and provider names leave the machine only when a public list knows them or the person allows them."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from pragmatikos_recorder import cli
from pragmatikos_recorder.canonical import is_family_name, model_name
from pragmatikos_recorder.config import ConfigError, load_allowed_names, load_identity
from pragmatikos_recorder.envelope import COLUMNS, to_rows
from pragmatikos_recorder.privacy import PublicNames
from pragmatikos_recorder.scan import scan_logs
from pragmatikos_recorder.summary import ScanSummary

from tests.recorder.conftest import NOW, World


@pytest.mark.parametrize(
    ("raw", "sent"),
    [
        # OpenAI fine-tunes carry the organisation and a job id; the row names the base model.
        ("ft:gpt-4o-mini-2024-07-18:acme-corp:support-bot:9abc", "gpt-4o-mini"),
        ("ft:gpt-4o-2024-08-06:ve::BUXnDVxt", "gpt-4o"),  # a real id's shape: no suffix, so "::"
        ("ft:gpt-4.1:organization:custom:id", "gpt-4.1"),
        ("davinci-002:ft-acme-2023-08-01-12-00-00", "davinci-002"),  # the older form
        ("gpt-4o", "gpt-4o"),
    ],
)
def test_it_sends_a_fine_tune_as_its_base_model(raw: str, sent: str) -> None:
    assert model_name(raw) == sent
    assert PublicNames().model(model_name(raw)) == sent


@pytest.mark.parametrize(
    "name",
    [
        "claude-opus-4.5",  # on genai-prices' list
        "gpt-5.1-codex-max",
        "kimi-k2",
        "qwen3:32b",  # Ollama tags: a listed family, sizes and quantisations only
        "llama3.1:8b",
        "qwen2.5-coder:7b-instruct-q4_k_m",
        "mistral-small3.2:24b",
    ],
)
def test_it_sends_a_name_the_list_or_the_family_table_knows(name: str) -> None:
    assert PublicNames().model(name) == name


@pytest.mark.parametrize(
    "raw",
    [
        "gpt-4o-mini", "claude-3-5-sonnet", "o3-mini", "gpt-5.1-codex-max", "gemini-2.5-pro", "kimi-k2", "glm-4.6",
        "deepseek-v3.1", "qwen3-coder", "qwen2.5-coder:7b-instruct-q4_K_M", "llama3.1:8b-instruct-q5_k_s",
        "qwen2.5:7b-q6_k", "qwen3:30b-a3b-q4_0", "gemma-3n-e4b-it",
    ],
)  # fmt: skip
def test_the_family_table_knows_real_names_with_their_quantisation_letters(raw: str) -> None:
    assert is_family_name(model_name(raw))


@pytest.mark.parametrize(
    "name",
    [
        "acme-gpt4-prod",  # an Azure deployment name
        "gpt4o-prod-eastus",  # starts like a family, then names a deployment
        "claude-opus-4.5-acme",
        "support-bot",
        "gpt-4-8881234",  # a long number after a family is no version
        "gpt-4o-c-o-n-t-o-s-o",  # an organisation spelled one letter at a time
        "gpt-4o-c-1-o-2-n",  # and with versions between the letters
        "claude-opus-4.5-x",
        "qwen2.5:7b-q4_k_m_x",  # a quantisation has at most two level letters
    ],
)
def test_it_withholds_a_name_no_public_list_knows(name: str) -> None:
    assert not is_family_name(name)
    assert PublicNames().model(name) == ""
    assert PublicNames(frozenset({name})).model(name) == name  # unless the person allows it by name


def test_it_sends_a_provider_only_when_it_is_a_public_one() -> None:
    names = PublicNames()
    assert [names.provider(p) for p in ("openai", "azure", "anthropic", "ollama", "openrouter")] == [
        "openai", "azure", "anthropic", "ollama", "openrouter",
    ]  # fmt: skip
    assert names.provider("acme-proxy") == ""  # a Codex model_providers entry of one's own
    assert PublicNames(frozenset({"acme-proxy"})).provider("acme-proxy") == "acme-proxy"
    assert PublicNames(frozenset({"my/proxy"})).provider("my/proxy") == ""  # allowing cannot pass a privacy check


def test_it_withholds_a_cycle_of_a_private_deployment_and_names_what_it_left_out(world: World) -> None:
    cycles = scan_logs(("codex",), world.roots, now=NOW, progress=False).cycles
    secret = load_identity().secret
    private = [
        dataclasses.replace(cycle, model="acme-gpt4-prod", prov="acme-proxy", bm="acme-gpt4-prod", bp="acme-proxy")
        for cycle in cycles
    ]
    planner_only = dataclasses.replace(cycles[0], pm="jdoe-finetune", pp="openai")

    built = to_rows([*private, planner_only], secret)

    assert built.withheld == len(cycles)  # every cycle whose session model is private
    assert len(built.rows) == 1 and built.rows[0][COLUMNS.index("pm")] == ""  # the planner's pair is blanked
    assert built.withheld_names == {"acme-gpt4-prod", "acme-proxy", "jdoe-finetune"}
    allowed = to_rows(private, secret, PublicNames(frozenset({"acme-gpt4-prod", "acme-proxy"})))
    assert allowed.withheld == 0 and {row[COLUMNS.index("model")] for row in allowed.rows} == {"acme-gpt4-prod"}
    told = ScanSummary(cycles_withheld=built.withheld, names_withheld=built.withheld_names).lines()
    assert told[-1].endswith("acme-gpt4-prod, acme-proxy, jdoe-finetune")


def test_it_reads_allowed_names_from_the_config_file(tmp_path: Path) -> None:
    assert load_allowed_names(tmp_path) == frozenset()  # no file, no names
    (tmp_path / "config.toml").write_text('allow_names = ["acme-gpt4-prod", " "]\n')
    assert load_allowed_names(tmp_path) == {"acme-gpt4-prod"}
    (tmp_path / "config.toml").write_text("allow_names = 'acme'\n")
    with pytest.raises(ConfigError, match="list of strings"):
        load_allowed_names(tmp_path)
    (tmp_path / "config.toml").write_text("allow_names = [\n")
    with pytest.raises(ConfigError, match="cannot be read"):
        load_allowed_names(tmp_path)


def test_scan_names_the_withheld_provider_and_sends_it_once_allowed(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    # The fixture's Codex sessions, as if run through a provider of one's own (config.toml model_providers).
    for log in world.roots.codex.rglob("rollout-*.jsonl"):
        log.write_text(log.read_text().replace('"model_provider": "openai"', '"model_provider": "acme-proxy"'))
    arguments = ["scan", "--harness", "codex", "--codex-dir", str(world.roots.codex)]

    assert cli.main(arguments) == 0
    withheld = capsys.readouterr()
    assert "acme-proxy" not in withheld.out  # the table of rows that would be sent
    assert withheld.err.startswith("0 cycles") and withheld.err.rstrip().endswith(": acme-proxy")

    assert cli.main([*arguments, "--allow-name", "acme-proxy"]) == 0
    allowed = capsys.readouterr()
    assert "acme-proxy" in allowed.out and "names not sent" not in allowed.err
