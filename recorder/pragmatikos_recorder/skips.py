"""A log file a reader left out, and why: for the person running the scan, never sent."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pragmatikos_recorder.session import Session


@dataclass(frozen=True, slots=True)
class Skipped:
    path: Path
    reason: str  # one plain sentence, e.g. "written before Codex recorded the model"


@dataclass(slots=True)
class Reading:
    """What a reader made of one log file: its sessions, or why it gave none."""

    sessions: list[Session] = field(default_factory=list)
    skipped: Skipped | None = None
