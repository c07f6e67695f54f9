"""OpenCode: `opencode.db` (1.2+), the older `storage/` JSON tree, and `opencode export` files.

Where (see docs/agents/opencode.md): `$XDG_DATA_HOME/opencode`, by default `~/.local/share/opencode`
on every platform (OpenCode uses the XDG layout on macOS and Windows too). Three shapes of one record:
* SQLite `opencode.db` (and `opencode-<channel>.db`): tables `session` (id, parent_id, directory,
  version, …), `message` (id, session_id, data) and `part` (id, message_id, session_id, data), `data`
  being the record as JSON without its ids. On first start 1.2 imports the JSON tree and leaves it in
  place: where a database is, the tree beside it is not read again.
* `storage/session/<project>/<ses_…>.json`, `storage/message/<ses_…>/<msg_…>.json`,
  `storage/part/<msg_…>/<prt_…>.json`: one file per record; ids are time-sortable, so name order is
  log order.
* `opencode export <id>` prints `{info: session, messages: [{info, parts}]}`.

Facts read (packages/opencode/src/session/message-v2.ts):
* A user message names the `agent` of its turn (`build`, `plan`, or a custom one): `plan` plans,
  every other agent builds. An assistant message names it too (`agent`, `mode` in older files).
* A prompt is a user message with a text part the person wrote: OpenCode marks its own text parts
  `synthetic` (file contents for `@file`, "continue", the approved plan handed to build) or `ignored`.
* Steps are `step-finish` parts, one per model request (`step-start` opens one), each with that
  request's `tokens` and OpenCode's own `cost` in dollars, which is taken as it is. A message from
  before step parts existed is one step, with the message's tokens and cost.
* `tool` parts `{tool, state {status, input, error, metadata, time {start, end}}}`: edits are
  `edit`, `write`, `multiedit`, `patch`, `apply_patch`; `bash` runs commands. A failed edit has
  status `error`; a refused one says the user rejected permission. An assistant message whose
  `error.name` is `MessageAbortedError` was interrupted.
* A session with a parent (`parent_id`, `parentID`) is a subagent's (the task tool): its work is
  read with its parent's, its prompts are the parent's instructions, not typed.
"""

from __future__ import annotations

import math
import os
import re
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from pragmatikos_recorder.json_file import document as json_document
from pragmatikos_recorder.json_file import json_cell
from pragmatikos_recorder.jsonl import (
    FILE_TOO_MANY_VALUES,
    MAX_FILE_VALUES,
    MAX_LINE_BYTES,
    UNREADABLE,
    _file_read,
    skip_file,
    skip_line,
    token_count,
    why_unreadable,
)
from pragmatikos_recorder.session import Event, Kind, Phase, Session, Tokens, is_commit_command, is_verify_command
from pragmatikos_recorder.skips import Reading
from pragmatikos_recorder.timeutil import EARLIEST, LATEST

HARNESS: Final = "opencode"
EDIT_TOOLS: Final = frozenset({"edit", "write", "multiedit", "patch", "apply_patch"})
SHELL_TOOLS: Final = frozenset({"bash"})
REJECTION_MARKERS: Final = ("rejected permission", "user dismissed")
ABORTED_TOOL: Final = "aborted"
PATCH_FILE_RE: Final = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$|^\*\*\* Move to: (.+)$", re.MULTILINE)
DATABASE_RE: Final = re.compile(r"opencode(?:-[A-Za-z0-9._-]+)?\.db")
# OpenCode's own folders in its data directory: no export is kept there (and `auth.json` holds keys).
NOT_EXPORT_DIRS: Final = frozenset({"storage", "snapshot", "log", "bin", "tool-output", "node_modules", ".git"})
NOT_EXPORT_FILES: Final = frozenset({"auth.json", "mcp-auth.json"})
NOT_AN_EXPORT: Final = "not an OpenCode export (no session info and messages)"
NO_DATABASE: Final = "not an OpenCode database (no session, message and part tables)"
BAD_CELL: Final = "a record that is not a JSON object"


def default_root() -> Path:
    data = os.environ.get("XDG_DATA_HOME")
    return (Path(data) if data else Path.home() / ".local" / "share") / "opencode"


def _databases(root: Path) -> list[Path]:
    return sorted(p for p in root.glob("opencode*.db") if DATABASE_RE.fullmatch(p.name))


def _export_files(root: Path) -> list[Path]:
    found: list[Path] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in NOT_EXPORT_DIRS)
        found.extend(Path(folder) / name for name in sorted(files) if name.endswith(".json"))
    return [p for p in found if p.name not in NOT_EXPORT_FILES]


def find_logs(root: Path) -> list[Path]:
    """Databases, session files of a storage tree no database has imported, and export files under `root`."""
    if not root.is_dir():
        return []
    databases = _databases(root)
    sessions = [] if databases else sorted((root / "storage" / "session").glob("*/ses_*.json"))
    return databases + sessions + _export_files(root)


@dataclass(slots=True)
class _Message:
    info: dict[str, Any]
    parts: list[dict[str, Any]] = field(default_factory=list)


@dataclass(slots=True)
class _Raw:
    """One session as any of the three shapes holds it."""

    id: str
    parent: str
    directory: str
    version: str
    messages: list[_Message] = field(default_factory=list)


def _mapping(raw: Any) -> dict[str, Any]:
    return raw if isinstance(raw, dict) else {}


def _text(raw: Any) -> str:
    return raw if isinstance(raw, str) else ""


def ms_time(raw: Any) -> datetime | None:
    """Milliseconds since 1970 (OpenCode's times) as an aware UTC datetime; None when it is no real time."""
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not math.isfinite(raw):
        return None
    seconds = raw / 1000
    if not EARLIEST.timestamp() <= seconds < LATEST.timestamp():
        return None
    return datetime.fromtimestamp(seconds, UTC)


def _raw(info: dict[str, Any], fallback_id: str) -> _Raw:
    return _Raw(
        id=_text(info.get("id")) or fallback_id,
        parent=_text(info.get("parentID")),
        directory=_text(info.get("directory")),
        version=_text(info.get("version")),
    )


# --- the three shapes -------------------------------------------------------------------------


def _export(path: Path) -> _Raw | None:
    document = json_document(path)
    if document is None:
        return None
    info, messages = _mapping(document).get("info"), _mapping(document).get("messages")
    if not isinstance(info, dict) or not isinstance(messages, list):
        skip_file(path, NOT_AN_EXPORT)
        return None
    raw = _raw(info, path.stem)
    for entry in messages:
        entry = _mapping(entry)
        parts = entry.get("parts")
        if isinstance(entry.get("info"), dict):
            raw.messages.append(
                _Message(entry["info"], [p for p in parts if isinstance(p, dict)] if isinstance(parts, list) else [])
            )
    return raw


def _record(path: Path) -> dict[str, Any] | None:
    value = json_document(path)
    if isinstance(value, dict):
        return value
    if value is not None:
        skip_line(path, 1, BAD_CELL)
    return None


def _stored(path: Path) -> _Raw | None:
    """A session of the storage tree: `path` is its info file, `storage/session/<project>/<id>.json`."""
    info = _record(path)
    if info is None:
        return None
    raw = _raw(info, path.stem)
    storage = path.parent.parent.parent
    for message_path in sorted((storage / "message" / raw.id).glob("msg_*.json")):
        message = _record(message_path)
        if message is None:
            continue
        message_id = message.setdefault("id", message_path.stem)
        message_id = message_id if isinstance(message_id, str) else message_path.stem
        parts = [p for p in map(_record, sorted((storage / "part" / message_id).glob("prt_*.json"))) if p]
        raw.messages.append(_Message(message, parts))
    return raw


def _stored_parent(path: Path) -> str:
    info = _record(path)
    return _text(info.get("parentID")) if info else ""


@dataclass(slots=True)
class _Budget:
    """The values a database's cells have made so far: a file of too many is read no further."""

    path: Path
    values: int = 0

    def spend(self, values: int) -> bool:
        self.values += values
        if self.values > MAX_FILE_VALUES:
            skip_file(self.path, FILE_TOO_MANY_VALUES)
            return False
        return True


def _cells(budget: _Budget, rows: Iterator[tuple[Any, ...]]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(id, record) of each row (id, data) whose data is a JSON object; other rows counted and passed over."""
    for number, (row_id, data) in enumerate(rows, start=1):
        value, values, why = json_cell(data)
        if not budget.spend(values):
            raise _OverBudget
        if why is None and not isinstance(value, dict):
            why = BAD_CELL
        if why is not None:
            skip_line(budget.path, number, why)
            continue
        yield str(row_id), value


class _OverBudget(Exception):
    """A database whose records make more values than a log file may: what was read so far is kept."""


def _connect(path: Path) -> sqlite3.Connection | None:
    try:
        # Read-only: OpenCode may be writing it (WAL); nothing here ever changes it.
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        names = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    except (sqlite3.Error, OSError, ValueError):
        skip_file(path, UNREADABLE)
        return None
    if not {"session", "message", "part"} <= names:
        connection.close()
        skip_file(path, NO_DATABASE)
        return None
    return connection


def _session_row(row: sqlite3.Row) -> _Raw:
    columns = row.keys()

    def column(name: str) -> str:
        return _text(row[name]) if name in columns else ""

    return _Raw(id=str(row["id"]), parent=column("parent_id"), directory=column("directory"), version=column("version"))


def _database(path: Path) -> list[_Raw]:
    if (why := why_unreadable(path)) is not None:
        skip_file(path, why)
        return []
    connection = _connect(path)
    if connection is None:
        return []
    _file_read(path)
    sessions: list[_Raw] = []
    try:
        connection.row_factory = sqlite3.Row
        sessions = [_session_row(row) for row in connection.execute("SELECT * FROM session ORDER BY id")]
        connection.row_factory = None
        budget = _Budget(path)
        for raw in sessions:
            _database_messages(connection, raw, budget)
    except _OverBudget:
        pass
    except sqlite3.Error:
        skip_file(path, UNREADABLE)
    finally:
        connection.close()
    return sessions


def _database_messages(connection: sqlite3.Connection, raw: _Raw, budget: _Budget) -> None:
    # A cell longer than a log line is not loaded: SQLite is asked for its length first.
    cell = f"CASE WHEN length(data) <= {MAX_LINE_BYTES} THEN data END"
    messages = connection.execute(f"SELECT id, {cell} FROM message WHERE session_id = ? ORDER BY id", (raw.id,))  # noqa: S608
    by_id: dict[str, _Message] = {}
    for message_id, info in _cells(budget, messages):
        info.setdefault("id", message_id)  # the cell holds the record without its ids
        by_id[message_id] = _Message(info)
        raw.messages.append(by_id[message_id])
    parts = connection.execute(f"SELECT message_id, {cell} FROM part WHERE session_id = ? ORDER BY id", (raw.id,))  # noqa: S608
    for message_id, part in _cells(budget, parts):
        if message_id in by_id:
            by_id[message_id].parts.append(part)


# --- events -----------------------------------------------------------------------------------


def _phase(info: dict[str, Any]) -> Phase:
    agent = info.get("agent") or info.get("mode")
    return "plan" if agent == "plan" else "build"


def _typed(parts: list[dict[str, Any]]) -> bool:
    """Whether a user message holds text the person wrote (OpenCode marks its own text synthetic or ignored)."""
    return any(
        p.get("type") == "text" and _text(p.get("text")).strip() and not p.get("synthetic") and not p.get("ignored")
        for p in parts
    )


def _tokens(raw: Any) -> Tokens | None:
    tokens = _mapping(raw)
    cache = _mapping(tokens.get("cache"))
    counts = [token_count(v) for v in (tokens.get("input"), tokens.get("output"), tokens.get("reasoning"))]
    cached = [token_count(cache.get("read")), token_count(cache.get("write"))]
    if not tokens or any(c is None for c in (*counts, *cached)):
        return None
    given, output, reasoning = (c or 0 for c in counts)
    read, write = (c or 0 for c in cached)
    # OpenCode counts cached input apart from `input`; Tokens.input counts every input token.
    return Tokens(input=given + read + write, output=output + reasoning, cache_read=read, cache_write=write)


def _cost(raw: Any) -> float | None:
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not 0 <= raw <= 5000:
        return None
    return float(raw)


def _patch_files(patch: str, base: Path | None) -> tuple[Path, ...]:
    files = []
    for match in PATCH_FILE_RE.finditer(patch):
        path = Path((match.group(1) or match.group(2)).strip())
        files.append(path if path.is_absolute() or base is None else base / path)
    return tuple(files)


def _edit_files(name: str, tool_input: dict[str, Any], cwd: Path | None) -> tuple[Path, ...]:
    if name in ("patch", "apply_patch"):
        return _patch_files(_text(tool_input.get("patchText") or tool_input.get("patch")), cwd)
    raw = _text(tool_input.get("filePath") or tool_input.get("file_path"))
    if not raw:
        return ()
    path = Path(raw)
    return (path if path.is_absolute() or cwd is None else cwd / path,)


@dataclass(slots=True)
class _Reader:
    """One pass over a session's messages (and its subagents', read after it)."""

    cwd: Path | None
    events: list[Event] = field(default_factory=list)

    def message(self, message: _Message, subagent: bool, efforts: dict[str, str]) -> None:
        info = message.info
        created = ms_time(_mapping(info.get("time")).get("created"))
        phase = _phase(info)
        if info.get("role") == "user":
            model = _mapping(info.get("model"))
            efforts[_text(info.get("id"))] = _text(model.get("variant") or info.get("variant"))
            if not subagent and _typed(message.parts):
                self.events.append(Event(Kind.PROMPT, created, phase=phase))
            return
        if info.get("role") != "assistant":
            return
        effort = efforts.get(_text(info.get("parentID")), "") or _text(info.get("variant"))
        step_base = Event(
            Kind.STEP,
            created,
            phase=phase,
            subagent=subagent,
            model=_text(info.get("modelID")),
            provider=_text(info.get("providerID")),
            effort=effort,
        )
        self._steps(message, step_base, created)
        completed = ms_time(_mapping(info.get("time")).get("completed"))
        if completed is not None:
            self.events.append(Event(Kind.ACTIVITY, completed, phase=phase, subagent=subagent))
        if _mapping(info.get("error")).get("name") == "MessageAbortedError":
            self.events.append(Event(Kind.ABORT, completed or created, phase=phase, subagent=subagent))

    def _steps(self, message: _Message, base: Event, created: datetime | None) -> None:
        stepped = any(p.get("type") in ("step-start", "step-finish") for p in message.parts)
        step: Event | None = None
        last_input = created
        for part in message.parts:
            kind = part.get("type")
            if kind == "step-start" or (step is None and (kind == "step-finish" or not stepped)):
                step = self._open_step(base, last_input)
            if kind == "step-finish" and step is not None:
                step.tokens, step.cost = _tokens(part.get("tokens")), _cost(part.get("cost"))
                step = None
            elif kind == "tool":
                last_input = self._tool(part, base, step) or last_input
            elif kind in ("text", "reasoning") and step is not None:
                self._first_output(step, ms_time(_mapping(part.get("time")).get("start")), last_input)
        if not stepped:
            if step is None:
                step = self._open_step(base, last_input)
            step.tokens, step.cost = _tokens(message.info.get("tokens")), _cost(message.info.get("cost"))

    def _open_step(self, base: Event, since: datetime | None) -> Event:
        step = Event(
            Kind.STEP,
            since,
            phase=base.phase,
            subagent=base.subagent,
            model=base.model,
            provider=base.provider,
            effort=base.effort,
        )
        self.events.append(step)
        return step

    @staticmethod
    def _first_output(step: Event, when: datetime | None, since: datetime | None) -> None:
        """The step's time is its first output; its latency, the wait for it since its input."""
        if when is None or step.latency is not None:
            return
        step.ts = when
        step.latency = (when - since).total_seconds() if since is not None else None

    def _tool(self, part: dict[str, Any], base: Event, step: Event | None) -> datetime | None:
        """The tool call's events; the time its result came back (the next step's input), if known."""
        name, state = _text(part.get("tool")), _mapping(part.get("state"))
        times = _mapping(state.get("time"))
        start, end = ms_time(times.get("start")), ms_time(times.get("end"))
        if step is not None:
            self._first_output(step, start, step.ts)
        tool_input = _mapping(state.get("input"))
        status, error = state.get("status"), _text(state.get("error")).lower()
        phase, subagent = base.phase, base.subagent
        if name in EDIT_TOOLS:
            rejected = status == "error" and any(m in error for m in REJECTION_MARKERS)
            aborted = status == "error" and ABORTED_TOOL in error
            failed = status == "error" and not rejected and not aborted
            files = _edit_files(name, tool_input, self.cwd)
            self.events.append(
                Event(Kind.EDIT, start, phase=phase, subagent=subagent, files=files, failed=failed, rejected=rejected)
            )
        elif name in SHELL_TOOLS:
            command = _text(tool_input.get("command"))
            self.events.append(
                Event(Kind.COMMAND, start, phase=phase, subagent=subagent, verify=is_verify_command(command))
            )
            exit_code = _mapping(state.get("metadata")).get("exit")
            ran = status == "completed" and exit_code in (0, None)
            if ran and is_commit_command(command):
                self.events.append(Event(Kind.COMMIT, end or start, phase=phase, subagent=subagent))
        if end is not None:
            self.events.append(Event(Kind.ACTIVITY, end, phase=phase, subagent=subagent))
        return end


def _session(raw: _Raw, children: list[_Raw]) -> Session | None:
    cwd = Path(raw.directory) if raw.directory else None
    reader = _Reader(cwd)
    for source, subagent in ((raw, False), *((child, True) for child in children)):
        efforts: dict[str, str] = {}
        for message in source.messages:
            reader.message(message, subagent, efforts)
    if not any(e.kind is Kind.STEP and not e.subagent for e in reader.events):
        return None
    # Subagent events are merged in by time when the session is cut (cycles.ordered_events).
    return Session(HARNESS, raw.id, raw.version, reader.events, cwd=cwd)


def _with_children(raws: list[_Raw]) -> list[Session]:
    children: dict[str, list[_Raw]] = {}
    for raw in raws:
        if raw.parent:
            children.setdefault(raw.parent, []).append(raw)
    sessions = (_session(raw, children.get(raw.id, [])) for raw in raws if not raw.parent)
    return [s for s in sessions if s is not None]


@dataclass(frozen=True, slots=True)
class Subagents:
    """Storage-tree sessions that are subagents', by their parent's id."""

    of_parent: dict[str, list[Path]] = field(default_factory=dict)
    paths: frozenset[Path] = frozenset()


def _in_storage(path: Path) -> bool:
    """Whether `path` is a session file of a storage tree, `storage/session/<project>/<id>.json`."""
    return path.parent.parent.name == "session" and path.parent.parent.parent.name == "storage"


def index_subagents(paths: list[Path]) -> Subagents:
    of_parent: dict[str, list[Path]] = {}
    for path in paths:
        if _in_storage(path) and (parent := _stored_parent(path)):
            of_parent.setdefault(parent, []).append(path)
    return Subagents(of_parent, frozenset(p for group in of_parent.values() for p in group))


def read(path: Path, subagents: Subagents | None = None) -> Reading:
    """The sessions one database, storage-tree session file or export file holds (subagents with their parent)."""
    subagents = subagents or Subagents()
    if path.suffix == ".db":
        return Reading(_with_children(_database(path)))
    if path in subagents.paths:
        return Reading()
    if _in_storage(path):
        raw = _stored(path)
        if raw is None:
            return Reading()
        children = [c for c in map(_stored, subagents.of_parent.get(raw.id, [])) if c is not None]
        session = _session(raw, children)
        return Reading([session] if session else [])
    raw = _export(path)
    if raw is None:
        return Reading()
    if raw.parent:  # an export of a subagent's session: its parent is another export, or none
        return Reading()
    session = _session(raw, [])
    return Reading([session] if session else [])


def parse(path: Path, subagents: Subagents | None = None) -> list[Session]:
    return read(path, subagents).sessions
