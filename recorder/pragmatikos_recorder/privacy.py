"""The contract's shapes and privacy checks, applied before a value can enter a row.

SOURCE: the rules of ../shared/spec/cycle-record.md ("Columns", "Privacy checks on every
string"), restated here so the recorder needs nothing from the server. A value that fails
becomes "" where the column allows it; a row whose model fails is withheld, never sent.
"""

from __future__ import annotations

import re
from typing import Final

TOKEN_RE: Final = re.compile(r"[a-z0-9][a-z0-9._:+_-]{0,63}")
EFFORT_RE: Final = re.compile(r"[a-z0-9][a-z0-9._-]{0,31}")
VERSION_RE: Final = re.compile(r"[0-9][0-9A-Za-z.+-]{0,31}")

FILE_EXTENSIONS: Final = (".json", ".ts", ".py", ".md", ".gguf", ".bin", ".safetensors")
EMAIL_RE: Final = re.compile(r"[^@]+@[^@]+\.[^@]+")
IPV4_RE: Final = re.compile(r"(?<![0-9])[0-9]{1,3}(?:\.[0-9]{1,3}){3}(?![0-9])")
UUID_RE: Final = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
ID_PREFIXES: Final = ("ses_", "msg_", "prt_", "call_", "toolu_", "req_", "resp_")
HEX_RUN_RE: Final = re.compile(r"[0-9a-f]{12,}")
SECRET_RE: Final = re.compile(r"(?:sk-|ghp_|github_pat_|akia|xoxb-|xoxp-).{16,}", re.DOTALL)


def is_private(value: str) -> bool:
    """True when a trimmed, lowercased string could name a person, path, address, session or secret."""
    return bool(
        re.search(r"\s", value)
        or not frozenset("/\\~@").isdisjoint(value)
        or value.endswith(FILE_EXTENSIONS)
        or EMAIL_RE.fullmatch(value)
        or IPV4_RE.search(value)
        or UUID_RE.search(value)
        or "localhost" in value
        or value.startswith(ID_PREFIXES)
        or HEX_RUN_RE.search(value)
        or SECRET_RE.match(value)
    )


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
