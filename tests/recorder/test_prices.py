"""Prices looked up by the names logs really write."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pragmatikos_recorder.canonical import canonical_model
from pragmatikos_recorder.prices import price
from pragmatikos_recorder.session import Tokens

WHEN = datetime(2026, 2, 11, tzinfo=UTC)
MILLION_IN_TENTH_OUT = Tokens(input=1_000_000, output=100_000)


def test_a_dated_id_is_priced_by_its_canonical_name() -> None:
    # Codex writes `gpt-5-1-codex-2025-11-13`; the list knows `gpt-5.1-codex`: $1.25 in, $10 out per million.
    assert price("gpt-5-1-codex-2025-11-13", "openai", MILLION_IN_TENTH_OUT, WHEN) == pytest.approx(1.25 + 1.0)


def test_a_bedrock_id_is_priced_as_the_model_it_names() -> None:
    raw = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
    assert canonical_model(raw) == "claude-sonnet-4.5"
    # claude-sonnet-4.5: $3 in, $15 out per million below 200k input tokens.
    tokens = Tokens(input=100_000, output=10_000)
    assert price(raw, "anthropic", tokens, WHEN) == pytest.approx(0.3 + 0.15)


def test_the_one_hour_part_of_a_cache_write_costs_more_than_the_rest() -> None:
    # claude-opus-4.5 per million: $5 in, $6.25 for a 5-minute cache write, $10 for a 1-hour one.
    # 1000 written: 400 for an hour, 600 for five minutes -> 400 * 10 + 600 * 6.25 = 7750 millionths.
    tokens = Tokens(input=1000, cache_write=1000, cache_write_1h=400)
    assert price("claude-opus-4-5-20251101", "anthropic", tokens, WHEN) == pytest.approx(0.00775)
