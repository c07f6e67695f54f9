"""Canonical model names, so a lab's vendor ids meet the field's names.

The field stores what the client sends after the shared canonical rule
(`pragmatikos_contract.names`: vendor path, Bedrock prefix, OpenRouter tier and release date
dropped, version digits dotted). Labs publish display names too, so one step comes first here:
runs of spaces become one `-` ("Gemini 2.0 Pro" -> `gemini-2.0-pro`).

What these rules cannot join (`r1` for `deepseek-r1`, `sonnet` for a dated Claude) an operator
maps with the alias table (`manage.py lab_alias add NAME CANONICAL`), applied after these rules.
"""

import re
from collections.abc import Mapping

from pragmatikos_contract.names import canonical_model as shared_canonical_model

_SPACES = re.compile(r"\s+")


def normalise_model(name: str) -> str:
    """A vendor id or display name in the field's canonical form (see the module's rules)."""
    return shared_canonical_model(_SPACES.sub("-", name.strip()))


def canonical_model(name: str, aliases: Mapping[str, str] | None = None) -> str:
    """The normalised name, then the operator's alias for it if there is one."""
    normal = normalise_model(name)
    if not normal:
        return ""
    return (aliases or {}).get(normal, normal)
