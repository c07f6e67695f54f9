"""What the harness parsers produce: one ordered list of events per session, harness-neutral.

A parser reads its agent's log and says what happened (a prompt typed, an assistant step, an
edit and whether it failed, a command, a commit, an interruption); `cycles.py` cuts the list into
cycles and computes the contract's fields from it. Paths and ids stay on this machine: only
`cycles.py` and `git_ship.py` read them, and no row field is made from them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum
from pathlib import Path, PureWindowsPath
from typing import Literal

from pragmatikos_recorder.commands import is_commit_command, is_verify_command

__all__ = ["Event", "Kind", "Phase", "Session", "Tokens", "edited_path", "is_commit_command", "is_verify_command"]

Phase = Literal["plan", "build"]


class Kind(Enum):
    PROMPT = "prompt"  # a prompt the person typed
    STEP = "step"  # one assistant step (one model response)
    EDIT = "edit"  # one edit tool call
    COMMAND = "command"  # a shell command the agent or the person ran
    COMMIT = "commit"  # a commit made in the session
    ABORT = "abort"  # the person interrupted or rejected something
    TOKENS = "tokens"  # tokens spent, where a log records them apart from its steps (Codex)
    ACTIVITY = "activity"  # anything else with a time (tool results): counts for active hours only


@dataclass(frozen=True, slots=True)
class Tokens:
    """Token counts in genai-prices' sense: `input` counts every input token, cached ones included."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cache_write_1h: int = 0  # the part of `cache_write` kept for an hour, priced above the 5-minute writes


@dataclass(slots=True)
class Session:
    """One agent session as read from its log: its events in order, and where it ran (never sent)."""

    harness: str
    session_id: str  # only ever an HMAC input for cycle_key
    hversion: str
    events: list[Event] = field(default_factory=list)
    cwd: Path | None = None
    # False when the log has no time per event (aider): active hours and latencies are then unknown.
    timed: bool = True


@dataclass(slots=True)
class Event:
    """One thing the log records (see Kind); the fields below a kind's comment are set for that kind."""

    kind: Kind
    ts: datetime | None
    phase: Phase = "build"
    subagent: bool = False
    # STEP
    model: str = ""  # as the log spells it; canonicalised when the row is made
    provider: str = ""
    effort: str = ""
    latency: float | None = None  # seconds from the input it answers to the step
    cost: float | None = None  # dollars, where the log records a cost
    # STEP or TOKENS: tokens to price with `model`
    tokens: Tokens | None = None
    # EDIT: absolute paths of the files it touched; a failed or rejected call
    files: tuple[Path, ...] = ()
    failed: bool = False
    rejected: bool = False
    # COMMAND: a test, build, lint or type check
    verify: bool = False


def edited_path(raw: str, cwd: Path | None) -> Path:
    """A file an edit names, as the agent wrote it: relative ones under the session's folder when it is known.
    A Windows path (`C:/Users/…`, `c:\\src\\…`) is absolute wherever the log is read."""
    path = Path(raw)
    absolute = path.is_absolute() or PureWindowsPath(raw).is_absolute()
    return path if absolute or cwd is None else cwd / path
