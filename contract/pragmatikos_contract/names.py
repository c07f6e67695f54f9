"""One rule for model names, so the recorder, the lab and the public labels count a model once.

Vendors spell one model many ways: with a routing path (`openrouter/anthropic/…`), a Bedrock
region and vendor (`us.anthropic.…-v1:0`), a release date (`-20251101`, `-2025-11-13`, Vertex's
`@20250514`), an OpenRouter tier (`:free`) and version digits joined by `-` or `.`. The canonical
name keeps what tells models apart:

1. trim and lower-case; keep the part after the last `/`;
2. drop a Bedrock region and vendor prefix and its `-vN:M` revision;
3. drop an OpenRouter tier suffix (`:free`, `:beta`, …);
4. drop a trailing release date: `-YYYYMMDD`, `@YYYYMMDD` or `-YYYY-MM-DD`;
5. write a run of version numbers joined by `-` with dots: `claude-3-5-sonnet` -> `claude-3.5-sonnet`.
   A number with a leading zero is no version (`gemini-2.5-pro-preview-06-05` is a date), and a
   number glued to letters is part of a name (`qwen3-6-plus` stays).

The rule is applied until nothing changes, so the canonical name of a canonical name is itself:
`us.anthropic.anthropic.claude-x-20250101-20250101` does not keep a prefix or date for a second look
to strip, and a name stored canonical is exactly the name the known-name lists are checked against.

Callers add what only they need (the lab's display names and aliases) around this rule.
"""

from __future__ import annotations

import re
from typing import Final

BEDROCK_PREFIX_RE: Final = re.compile(
    r"^(?:(?:us|eu|apac|au|ca|jp|us-gov|global)\.)?"
    r"(?:anthropic|meta|amazon|mistral|cohere|ai21|deepseek|qwen|openai|writer)\.(?=[a-z])"
)
BEDROCK_REVISION_RE: Final = re.compile(r"-v[0-9]+(?::[0-9]+)?$")
TIER_SUFFIX_RE: Final = re.compile(r":(?:free|beta|nitro|floor|extended)$")
RELEASE_DATE_RE: Final = re.compile(r"(?:[-@][0-9]{8}|-[0-9]{4}-[0-9]{2}-[0-9]{2})$")
# Two or more version numbers (no leading zero, at most two digits) joined by `-`, standing alone.
VERSION_RUN_RE: Final = re.compile(r"(?<![0-9a-z.])((?:0|[1-9][0-9]?)(?:-(?:0|[1-9][0-9]?))+)(?![0-9a-z])")


def canonical_model(raw: str) -> str:
    """`us.anthropic.claude-sonnet-4-5-20250929-v1:0` -> `claude-sonnet-4.5`; `openai/gpt-4o` -> `gpt-4o`."""
    name = raw.strip().lower().rsplit("/", 1)[-1]
    # Each pass that changes the name shortens it or only rewrites its version runs (which a pass leaves stable).
    while (again := _one_pass(name)) != name:
        name = again
    return name


def _one_pass(name: str) -> str:
    bedrock = BEDROCK_PREFIX_RE.match(name)
    if bedrock:
        name = BEDROCK_REVISION_RE.sub("", name[bedrock.end() :])
    name = TIER_SUFFIX_RE.sub("", name)
    name = RELEASE_DATE_RE.sub("", name)
    return VERSION_RUN_RE.sub(lambda match: match.group(1).replace("-", "."), name)
