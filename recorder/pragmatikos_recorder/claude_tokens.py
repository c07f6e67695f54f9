"""Claude Code's token counts: one request's `usage` read as genai-prices counts tokens."""

from __future__ import annotations

from typing import Any

from pragmatikos_recorder.session import Tokens


def _positive(value: Any) -> int:
    return value if isinstance(value, int) and value > 0 else 0


def usage_tokens(usage: Any) -> Tokens | None:
    """The tokens of one Claude Code API request's `usage`, as genai-prices counts them; None without one."""
    if not isinstance(usage, dict):
        return None
    cache_read, cache_write = (
        _positive(usage.get("cache_read_input_tokens")),
        _positive(usage.get("cache_creation_input_tokens")),
    )
    # Since mid-2025 the writes are also split by how long the cache keeps them; an hour costs more.
    split = usage.get("cache_creation")
    one_hour = five_minutes = 0
    if isinstance(split, dict):
        one_hour = _positive(split.get("ephemeral_1h_input_tokens"))
        five_minutes = _positive(split.get("ephemeral_5m_input_tokens"))
    cache_write = max(cache_write, one_hour + five_minutes)
    # Anthropic's input_tokens excludes cache reads and writes; genai-prices' input counts them all.
    return Tokens(
        input=_positive(usage.get("input_tokens")) + cache_read + cache_write,
        output=_positive(usage.get("output_tokens")),
        cache_read=cache_read,
        cache_write=cache_write,
        cache_write_1h=one_hour,
    )
