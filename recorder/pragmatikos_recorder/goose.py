"""Goose: `<data dir>/sessions/sessions.db`, one SQLite database holding every session (docs/agents/goose.md).

The data dir is `~/.local/share/goose` on Linux (XDG), `%APPDATA%\\Block\\goose\\data` on Windows and
`<GOOSE_PATH_ROOT>/data` when that is set; macOS builds have used the XDG folder and
`~/Library/Application Support/Block/goose`. The database is opened read-only while Goose may be writing it.
* `sessions {id, working_dir, session_type, accumulated_input_tokens, accumulated_output_tokens,
  provider_name, model_config_json {model_name}}`: the model and the tokens are per session only (schema 6
  on; earlier databases record no model and are skipped, saying so). The session's tokens are shared
  evenly among its steps, so a cycle costs its share of the session; cached tokens are not told apart.
* `messages {id, session_id, role, content_json, created_timestamp (epoch s), metadata_json}` in row order;
  content items are tagged by `type`: `text`, `toolRequest {id, toolCall {status, value {name,
  arguments}}}`, `toolResponse {id, toolResult {status: success|error, value {content, isError}}}`, ….
* A step is one model response: a run of assistant rows (a streamed response may be stored as several).
  A prompt is a user row with text and no tool response that the person saw (`metadata_json.userVisible`);
  agent-only user rows are Goose's own additions. Tool results come back as user rows.
* Edits: `developer__text_editor` (command write/str_replace/insert/undo_edit), `developer__file_write`,
  `developer__file_edit` (and `write`/`edit`) with their `path`; an error result failed, "The user has
  declined to run this tool" turned down. Commands: `developer__shell` {command}. Ctrl-C answers the open
  tool calls "Interrupted by the user to make a correction" and adds an assistant line of its own.
* Only the person's own sessions (`session_type` user or terminal) are read: sub-agent, hidden and
  scheduled sessions record no parent and no typed prompt.
* Goose has no stored plan mode (`/plan` leaves ordinary messages), so every step builds.
* Before the database (2025) each session was `sessions/<id>.jsonl`, with no model; Goose imports them
  into the database on first start, so they are only reported, and only when no database sits beside them.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Final

from pragmatikos_recorder.canonical import provider_of
from pragmatikos_recorder.cline import epoch_time
from pragmatikos_recorder.jsonl import (
    MAX_LINE_BYTES,
    NOT_JSON,
    TOO_DEEP,
    TOO_LARGE,
    _file_read,
    skip_line,
    token_count,
    weigh,
    why_unreadable,
)
from pragmatikos_recorder.session import Event, Kind, Session, Tokens, edited_path, is_commit_command, is_verify_command
from pragmatikos_recorder.skips import Reading, Skipped

HARNESS: Final = "goose"
DB_NAME: Final = "sessions.db"
PERSON_SESSIONS: Final = frozenset({"user", "terminal", ""})
EDIT_TOOLS: Final = frozenset({"file_write", "file_edit", "write", "edit"})
EDITOR_WRITES: Final = frozenset({"write", "str_replace", "insert", "undo_edit", "edit"})
SHELL_TOOLS: Final = frozenset({"shell"})
# Items only a model response holds; a row of other items (a notification) is Goose's own.
MODEL_ITEMS: Final = frozenset({"text", "toolRequest", "thinking", "redactedThinking", "image", "frontendToolRequest"})
GATEWAYS: Final = frozenset({"openrouter", "databricks", "tetrate", "litellm", "github_copilot", "azure_openai"})
DECLINED: Final = "The user has declined to run this tool"
INTERRUPTED: Final = "Interrupted by the user"
BUSY_SECONDS: Final = 2.0
NO_MODEL: Final = "records no model (Goose before schema 6 kept none)"
SESSION_NO_MODEL: Final = "a session that records no model"
LEGACY: Final = "a session file of Goose before its database (2025), which records no model"
UNREADABLE_DB: Final = "not a readable SQLite database (locked, damaged or not one)"
BAD_MESSAGE: Final = "a message row of the wrong shape"


def default_roots() -> tuple[Path, ...]:
    """The folders Goose keeps `sessions/` in, on this system, most likely first."""
    roots: list[Path] = []
    if root := os.environ.get("GOOSE_PATH_ROOT"):
        roots.append(Path(root) / "data")
    home = Path.home()
    if sys.platform == "win32":
        roots.append(Path(os.environ.get("APPDATA") or home / "AppData" / "Roaming") / "Block" / "goose" / "data")
    else:
        roots.append(Path(os.environ.get("XDG_DATA_HOME") or home / ".local" / "share") / "goose")
    if sys.platform == "darwin":
        roots.append(home / "Library" / "Application Support" / "Block" / "goose")
    return tuple(roots)


def find_logs(roots: tuple[Path, ...]) -> list[Path]:
    """Each root's sessions.db (a root may be the sessions folder itself); else its legacy session files."""
    found: list[Path] = []
    for root in roots:
        folder = root if (root / DB_NAME).is_file() else root / "sessions"
        if (folder / DB_NAME).is_file():
            found.append(folder / DB_NAME)
        elif folder.is_dir():
            found.extend(sorted(folder.glob("*.jsonl")))
    return list(dict.fromkeys(found))


@dataclass(frozen=True, slots=True)
class SessionRow:
    """What the sessions table says of one session."""

    number: int  # its rowid, for the scan's report
    id: str
    cwd: Path | None
    kind: str
    model: str
    provider: str
    tokens: Tokens | None


@dataclass(frozen=True, slots=True)
class Message:
    number: int
    role: str
    ts: datetime | None
    items: list[dict[str, Any]]
    user_visible: bool


def _connect(path: Path) -> sqlite3.Connection:
    uri = path.resolve().as_uri() + "?mode=ro"
    connection = sqlite3.connect(uri, uri=True, timeout=BUSY_SECONDS)
    connection.execute("PRAGMA query_only = ON")
    return connection


def _columns(connection: sqlite3.Connection, table: str) -> frozenset[str]:
    return frozenset(str(row[1]) for row in connection.execute(f"PRAGMA table_info({table})"))


def _decode(raw: Any) -> tuple[Any, str | None]:
    """A column holding JSON text, decoded, or why not (weighed first, as a log line is)."""
    if isinstance(raw, str):
        raw = raw.encode()
    if not isinstance(raw, bytes):
        return None, NOT_JSON
    if len(raw) > MAX_LINE_BYTES:
        return None, TOO_LARGE
    if (why := weigh(raw)[1]) is not None:
        return None, why
    try:
        return json.loads(raw.decode("utf-8", errors="replace")), None
    except RecursionError:
        return None, TOO_DEEP
    except ValueError:
        return None, NOT_JSON


def _json(raw: Any) -> Any:
    return _decode(raw)[0]


def _text(raw: Any) -> str:
    return raw if isinstance(raw, str) else ""


def _session_tokens(row: dict[str, Any]) -> Tokens | None:
    pairs = (("accumulated_input_tokens", "accumulated_output_tokens"), ("input_tokens", "output_tokens"))
    for input_key, output_key in pairs:
        counts = [token_count(row.get(input_key)), token_count(row.get(output_key))]
        if row.get(input_key) is not None and all(count is not None for count in counts):
            return Tokens(input=counts[0] or 0, output=counts[1] or 0)
    return None


def _provider(provider: str, model: str) -> str:
    provider = provider.strip().lower()
    return provider_of(model) if not provider or provider in GATEWAYS else provider


def _session(row: dict[str, Any]) -> SessionRow:
    config = _json(row.get("model_config_json"))
    model = str(config.get("model_name") or "") if isinstance(config, dict) else ""
    cwd = _text(row.get("working_dir"))
    return SessionRow(
        number=int(row["rowid"]),
        id=str(row.get("id") or ""),
        cwd=Path(cwd) if cwd and len(cwd) <= 4096 else None,
        kind=_text(row.get("session_type")),
        model=model,
        provider=_provider(_text(row.get("provider_name")), model),
        tokens=_session_tokens(row),
    )


SESSION_COLUMNS: Final = (
    "id", "working_dir", "session_type", "provider_name", "model_config_json",
    "input_tokens", "output_tokens", "accumulated_input_tokens", "accumulated_output_tokens",
)  # fmt: skip


def _sessions(connection: sqlite3.Connection) -> Iterator[dict[str, Any]]:
    present = _columns(connection, "sessions")
    picked = ", ".join(name if name in present else f"NULL AS {name}" for name in SESSION_COLUMNS)
    cursor = connection.execute(f"SELECT rowid, {picked} FROM sessions ORDER BY rowid")  # noqa: S608 (our names)
    names = [d[0] for d in cursor.description]
    for values in cursor:
        yield dict(zip(names, values, strict=True))


def _messages(connection: sqlite3.Connection, path: Path, session_id: str, metadata: bool) -> Iterator[Message]:
    """The session's messages in row order; a row too large or of the wrong shape is reported and passed over."""
    meta = "metadata_json" if metadata else "NULL"
    cursor = connection.execute(
        f"SELECT rowid, role, created_timestamp, {meta} FROM messages WHERE session_id = ? ORDER BY rowid",  # noqa: S608
        (session_id,),
    )
    for number, role, created, metadata_json in cursor:
        message, why = _message(number, role, created, _content(connection, number), metadata_json)
        if message is None:
            skip_line(path, number, why)
        else:
            yield message


def _content(connection: sqlite3.Connection, rowid: int) -> bytes | str:
    """A row's content_json as bytes, read through a blob handle so that its size is known before it is read;
    TOO_LARGE (a str) past MAX_LINE_BYTES. A NULL or a number is no blob: read as a value."""
    try:
        with connection.blobopen("messages", "content_json", rowid, readonly=True) as blob:
            return blob.read() if len(blob) <= MAX_LINE_BYTES else TOO_LARGE
    except sqlite3.OperationalError:  # "cannot open value of type integer/null"
        [value] = connection.execute("SELECT content_json FROM messages WHERE rowid = ?", (rowid,)).fetchone()
        return json.dumps(value).encode()


def _message(
    number: int, role: Any, created: Any, content: bytes | str, metadata_json: Any
) -> tuple[Message | None, str]:
    if isinstance(content, str):
        return None, content
    items, why = _decode(content)
    if why is not None or not isinstance(items, list):
        return None, why or BAD_MESSAGE
    if role not in ("user", "assistant"):
        return None, BAD_MESSAGE
    meta = _json(metadata_json)
    visible = not (isinstance(meta, dict) and meta.get("userVisible") is False)
    ts = epoch_time(created, per_second=1)
    return Message(number, role, ts, [i for i in items if isinstance(i, dict)], visible), ""


def _call(item: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """A tool request's tool (the part after `extension__`) and arguments; ("", {}) when malformed."""
    call = item.get("toolCall")
    value = call.get("value") if isinstance(call, dict) and call.get("status") == "success" else None
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        return "", {}
    arguments = value.get("arguments")
    return value["name"].rsplit("__", 1)[-1], arguments if isinstance(arguments, dict) else {}


def _result(item: dict[str, Any]) -> tuple[bool, str]:
    """(whether the tool call failed, the text it answered with)."""
    result = item.get("toolResult")
    if not isinstance(result, dict):
        return True, ""
    if result.get("status") == "error":
        return True, _text(result.get("error"))
    value = result.get("value")
    content = value.get("content") if isinstance(value, dict) else value
    texts = [_text(c.get("text")) for c in content if isinstance(c, dict)] if isinstance(content, list) else []
    return isinstance(value, dict) and value.get("isError") is True, "\n".join(texts)


@dataclass(slots=True)
class _Reader:
    cwd: Path | None
    model: str
    provider: str
    events: list[Event] = field(default_factory=list)
    last_input: datetime | None = None
    in_response: bool = False  # the previous row was the model's: a further assistant row continues its step
    interrupted: bool = False  # Ctrl-C: Goose adds an assistant line of its own next
    calls: dict[str, tuple[Event, str]] = field(default_factory=dict)  # open tool calls: id -> (event, line)

    def message(self, message: Message) -> None:
        if message.role == "assistant":
            self._assistant(message)
        else:
            self._user(message)

    def _add(self, kind: Kind, ts: datetime | None, **fields: Any) -> Event:
        event = Event(kind, ts, **fields)
        self.events.append(event)
        return event

    def _assistant(self, message: Message) -> None:
        types = {item.get("type") for item in message.items}
        own_line = self.interrupted and types <= {"text"}
        if own_line or not message.user_visible or not types & MODEL_ITEMS:
            self._add(Kind.ACTIVITY, message.ts)
        elif not self.in_response:
            latency = (message.ts - self.last_input).total_seconds() if message.ts and self.last_input else None
            self._add(Kind.STEP, message.ts, model=self.model, provider=self.provider, latency=latency)
        self.interrupted = False
        self.in_response = not own_line
        for item in message.items:
            if item.get("type") == "toolRequest":
                self._request(item, message.ts)

    def _request(self, item: dict[str, Any], ts: datetime | None) -> None:
        tool, arguments = _call(item)
        command = _text(arguments.get("command"))
        if tool in EDIT_TOOLS or (tool == "text_editor" and command in EDITOR_WRITES):
            event = self._add(Kind.EDIT, ts, files=self._files(arguments.get("path")))
        elif tool in SHELL_TOOLS and command:
            event = self._add(Kind.COMMAND, ts, verify=is_verify_command(command))
        else:
            return
        self.calls[str(item.get("id"))] = (event, command if event.kind is Kind.COMMAND else "")

    def _files(self, raw: Any) -> tuple[Path, ...]:
        if not isinstance(raw, str) or not raw or len(raw) > 4096:
            return ()
        return (edited_path(raw, self.cwd),)

    def _user(self, message: Message) -> None:
        self.in_response = False
        self.last_input = message.ts or self.last_input
        responses = [item for item in message.items if item.get("type") == "toolResponse"]
        for item in responses:
            self._response(item, message.ts)
        typed = any(item.get("type") == "text" and _text(item.get("text")).strip() for item in message.items)
        if typed and not responses and message.user_visible:
            self._add(Kind.PROMPT, message.ts)
        else:
            self._add(Kind.ACTIVITY, message.ts)

    def _response(self, item: dict[str, Any], ts: datetime | None) -> None:
        failed, text = _result(item)
        interrupted = failed and INTERRUPTED in text[:200]  # an error, "-32603: Interrupted by the user…"
        if interrupted:
            self.interrupted = True
            self._add(Kind.ABORT, ts)
        opened = self.calls.pop(str(item.get("id")), None)
        if opened is None:
            return
        event, command = opened
        if interrupted or text.startswith(DECLINED):  # stopped before it ran, or turned down
            event.rejected, event.verify = True, False
        elif event.kind is Kind.EDIT:
            event.failed = failed
        elif failed:
            event.verify = False
        elif is_commit_command(command):
            self._add(Kind.COMMIT, ts)


def _share(tokens: Tokens | None, steps: list[Event]) -> None:
    """The session's tokens spread over its steps, the remainder on the last."""
    if tokens is None or not steps:
        return
    count = len(steps)
    for index, step in enumerate(steps):
        last = index == count - 1
        step.tokens = Tokens(
            input=tokens.input // count + (tokens.input % count if last else 0),
            output=tokens.output // count + (tokens.output % count if last else 0),
        )


def _read_session(connection: sqlite3.Connection, path: Path, row: SessionRow, metadata: bool) -> Session | None:
    reader = _Reader(row.cwd, row.model, row.provider)
    for message in _messages(connection, path, row.id, metadata):
        reader.message(message)
    steps = [e for e in reader.events if e.kind is Kind.STEP]
    if not steps:
        return None
    if not row.model:
        skip_line(path, -row.number, SESSION_NO_MODEL)  # sessions rows count apart from message rows
        return None
    _share(row.tokens, steps)
    return Session(HARNESS, row.id, "", reader.events, cwd=row.cwd)


def _read_database(path: Path) -> Reading:
    sessions: list[Session] = []
    connection = _connect(path)
    try:
        session_columns = _columns(connection, "sessions")
        if "model_config_json" not in session_columns:
            return Reading(skipped=Skipped(path, NO_MODEL))
        metadata = "metadata_json" in _columns(connection, "messages")
        for raw in list(_sessions(connection)):
            row = _session(raw)
            if row.kind in PERSON_SESSIONS and (session := _read_session(connection, path, row, metadata)):
                sessions.append(session)
    except sqlite3.Error:  # locked past the wait, damaged part-way: the sessions read so far are kept
        return Reading(sessions, Skipped(path, UNREADABLE_DB))
    finally:
        connection.close()
    return Reading(sessions)


def read(path: Path) -> Reading:
    """The person's sessions in a Goose database; why it gave none, or stopped part-way."""
    if path.suffix == ".jsonl":
        return Reading(skipped=Skipped(path, LEGACY))
    if (why := why_unreadable(path)) is not None:
        return Reading(skipped=Skipped(path, why))
    _file_read(path)
    try:
        return _read_database(path)
    except sqlite3.Error:
        return Reading(skipped=Skipped(path, UNREADABLE_DB))


def parse(path: Path) -> list[Session]:
    return read(path).sessions
