"""One value's rules (cycle-record.md, "Columns" and "Privacy checks on every string").

Shapes of the string columns, and the privacy checks every string passes: each check names its
problem in a fixed sentence and never echoes the value, because a refused value may be exactly
the private thing the checks exist to stop.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

TOKEN_RE: Final = re.compile(r"[a-z0-9][a-z0-9._:+_-]{0,63}")
EFFORT_RE: Final = re.compile(r"[a-z0-9][a-z0-9._-]{0,31}")
VERSION_RE: Final = re.compile(r"[0-9][0-9A-Za-z.+-]{0,31}")

# Privacy checks (cycle-record.md, "Privacy checks on every string"), on the trimmed, lowercased value.
WHITESPACE_RE: Final = re.compile(r"\s")
PATH_OR_ADDRESS_CHARS: Final = frozenset("/\\~@")
FILE_EXTENSIONS: Final = (
    # The contract's list, then file names seen in the wild where a label should be.
    ".json", ".ts", ".py", ".md", ".gguf", ".bin", ".safetensors",
    ".txt", ".log", ".csv", ".tsv", ".yaml", ".yml", ".toml", ".ini", ".cfg", ".conf", ".env", ".lock",
    ".js", ".mjs", ".cjs", ".jsx", ".tsx", ".go", ".rs", ".java", ".kt", ".rb", ".php", ".swift", ".cs",
    ".c", ".h", ".cc", ".cpp", ".hpp", ".sh", ".bash", ".zsh", ".ps1", ".sql", ".html", ".htm", ".css",
    ".xml", ".ipynb", ".pdf", ".doc", ".docx", ".xls", ".xlsx", ".png", ".jpg", ".jpeg", ".gif", ".svg",
    ".zip", ".tar", ".gz", ".tgz", ".7z", ".pem", ".key", ".crt", ".p12", ".pfx", ".sqlite", ".db",
    ".onnx", ".pt", ".pth", ".ckpt", ".pkl",
)  # fmt: skip
# Host names of a local network, which name a person's machine.
LOCAL_HOST_SUFFIXES: Final = (".local", ".lan", ".internal", ".localdomain", ".home.arpa")
EMAIL_RE: Final = re.compile(r"[^@]+@[^@]+\.[^@]+")
# Any IPv4-shaped run, wherever it sits: after a dot too ("gpt.10.0.0.1"), not only after a letter.
IPV4_RE: Final = re.compile(r"(?<![0-9])[0-9]{1,3}(?:\.[0-9]{1,3}){3}(?![0-9])")
UUID_RE: Final = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
ID_PREFIXES: Final = ("ses_", "msg_", "prt_", "call_", "toolu_", "req_", "resp_")
HEX_RUN_RE: Final = re.compile(r"[0-9a-f]{12,}")
# An IPv6 address: "::" or three or more colon-separated hex groups (a model's one tag, qwen3:32b, passes).
IPV6_RE: Final = re.compile(r"::|(?<![0-9a-z])[0-9a-f]{1,4}(?::[0-9a-f]{1,4}){2,}(?![0-9a-z])")
MAC_RE: Final = re.compile(r"(?<![0-9a-z])[0-9a-f]{2}(?:([:-])[0-9a-f]{2})(?:\1[0-9a-f]{2}){4}(?![0-9a-z])")
# Four groups of four digits: a payment card number written with dashes (a run of digits is a hex run).
CARD_RE: Final = re.compile(r"(?<![0-9])[0-9]{4}(?:[-.][0-9]{4}){3}(?![0-9])")
SECRET_RE: Final = re.compile(
    r"(?:sk-|sk_live_|sk_test_|rk_live_|rk_test_|rk_|ghp_|gho_|ghs_|github_pat_|glpat-|hf_|aiza|eyj|npm_|pypi-"
    r"|akia|xoxa-|xoxb-|xoxp-).{16,}",
    re.DOTALL,
)

# The checks in the order they are tried: the first that holds names the problem (never the value).
PRIVACY_RULES: Final[tuple[tuple[Callable[[str], object], str], ...]] = (
    (WHITESPACE_RE.search, "must not contain whitespace"),
    (
        lambda value: not PATH_OR_ADDRESS_CHARS.isdisjoint(value),
        "must not contain a path or address character (/ \\ ~ @)",
    ),
    (lambda value: value.endswith(FILE_EXTENSIONS), "must not end in a file extension"),
    (EMAIL_RE.fullmatch, "must not be shaped like an e-mail address"),
    (IPV4_RE.search, "must not be shaped like an IPv4 address"),
    (MAC_RE.search, "must not be shaped like a hardware (MAC) address"),
    (IPV6_RE.search, "must not be shaped like an IPv6 address"),
    (lambda value: value.endswith(LOCAL_HOST_SUFFIXES), "must not name a machine on a local network"),
    (CARD_RE.search, "must not be shaped like a card number"),
    (UUID_RE.search, "must not be shaped like a UUID"),
    (lambda value: "localhost" in value, "must not name the local machine"),
    (lambda value: value.startswith(ID_PREFIXES), "must not start with a session, message or tool-call id prefix"),
    (HEX_RUN_RE.search, "must not contain a run of 12 or more hex digits"),
    (SECRET_RE.match, "must not look like a secret key"),
)


def privacy_problem(value: str) -> str | None:
    """Why a trimmed, lowercased string could identify a person, path, session or secret; None when it cannot."""
    return next((message for holds, message in PRIVACY_RULES if holds(value)), None)
