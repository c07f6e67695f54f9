"""Model and provider names as the contract wants them: canonical, lowercase, no vendor paths.

The model rule is the contract's own (`pragmatikos_contract.names`, shared with the service), so
`claude-opus-4-5-20251101` and `claude-opus-4.5` count as one model on both sides. What is the
recorder's alone: a fine-tune is sent as its base model (its id names the organisation that made
it), a provider is named for logs that record only the model, and the family table says which
unlisted names are plainly public ones (`qwen3:32b`, an Ollama tag of a listed model).
"""

from __future__ import annotations

import re
from typing import Final

from pragmatikos_contract.names import canonical_model

__all__ = ["FAMILY_PROVIDERS", "base_model", "canonical_model", "is_family_name", "model_name", "provider_of"]

# OpenAI fine-tunes: `ft:BASE:ORG:SUFFIX:ID` and the older `BASE:ft-ORG-DATE`; ORG and SUFFIX are private.
FINE_TUNE_RE: Final = re.compile(r"ft:([^:]+)(?::.*)?", re.IGNORECASE)
LEGACY_FINE_TUNE_RE: Final = re.compile(r"([^:]+):ft-.*", re.IGNORECASE)

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
    ("llama", "meta"),
    ("gemma", "google"),
)
# Words a public model name is made of after its family (`qwen3-coder-30b-a3b-instruct`, `gpt-oss:20b`).
FAMILY_WORDS: Final = frozenset(
    {"mini", "nano", "micro", "tiny", "small", "medium", "large", "xl", "pro", "max", "plus", "ultra", "lite"}
    | {"flash", "turbo", "fast", "instant", "preview", "latest", "exp", "experimental", "stable", "beta"}
    | {"instruct", "chat", "coder", "code", "codex", "thinking", "reasoning", "reasoner", "vision", "vl"}
    | {"omni", "audio", "realtime", "sonnet", "opus", "haiku", "oss", "base", "it", "distill", "moe", "next"}
    | {"air", "search", "high", "low", "fp16", "bf16", "fp8", "int4", "int8"}
    | {prefix for prefix, _ in FAMILY_PROVIDERS}
)
# A size, version or quantisation: 32b, 4o, 8x7b, a3b, v3, r1, k2, q4 (and the k, m of q4_k_m).
FAMILY_SEGMENT_RE: Final = re.compile(r"[0-9]{1,4}[a-z]{0,2}|[a-z][0-9]+[a-z]?|[0-9]+x[0-9]+b|[a-z]")
# A quantisation whose level letters follow as segments of their own: the k and m of q4_k_m, the k of q6_k.
QUANTISATION_RE: Final = re.compile(r"q[0-9]+")
QUANTISATION_LETTERS: Final = 2
WORD_WITH_VERSION_RE: Final = re.compile(r"([a-z]+)[0-9]*")  # small3 in mistral-small3.2
NAME_SEGMENTS_RE: Final = re.compile(r"[-.:_]")


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


def base_model(raw: str) -> str:
    """A fine-tune's base model (`ft:gpt-4o-mini-2024-07-18:acme:bot:9abc` -> `gpt-4o-mini-2024-07-18`), else `raw`."""
    name = raw.strip()
    match = FINE_TUNE_RE.fullmatch(name) or LEGACY_FINE_TUNE_RE.fullmatch(name)
    return match.group(1) if match else name


def model_name(raw: str) -> str:
    """The name a row carries for a model as a log spells it: its base model, canonical."""
    return canonical_model(base_model(raw))


def is_family_name(name: str) -> bool:
    """Whether a canonical name is a known family followed only by sizes, versions and common words."""
    first, *rest = NAME_SEGMENTS_RE.split(name)
    family = next((prefix for prefix, _ in FAMILY_PROVIDERS if first.startswith(prefix)), None)
    if family is None or not re.fullmatch(r"[0-9]*", first.removeprefix(family)):
        return False
    return all(_is_family_segment(segment) for segment in rest) and not _spells_with_letters(rest)


def _spells_with_letters(segments: list[str]) -> bool:
    """Whether a single letter stands anywhere but as a quantisation level.

    One letter at a time spells anything: `gpt-4o-c-o-n-t-o-s-o` (or `gpt-4o-c-1-o-2-n`) names an
    organisation in a name the table would otherwise pass as public.
    """
    letters_allowed = 0
    for segment in segments:
        if len(segment) == 1 and segment.isalpha():
            if letters_allowed == 0:
                return True
            letters_allowed -= 1
        else:
            letters_allowed = QUANTISATION_LETTERS if QUANTISATION_RE.fullmatch(segment) else 0
    return False


def _is_family_segment(segment: str) -> bool:
    if FAMILY_SEGMENT_RE.fullmatch(segment):
        return True
    word = WORD_WITH_VERSION_RE.fullmatch(segment)
    return word is not None and word.group(1) in FAMILY_WORDS
