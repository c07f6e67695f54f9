"""aider: `.aider.chat.history.md` in each repository where aider ran.

The file is Markdown appended to by every session, as aider's InputOutput writes it:
* `# aider chat started at YYYY-MM-DD HH:MM:SS` (local time) opens a session;
* `> ` lines are aider's own output: `Aider vX`, `Main model: X with <format> edit format[, reasoning high]`
  (or `Model: …`), `Editor model: Y with …` (architect mode: X plans, Y builds),
  `Tokens: … Cost: $x message, $y session.` after each model reply, `Applied edit to <file>`,
  `Commit <hash> <message>`, `Edit the files? (Y)es/(N)o [Yes]: n` (a plan turned down), `^C`;
* `#### ` lines are user input: a prompt, a `/command`, or, in architect mode, the accepted
  plan handed to the editor model (aider writes it as user input too, right after the plan).
Lines end in two spaces (Markdown line breaks). The log has no time per message: active hours
and step latencies are unknown; a cycle's end is the time of its commit where git knows it.
"""

from __future__ import annotations

import os
import re
from datetime import datetime
from pathlib import Path
from typing import Final

from pragmatikos_recorder.canonical import provider_of
from pragmatikos_recorder.git_ship import _git
from pragmatikos_recorder.jsonl import skip_line, text_lines
from pragmatikos_recorder.session import Event, Kind, Phase, Session, is_verify_command
from pragmatikos_recorder.timeutil import EARLIEST, LATEST

HARNESS: Final = "aider"
HISTORY_NAME: Final = ".aider.chat.history.md"
START_RE: Final = re.compile(r"^# aider chat started at (\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})")
VERSION_RE: Final = re.compile(r"^Aider v(\S+)")
MAIN_MODEL_RE: Final = re.compile(r"^(?:Main model|Model): (\S+) with (\S+) edit format(.*)$")
EDITOR_MODEL_RE: Final = re.compile(r"^Editor model: (\S+)")
EFFORT_RE: Final = re.compile(r"reasoning(?: effort:?)? (\w+)")
COST_RE: Final = re.compile(r"^Tokens: .*Cost: \$([0-9.]+) message")
APPLIED_RE: Final = re.compile(r"^Applied edit to (.+)$")
FAILED_EDIT_RE: Final = re.compile(r"SEARCH/REPLACE blocks? failed to match|did not conform to the edit format")
COMMIT_RE: Final = re.compile(r"^Commit ([0-9a-f]{7,40}) ")
DECLINED_RE: Final = re.compile(r"^Edit the files\? .*: n", re.IGNORECASE)
MAX_COST: Final = 5000.0  # the contract's ceiling for a cycle's cost
SKIPPED_DIRS: Final = frozenset({"node_modules", ".git", ".venv", "venv", "__pycache__", "Library", ".cache"})


def default_root() -> Path:
    return Path.home()


def find_logs(root: Path, max_depth: int = 6) -> list[Path]:
    """History files under `root`, not descending into hidden, dependency or cache folders."""
    found = []
    base_depth = len(root.parts)
    for directory, dirnames, filenames in os.walk(root):
        if HISTORY_NAME in filenames:
            found.append(Path(directory) / HISTORY_NAME)
        if len(Path(directory).parts) - base_depth >= max_depth:
            dirnames[:] = []
        else:
            dirnames[:] = [d for d in dirnames if d not in SKIPPED_DIRS and not d.startswith(".")]
    return sorted(found)


def _commit_time(repo: Path, commit: str) -> datetime | None:
    out = _git(repo, "show", "-s", "--format=%ct", commit)
    try:
        return datetime.fromtimestamp(int(out or "")).astimezone()
    except (ValueError, OverflowError, OSError):
        return None


def _dollars(text: str) -> float | None:
    """A cost as aider prints it, or None for one that is not a sum ("1.2.3", thousands of digits)."""
    try:
        value = float(text)
    except ValueError:
        return None
    return value if 0 <= value <= MAX_COST else None


class _SessionReader:
    def __init__(self, path: Path, started: str) -> None:
        # aider names files relative to the repository's top level, where it keeps the history by default.
        self.repo = next((d for d in (path.parent, *path.parent.parents) if (d / ".git").exists()), path.parent)
        self.started_text = started
        self.started = datetime.strptime(started, "%Y-%m-%d %H:%M:%S").astimezone()  # local time
        self.now = self.started
        self.session = Session(HARNESS, f"{path}\x00{started}", "", [], cwd=self.repo, timed=False)
        self.main_model, self.editor_model, self.effort = "", "", ""
        self.architect = False
        self.awaiting_editor = False  # an architect reply was made; the next user block hands it on
        self.turn: Phase = "build"
        self.in_user_block = False
        self.header = True

    def _add(self, kind: Kind, phase: Phase, **fields: object) -> None:
        self.session.events.append(Event(kind, self.now, phase=phase, **fields))  # type: ignore[arg-type]

    def user_line(self, text: str) -> None:
        self.header = False
        if self.in_user_block:
            return
        self.in_user_block = True
        if text.startswith("/"):
            command, _, rest = text.partition(" ")
            if command in ("/test", "/lint"):
                self._add(Kind.COMMAND, "build", verify=True)
            elif command == "/run":
                self._add(Kind.COMMAND, "build", verify=is_verify_command(rest))
            return
        if self.awaiting_editor:  # the accepted plan, handed to the editor model
            self.awaiting_editor = False
            self.turn = "build"
            return
        self.turn = "plan" if self.architect else "build"
        self._add(Kind.PROMPT, self.turn)

    def output_line(self, text: str) -> None:
        self.in_user_block = False
        if self.header:
            if match := VERSION_RE.match(text):
                self.session.hversion = match.group(1)
            elif match := MAIN_MODEL_RE.match(text):
                self.main_model, self.architect = match.group(1), match.group(2) == "architect"
                effort = EFFORT_RE.search(match.group(3))
                self.effort = effort.group(1) if effort else ""
            elif match := EDITOR_MODEL_RE.match(text):
                self.editor_model = match.group(1)
        if text.startswith("Tokens: "):
            cost = COST_RE.match(text)
            self._step(_dollars(cost.group(1)) if cost else None)
        elif match := APPLIED_RE.match(text):
            self._add(Kind.EDIT, "build", files=(self.repo / match.group(1).strip(),))
        elif FAILED_EDIT_RE.search(text):
            self._add(Kind.EDIT, "build", failed=True)
        elif match := COMMIT_RE.match(text):
            self.now = _commit_time(self.repo, match.group(1)) or self.now
            self._add(Kind.COMMIT, "build")
        elif DECLINED_RE.match(text):
            self.awaiting_editor = False
            self._add(Kind.ABORT, "plan")
        elif text.startswith("^C") or "KeyboardInterrupt" in text:
            self._add(Kind.ABORT, "build")

    def _step(self, cost: float | None) -> None:
        self.header = False
        phase = self.turn
        if phase == "plan":
            model, effort = self.main_model, self.effort
            self.awaiting_editor = True
        else:
            model = self.editor_model if self.architect and self.editor_model else self.main_model
            effort = "" if self.architect else self.effort
        self._add(Kind.STEP, phase, model=model, provider=provider_of(model), effort=effort, cost=cost)


def parse(path: Path) -> list[Session]:
    sessions: list[Session] = []
    reader: _SessionReader | None = None
    for number, raw in text_lines(path):
        line = raw.rstrip()
        if match := START_RE.match(line):
            if reader is not None:
                sessions.append(reader.session)
            reader = _started(path, match.group(1))
            if reader is None:
                skip_line(path, number, "a session start at no real time")
        elif reader is None:
            continue
        elif line.startswith("#### ") or line == "####":
            reader.user_line(line[5:].strip())
        elif line.startswith("> ") or line == ">":
            reader.output_line(line[2:].strip())
        elif line:
            reader.in_user_block = False
    if reader is not None:
        sessions.append(reader.session)
    return [s for s in sessions if any(e.kind is Kind.STEP for e in s.events)]


def _started(path: Path, started: str) -> _SessionReader | None:
    """The reader of a session started at `started`; None for a time that is none (month 13, year 9999),
    whose session's lines are then passed over."""
    try:
        reader = _SessionReader(path, started)
    except (ValueError, OverflowError, OSError):
        return None
    return reader if EARLIEST <= reader.started < LATEST else None
