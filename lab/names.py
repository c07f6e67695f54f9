"""Canonical model names, so a lab's vendor ids meet the field's names.

The field stores what the client sends after its canonicalisation (the part after the last `/`,
a trailing date dropped, lower case). Labs publish ids and display names in many forms, so the
same steps are applied here, plus the few a lab's forms need:

1. trim and lower-case; runs of spaces become one `-` (display names such as "Gemini 2.0 Pro");
2. keep the part after the last `/` (drops `openrouter/anthropic/` and the like);
3. drop a trailing `-YYYYMMDD`, `@YYYYMMDD` or `-YYYY-MM-DD` (a release date, not a model);
4. drop OpenRouter's `:free` tier suffix;
5. a version written with dashes at the end becomes dotted: `claude-opus-4-5` → `claude-opus-4.5`
   (two single digits only, so `gpt-4o-2024-08` or `qwen3-6-plus` are left alone).

What these rules cannot join (`r1` for `deepseek-r1`, `sonnet` for a dated Claude) an operator
maps with the alias table (`manage.py lab_alias add NAME CANONICAL`), applied after these rules.
"""

import re
from collections.abc import Mapping

_SPACES = re.compile(r"\s+")
_DATE_SUFFIX = re.compile(r"(?:[-@]\d{8}|-\d{4}-\d{2}-\d{2})$")
_DASHED_VERSION = re.compile(r"-(\d)-(\d)$")


def normalise_model(name: str) -> str:
    """A vendor id or display name in the field's canonical form (see the module's rules)."""
    text = _SPACES.sub("-", name.strip().lower())
    text = text.rsplit("/", 1)[-1]
    text = _DATE_SUFFIX.sub("", text)
    text = text.removesuffix(":free")
    return _DASHED_VERSION.sub(r"-\1.\2", text)


def canonical_model(name: str, aliases: Mapping[str, str] | None = None) -> str:
    """The normalised name, then the operator's alias for it if there is one."""
    normal = normalise_model(name)
    if not normal:
        return ""
    return (aliases or {}).get(normal, normal)
