"""The contract's shapes and privacy checks, applied before a value can enter a row.

The rules are the contract's own (`pragmatikos_contract.values`, the package the service checks
with too), so the recorder never sends a value the service would refuse. A value that fails
becomes "" where the column allows it; a row whose model fails is withheld, never sent.

A model or provider name also has to be a public one: a token can still name a private thing (an
Azure deployment `acme-gpt4-prod`, a custom provider id), so a name leaves the machine only when
genai-prices' list or the family table knows it, or the person allowed it by name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from pragmatikos_contract.names import canonical_model
from pragmatikos_contract.values import EFFORT_RE, TOKEN_RE, VERSION_RE, privacy_problem

from pragmatikos_recorder.canonical import FAMILY_PROVIDERS, is_family_name
from pragmatikos_recorder.known_names import listed_models, listed_providers

# Providers that are software or services everyone can name, beyond the price list's and the families'.
PUBLIC_PROVIDERS: Final = frozenset(
    {"ollama", "ollama_chat", "lmstudio", "llamacpp", "vllm", "oss", "bedrock", "vertex_ai", "gemini", "xai"}
    | {"lm_studio", "azure_ai", "together_ai", "fireworks_ai", "unknown"}
    | {provider for _, provider in FAMILY_PROVIDERS}
)


def is_private(value: str) -> bool:
    """True when a trimmed, lowercased string could name a person, path, address, session or secret."""
    return privacy_problem(value) is not None


def _safe(value: str, shape: re.Pattern[str], *, lowercase: bool) -> str:
    trimmed = value.strip()
    if not trimmed or not trimmed.isascii():
        return ""
    lowered = trimmed.lower()
    result = lowered if lowercase else trimmed
    if is_private(lowered) or not shape.fullmatch(result):
        return ""
    return result


def safe_token(value: str) -> str:
    """A model or provider token, or "" when the value is not one or could identify someone."""
    return _safe(value, TOKEN_RE, lowercase=True)


def safe_effort(value: str) -> str:
    return _safe(value, EFFORT_RE, lowercase=True)


def safe_version(value: str) -> str:
    return _safe(value, VERSION_RE, lowercase=False)


@dataclass(frozen=True, slots=True)
class PublicNames:
    """The rule for model and provider names: a safe token that is known, or that the person allowed."""

    allowed: frozenset[str] = frozenset()  # names the person allowed (config `allow_names`, `--allow-name`)

    def __post_init__(self) -> None:
        object.__setattr__(self, "allowed", frozenset(canonical_model(name) for name in self.allowed))

    def model(self, name: str) -> str:
        """The model name to send, or "" when it is not a token or not known to be public."""
        token = safe_token(name)
        known = token in listed_models() or is_family_name(token) or token in self.allowed
        return token if token and known else ""

    def provider(self, name: str) -> str:
        token = safe_token(name)
        known = token in listed_providers() or token in PUBLIC_PROVIDERS or token in self.allowed
        return token if token and known else ""
