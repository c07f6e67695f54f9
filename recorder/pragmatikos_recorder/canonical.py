"""Model and provider names as the contract wants them: canonical, lowercase, no vendor paths.

The model rule is the contract's own (`pragmatikos_contract.names`, shared with the service), so
`claude-opus-4-5-20251101` and `claude-opus-4.5` count as one model on both sides. What is the
recorder's alone is naming a provider for logs that record only the model.
"""

from __future__ import annotations

from typing import Final

from pragmatikos_contract.names import canonical_model

__all__ = ["FAMILY_PROVIDERS", "canonical_model", "provider_of"]

# Providers named by a model's family, for logs that record the model without its provider.
FAMILY_PROVIDERS: Final[tuple[tuple[str, str], ...]] = (
    ("claude", "anthropic"),
    ("gpt", "openai"),
    ("chatgpt", "openai"),
    ("codex", "openai"),
    ("o1", "openai"),
    ("o3", "openai"),
    ("o4", "openai"),
    ("gemini", "google"),
    ("deepseek", "deepseek"),
    ("grok", "xai"),
    ("mistral", "mistral"),
    ("codestral", "mistral"),
    ("devstral", "mistral"),
    ("kimi", "moonshot"),
    ("qwen", "alibaba"),
    ("glm", "zhipu"),
)


def provider_of(raw_model: str, default: str = "") -> str:
    """The provider a model id names: its first path segment, else its family, else `default`."""
    name = raw_model.strip().lower()
    if "/" in name:
        return name.split("/", 1)[0]
    if default:
        return default.strip().lower()
    for prefix, provider in FAMILY_PROVIDERS:
        if name.startswith(prefix):
            return provider
    return "unknown"
