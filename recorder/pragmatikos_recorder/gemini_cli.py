"""Gemini CLI: ~/.gemini/tmp/<project>/chats/session-*.json (before v0.39) and session-*.jsonl (v0.39+).

`<project>` is the sha256 of the project root before v0.29 and a short name since; the home folder
is `$GEMINI_CLI_HOME/.gemini` when that is set. Facts read (packages/core/src/services/
chatRecordingService.ts, chatRecordingTypes.ts, utils/sessionUtils.ts; see docs/agents/gemini-cli.md):
* `.json`: one `ConversationRecord` {sessionId, startTime, messages[], kind}, rewritten whole.
  `.jsonl`: line 1 is that record without messages; then one line per message, written again each
  time the message changes (the last line of an id is the message); `{"$set": {…}}` lines update
  the record, and a `$set` of `messages` replaces them with a compressed history (a summary as a
  user turn and a canned reply): those are rewrites, not new work, and are not read. `{"$rewindTo":
  id}` takes the conversation back; the requests after it were made all the same and stay counted.
* Messages {id, timestamp, type, content}: `user` (typed, or injected: `isIgnoredUserContent` skips
  empty text, `/` commands, `?` help, `<session_context>` and `<hook_context>`; a slash command is a
  prompt only when the model answers it), `gemini` (one model request: `model`, `tokens {input
  (cached included), output, cached, thoughts, tool}`, `toolCalls[] {name, args, status, timestamp}`),
  and `info`/`error`/`warning` (the CLI's notices, not read).
* Edits are `replace` and `write_file` calls (`args.file_path`); shell is `run_shell_command`
  (`args.command`). A call with status `error` failed; `cancelled` is one the person refused.
* Plan mode is not recorded as a mode: an `enter_plan_mode` call that succeeded starts it, an
  `exit_plan_mode` call the person approved ends it (refused, planning goes on). A session started in
  plan mode shows only the `exit_plan_mode`: a first plan call that exits means it began planning.
  The plan the agent writes under the home folder is no edit.
* Subagents' chats are `chats/<parent session id>/<id>.jsonl`: read with their parent's.
No cost and no CLI version are recorded: costs come from the price list.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Final

from pragmatikos_recorder.json_file import document as json_document
from pragmatikos_recorder.jsonl import json_objects, skip_file, token_count
from pragmatikos_recorder.session import (
    Event,
    Kind,
    Phase,
    Session,
    Tokens,
    edited_path,
    is_commit_command,
    is_verify_command,
)
from pragmatikos_recorder.skips import Reading
from pragmatikos_recorder.timeutil import parse_ts

HARNESS: Final = "gemini-cli"
EDIT_TOOLS: Final = frozenset({"replace", "write_file", "edit", "smart_edit"})
SHELL_TOOLS: Final = frozenset({"run_shell_command"})
ENTER_PLAN: Final = "enter_plan_mode"
EXIT_PLAN: Final = "exit_plan_mode"
INJECTED_PREFIXES: Final = ("<session_context>", "<hook_context>", "<state_snapshot>")
COMMAND_PREFIXES: Final = ("/", "?")
NOT_A_CHAT: Final = "not a Gemini CLI chat (no messages list)"


def default_root() -> Path:
    home = os.environ.get("GEMINI_CLI_HOME")
    return (Path(home) if home else Path.home()) / ".gemini"


def _chat_folders(root: Path) -> Iterable[Path]:
    """Every `chats` folder under `root` (its `tmp/<project>/chats`, or any the person points at)."""
    for folder, dirs, _ in os.walk(root):
        if Path(folder).name == "chats":
            dirs.clear()
            yield Path(folder)
        else:
            dirs[:] = sorted(d for d in dirs if d not in ("checkpoints", "memory", "plans", "tracker", ".git"))


def find_logs(root: Path) -> list[Path]:
    """Main chat files (subagents' chats are read with their parent's)."""
    if not root.is_dir():
        return []
    found: list[Path] = []
    for chats in _chat_folders(root):
        found.extend(sorted(p for p in chats.iterdir() if p.suffix in (".json", ".jsonl") and p.is_file()))
    return found


def subagent_chats(main: Path, session_id: str) -> list[Path]:
    folder = main.parent / session_id
    return sorted(folder.glob("*.jsonl")) if session_id and folder.is_dir() else []


def _mapping(raw: Any) -> dict[str, Any]:
    return raw if isinstance(raw, dict) else {}


def _text(raw: Any) -> str:
    return raw if isinstance(raw, str) else ""


@dataclass(slots=True)
class _Chat:
    session_id: str = ""
    messages: list[dict[str, Any]] = field(default_factory=list)


def _from_document(path: Path) -> _Chat | None:
    record = json_document(path)
    if record is None:
        return None
    record = _mapping(record)
    messages = record.get("messages")
    if not isinstance(messages, list):
        skip_file(path, NOT_A_CHAT)
        return None
    return _Chat(_text(record.get("sessionId")), [m for m in messages if isinstance(m, dict)])


def _from_lines(path: Path) -> _Chat:
    """The messages of a JSONL chat: the last line of each id, in the order ids first appeared."""
    chat = _Chat()
    by_id: dict[str, dict[str, Any]] = {}
    for entry in json_objects(path):
        if "$set" in entry or "$rewindTo" in entry:
            continue  # a compressed history or a rewind: no new work (see the module's notes)
        if "sessionId" in entry and "type" not in entry:  # the record's metadata (line 1)
            chat.session_id = chat.session_id or _text(entry.get("sessionId"))
            continue
        message_id = entry.get("id")
        if isinstance(message_id, str) and message_id:
            by_id[message_id] = entry  # dicts keep the order keys were first set in
        else:
            by_id[f"#{len(by_id)}"] = entry
    chat.messages = list(by_id.values())
    return chat


def _read_chat(path: Path) -> _Chat | None:
    return _from_lines(path) if path.suffix == ".jsonl" else _from_document(path)


# --- events --------------------------------------------------------------------------------------


def _texts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list):
        return []
    return [p if isinstance(p, str) else _text(_mapping(p).get("text")) for p in content]


def _is_tool_result(content: Any) -> bool:
    parts = content if isinstance(content, list) else [content]
    return any(isinstance(p, dict) and "functionResponse" in p for p in parts)


def _typed(message: dict[str, Any]) -> str | None:
    """ "prompt", "command" (a slash command or `?`), or None for lines the CLI wrote itself."""
    content = message.get("content")
    if _is_tool_result(content):
        return None
    texts = [t.strip() for t in _texts(message.get("displayContent") or content)]
    typed = [t for t in texts if t and not t.startswith(INJECTED_PREFIXES)]
    if not typed:
        return None
    return "command" if typed[0].startswith(COMMAND_PREFIXES) else "prompt"


def _tokens(raw: Any) -> Tokens | None:
    tokens = _mapping(raw)
    counts = [token_count(tokens.get(key)) for key in ("input", "output", "cached", "thoughts", "tool")]
    if not tokens or any(c is None for c in counts):
        return None
    given, output, cached, thoughts, tool = (c or 0 for c in counts)
    # `input` is the prompt with its cached part; thoughts are billed as output.
    return Tokens(input=given + tool, output=output + thoughts, cache_read=min(cached, given + tool))


def _starts_in_plan(messages: list[dict[str, Any]]) -> bool:
    for message in messages:
        for call in message.get("toolCalls") or [] if isinstance(message.get("toolCalls"), list) else []:
            name = _mapping(call).get("name")
            if name in (ENTER_PLAN, EXIT_PLAN):
                return bool(name == EXIT_PLAN)
    return False


@dataclass(slots=True)
class _Reader:
    home: Path | None  # Gemini CLI's own folder: plans written there are no edits
    cwd: Path | None
    events: list[Event] = field(default_factory=list)
    mode: Phase = "build"
    last_input: datetime | None = None
    command: Event | None = None  # a slash command no model request has answered yet

    def read(self, messages: list[dict[str, Any]], subagent: bool) -> None:
        self.mode = "plan" if _starts_in_plan(messages) else "build"
        self.last_input = None
        for message in messages:
            kind, ts = message.get("type"), parse_ts(message.get("timestamp"))
            if kind == "user":
                self._user(message, ts, subagent)
            elif kind == "gemini":
                self._reply(message, ts, subagent)
        self._drop_unanswered_command()

    def _user(self, message: dict[str, Any], ts: datetime | None, subagent: bool) -> None:
        self.last_input = ts or self.last_input
        typed = None if subagent else _typed(message)
        if typed is None:
            return
        self._drop_unanswered_command()
        prompt = Event(Kind.PROMPT, ts, phase=self.mode)
        self.events.append(prompt)
        self.command = prompt if typed == "command" else None

    def _drop_unanswered_command(self) -> None:
        """A slash command no model request answered was the CLI's own (`/model`, `/stats`): no prompt."""
        if self.command is not None:
            # An identity search: an equal prompt may come before it.
            index = next(i for i in range(len(self.events) - 1, -1, -1) if self.events[i] is self.command)
            del self.events[index]
            self.command = None

    def _reply(self, message: dict[str, Any], ts: datetime | None, subagent: bool) -> None:
        latency = (ts - self.last_input).total_seconds() if ts and self.last_input else None
        step = Event(
            Kind.STEP,
            ts,
            phase=self.mode,
            subagent=subagent,
            model=_text(message.get("model")),
            provider="google",
            latency=latency,
            tokens=_tokens(message.get("tokens")),
        )
        self.events.append(step)
        if not subagent:
            self.command = None
        self.last_input = ts or self.last_input
        calls = message.get("toolCalls")
        for call in calls if isinstance(calls, list) else []:
            if isinstance(call, dict):
                self._call(call, parse_ts(call.get("timestamp")) or ts, subagent)

    def _call(self, call: dict[str, Any], ts: datetime | None, subagent: bool) -> None:
        name, status, args = call.get("name"), call.get("status"), _mapping(call.get("args"))
        phase = self.mode
        if name in EDIT_TOOLS:
            files = self._files(args)
            if files and self.home is not None and files[0].is_relative_to(self.home):
                return  # the plan file, kept in Gemini CLI's own folder
            self.events.append(
                Event(
                    Kind.EDIT,
                    ts,
                    phase=phase,
                    subagent=subagent,
                    files=files,
                    failed=status == "error",
                    rejected=status == "cancelled",
                )
            )
        elif name in SHELL_TOOLS:
            command = _text(args.get("command"))
            self.events.append(
                Event(Kind.COMMAND, ts, phase=phase, subagent=subagent, verify=is_verify_command(command))
            )
            if status == "success" and is_commit_command(command):
                self.events.append(Event(Kind.COMMIT, ts, phase=phase, subagent=subagent))
        elif name == ENTER_PLAN and status == "success" and not subagent:
            self.mode = "plan"
        elif name == EXIT_PLAN and not subagent:
            if status == "success":
                self.mode = "build"
            else:  # the person turned the plan down: planning goes on
                self.events.append(Event(Kind.ABORT, ts, phase=phase))
        elif status == "cancelled":
            self.events.append(Event(Kind.ABORT, ts, phase=phase, subagent=subagent))
        if ts is not None:
            self.last_input = ts

    def _files(self, args: dict[str, Any]) -> tuple[Path, ...]:
        raw = _text(args.get("file_path") or args.get("absolute_path") or args.get("path"))
        if not raw:
            return ()
        return (edited_path(raw, self.cwd),)


def _home_of(path: Path) -> Path | None:
    """The `.gemini` folder a chat file lies in (`.gemini/tmp/<project>/chats/<file>`), if it does."""
    for parent in path.parents:
        if parent.name == ".gemini":
            return parent
    return None


def read(path: Path) -> Reading:
    """One main chat file as a session, with its subagents' chats; [] for a chat with no model request."""
    chat = _read_chat(path)
    if chat is None:
        return Reading()
    session_id = chat.session_id or path.stem
    # The chat names no working folder (its project folder is a hash or a short name of it): paths
    # the tools were given are absolute, and a cycle without edits is judged without a repository.
    cwd = None
    reader = _Reader(home=_home_of(path), cwd=cwd)
    reader.read(chat.messages, subagent=False)
    for child_path in subagent_chats(path, chat.session_id):
        reader.read(_from_lines(child_path).messages, subagent=True)
    if not any(e.kind is Kind.STEP and not e.subagent for e in reader.events):
        return Reading()
    return Reading([Session(HARNESS, session_id, "", reader.events, cwd=cwd)])


def parse(path: Path) -> list[Session]:
    return read(path).sessions
