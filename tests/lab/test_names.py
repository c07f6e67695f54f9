"""Canonical model names: the documented rules, one example each, and idempotence."""

import pytest

from lab.names import canonical_model, normalise_model
from tests.model_names import SHARED_CASES


@pytest.mark.parametrize(
    ("raw", "canonical"),
    [
        ("openrouter/anthropic/claude-opus-4.7", "claude-opus-4.7"),
        ("claude-opus-4-5", "claude-opus-4.5"),
        ("claude-haiku-4-5-20251001", "claude-haiku-4.5"),
        ("claude-sonnet-4@20250514", "claude-sonnet-4"),
        ("gpt-4o-2024-08-06", "gpt-4o"),
        ("openrouter/qwen/qwen3.6-plus:free", "qwen3.6-plus"),
        ("Gemini 2.0 Pro", "gemini-2.0-pro"),
        ("  GPT-5  ", "gpt-5"),
        ("qwen3-6-plus", "qwen3-6-plus"),  # not a trailing version: left alone
        ("qwen3:32b", "qwen3:32b"),
    ],
)
def test_it_normalises_vendor_names_as_documented(raw: str, canonical: str) -> None:
    assert normalise_model(raw) == canonical


@pytest.mark.parametrize(("raw", "canonical"), SHARED_CASES)
def test_it_agrees_with_the_shared_rule(raw: str, canonical: str) -> None:
    assert normalise_model(raw) == canonical_model(raw) == canonical


@pytest.mark.parametrize("raw", ["anthropic/claude-opus-4-5-20251101", "Claude Opus 4.5", "x-ai/grok-4.6"])
def test_it_is_idempotent(raw: str) -> None:
    once = normalise_model(raw)
    assert normalise_model(once) == once


def test_it_applies_an_alias_after_normalising() -> None:
    aliases = {"r1": "deepseek-r1"}
    assert canonical_model("deepseek/R1", aliases) == "deepseek-r1"
    assert canonical_model("claude-opus-4-5", aliases) == "claude-opus-4.5"
    assert canonical_model("", aliases) == ""
