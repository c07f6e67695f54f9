"""Model-name cases every user of the shared canonical rule must get right (pragmatikos_contract.names).

The recorder's, the lab's and the public labels' tests each run this table through their own entry
point, so the three can never disagree again. Each raw spelling is one a vendor or harness writes.
"""

from __future__ import annotations

from typing import Final

SHARED_CASES: Final[tuple[tuple[str, str], ...]] = (
    # Release dates: Anthropic's -YYYYMMDD, OpenAI's -YYYY-MM-DD, Vertex's @YYYYMMDD.
    ("claude-opus-4-5-20251101", "claude-opus-4.5"),
    ("gpt-5-1-codex-2025-11-13", "gpt-5.1-codex"),
    ("gpt-4o-2024-08-06", "gpt-4o"),
    ("claude-sonnet-4@20250514", "claude-sonnet-4"),
    ("claude-3-5-sonnet-v2@20241022", "claude-3.5-sonnet-v2"),
    # Version digits joined by `-` or `.` are one model.
    ("claude-3-5-sonnet", "claude-3.5-sonnet"),
    ("claude-3.5-sonnet", "claude-3.5-sonnet"),
    ("claude-3-5-haiku-20241022", "claude-3.5-haiku"),
    ("Claude-Haiku-4-5-20251001", "claude-haiku-4.5"),
    ("gemini-2-0-flash", "gemini-2.0-flash"),
    # Vendor and routing prefixes.
    ("anthropic/claude-opus-4-5", "claude-opus-4.5"),
    ("openai/gpt-4.1-mini", "gpt-4.1-mini"),
    ("openrouter/anthropic/claude-opus-4.7", "claude-opus-4.7"),
    ("us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4.5"),
    ("anthropic.claude-opus-4-1-20250805-v1:0", "claude-opus-4.1"),
    ("openrouter/qwen/qwen3.6-plus:free", "qwen3.6-plus"),
    ("anthropic/claude-3.5-haiku-20241022:beta", "claude-3.5-haiku"),
    # A date-like preview suffix is no version; digits glued to a name are part of it.
    ("gemini-2.5-pro-preview-06-05", "gemini-2.5-pro-preview-06-05"),
    ("gpt-4-0613", "gpt-4-0613"),
    ("qwen3-6-plus", "qwen3-6-plus"),
    ("qwen3:32b", "qwen3:32b"),
    ("deepseek-v3", "deepseek-v3"),
    ("gpt-5-codex", "gpt-5-codex"),
    ("o3-mini", "o3-mini"),
    ("  GPT-5  ", "gpt-5"),
)
