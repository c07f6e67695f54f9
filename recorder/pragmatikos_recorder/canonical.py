"""Model and provider names as the contract wants them: canonical, lowercase, no vendor paths.

The model rule follows the OpenCode plugin (keep the part after the last `/`, drop a trailing
date) and also writes version digits joined by `-` with dots, so `claude-opus-4-5-20251101`
and `claude-opus-4.5` count as one model.
"""

from __future__ import annotations

import re
from typing import Final

TRAILING_DATE_RE: Final = re.compile(r"(?:[-@][0-9]{8}|-[0-9]{4}-[0-9]{2}-[0-9]{2})$")
# Two or more short numeric segments in a row: "4-5" in "claude-opus-4-5", "3-5" in "claude-3-5-sonnet".
VERSION_RUN_RE: Final = re.compile(r"(?<![0-9a-z.])([0-9]{1,2}(?:-[0-9]{1,2})+)(?![0-9a-z])")

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


def canonical_model(raw: str) -> str:
    """`anthropic/claude-opus-4-5-20251101` -> `claude-opus-4.5`; `openai/gpt-4o` -> `gpt-4o`."""
    name = raw.strip().rsplit("/", 1)[-1].lower()
    name = TRAILING_DATE_RE.sub("", name)
    return VERSION_RUN_RE.sub(lambda match: match.group(1).replace("-", "."), name)


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
