"""The contract's shapes and privacy checks, applied before a value can enter a row.

The rules are the contract's own (`pragmatikos_contract.values`, the package the service checks
with too), so the recorder never sends a value the service would refuse. A value that fails
becomes "" where the column allows it; a row whose model fails is withheld, never sent.
"""

from __future__ import annotations

import re

from pragmatikos_contract.values import EFFORT_RE, TOKEN_RE, VERSION_RE, privacy_problem


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
