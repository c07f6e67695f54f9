"""GitHub Copilot CLI: ~/.copilot/session-state/<session id>/events.jsonl (`$COPILOT_HOME` moves the folder).

One event a line, `{type, data, id, timestamp, parentId, agentId?}`, as the session-event schema
github/copilot-sdk generates from the CLI's (`nodejs/src/generated/session-events.ts`; the CLI itself
is closed source; see docs/agents/copilot-cli.md). Facts read:
* `session.start {sessionId, copilotVersion, selectedModel, reasoningEffort, context {cwd}}`;
  `session.model_change {newModel, reasoningEffort}` sets the model of the requests that follow.
* Plan mode: `session.mode_changed {newMode}` (`interactive`, `plan`, `autopilot`) and each
  `user.message`'s `agentMode`: `plan` plans, the others build.
* `user.message {content, source, isAutopilotContinuation}`: typed, unless autopilot's loop wrote it
  or a `source` says another agent or a skill did.
* `assistant.turn_start {turnId, model}` starts one model request (a step);
  `assistant.message {model, toolRequests}` is its reply. Events of a subagent carry `agentId` or
  `parentToolCallId`.
* `tool.execution_start {toolCallId, toolName, arguments}` and `tool.execution_complete {toolCallId,
  success, error {message, code}}`: edits are `edit`, `create` (`arguments.path`) and `apply_patch`;
  commands are `bash` and `powershell` (`arguments.command`). A call refused by the person fails with
  a permission error: an intervention, not an edit error. `abort` is the person stopping a turn.
* Tokens: `assistant.usage` per request where it is written (it is usually kept out of the file),
  else `session.shutdown {modelMetrics {<model>: {usage {inputTokens (cached included),
  outputTokens, cacheReadTokens, cacheWriteTokens}}}}`, totals per model for one run of the CLI:
  they are shared out evenly over that run's requests to the model. The log has no dollar cost
  (Copilot bills premium requests): costs come from the price list.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Final

from pragmatikos_recorder.canonical import model_name
from pragmatikos_recorder.jsonl import json_objects, token_count
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

HARNESS: Final = "copilot-cli"
PROVIDER: Final = "github-copilot"
EDIT_TOOLS: Final = frozenset({"edit", "create", "apply_patch", "str_replace_editor", "write"})
SHELL_TOOLS: Final = frozenset({"bash", "powershell"})
REFUSAL_MARKERS: Final = ("denied", "rejected", "declined")
PATCH_FILE_RE: Final = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$|^\*\*\* Move to: (.+)$", re.MULTILINE)
USAGE_KEYS: Final = ("inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens")


def default_root() -> Path:
    home = os.environ.get("COPILOT_HOME")
    return Path(home) if home else Path.home() / ".copilot"


def find_logs(root: Path) -> list[Path]:
    """Each session's events.jsonl (and the flat `<id>.jsonl` files of early versions)."""
    state = root / "session-state"
    if not state.is_dir():
        return []
    return sorted(state.glob("*/events.jsonl")) + sorted(state.glob("*.jsonl"))


def _mapping(raw: Any) -> dict[str, Any]:
    return raw if isinstance(raw, dict) else {}


def _text(raw: Any) -> str:
    return raw if isinstance(raw, str) else ""


def _bad_line(entry: dict[str, Any]) -> str | None:
    if not isinstance(entry.get("type"), str):
        return "no event type"
    if not isinstance(entry.get("data", {}), dict):
        return "event data that is not an object"
    return None


def _usage_tokens(usage: dict[str, Any]) -> Tokens | None:
    counts = [token_count(usage.get(key)) for key in USAGE_KEYS]
    if any(c is None for c in counts):
        return None
    given, output, read, write = (c or 0 for c in counts)
    return Tokens(input=max(given, read + write), output=output, cache_read=read, cache_write=write)


def _arguments(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):  # apply_patch takes the patch itself
        try:
            parsed = json.loads(raw)
        except (ValueError, RecursionError):
            return {"input": raw}
        return parsed if isinstance(parsed, dict) else {"input": raw}
    return {}


@dataclass(slots=True)
class _Call:
    name: str
    arguments: dict[str, Any]
    ts: datetime | None
    phase: Phase
    subagent: bool


@dataclass(slots=True)
class _Reader:
    session_id: str
    version: str = ""
    cwd: Path | None = None
    model: str = ""
    effort: str = ""
    mode: Phase = "build"
    events: list[Event] = field(default_factory=list)
    calls: dict[str, _Call] = field(default_factory=dict)
    # The request each chain (main, subagent) is in, until its reply came; and when its input came.
    open_step: dict[bool, Event | None] = field(default_factory=lambda: {False: None, True: None})
    since: dict[bool, datetime | None] = field(default_factory=lambda: {False: None, True: None})
    run_steps: list[Event] = field(default_factory=list)  # requests since the last shutdown
    has_usage: bool = False

    def line(self, entry: dict[str, Any]) -> None:
        kind, data, ts = entry["type"], _mapping(entry.get("data")), parse_ts(entry.get("timestamp"))
        subagent = bool(entry.get("agentId")) or bool(data.get("parentToolCallId"))
        handler = HANDLERS.get(kind)
        if handler is not None:
            handler(self, data, ts, subagent)

    def start(self, data: dict[str, Any], ts: datetime | None, subagent: bool) -> None:
        self.session_id = _text(data.get("sessionId")) or self.session_id
        self.version = _text(data.get("copilotVersion")) or self.version
        self.model = _text(data.get("selectedModel")) or self.model
        self.effort = _text(data.get("reasoningEffort")) or self.effort
        cwd = _text(_mapping(data.get("context")).get("cwd"))
        self.cwd = Path(cwd) if cwd else self.cwd

    def model_change(self, data: dict[str, Any], ts: datetime | None, subagent: bool) -> None:
        self.model = _text(data.get("newModel")) or self.model
        self.effort = _text(data.get("reasoningEffort"))

    def mode_changed(self, data: dict[str, Any], ts: datetime | None, subagent: bool) -> None:
        self.mode = "plan" if data.get("newMode") == "plan" else "build"

    def user(self, data: dict[str, Any], ts: datetime | None, subagent: bool) -> None:
        if isinstance(data.get("agentMode"), str):
            self.mode = "plan" if data["agentMode"] == "plan" else "build"
        self.since[subagent], self.open_step[subagent] = ts, None
        source = _text(data.get("source"))
        typed = not data.get("isAutopilotContinuation") and source in ("", "user")
        if typed and not subagent and _text(data.get("content")).strip():
            self.events.append(Event(Kind.PROMPT, ts, phase=self.mode))

    def turn_start(self, data: dict[str, Any], ts: datetime | None, subagent: bool) -> None:
        self._step(_text(data.get("model")), ts, subagent)

    def _step(self, model: str, ts: datetime | None, subagent: bool) -> Event:
        step = Event(
            Kind.STEP,
            ts,
            phase=self.mode,
            subagent=subagent,
            model=model or self.model,
            provider=PROVIDER,
            effort=self.effort,
        )
        self.events.append(step)
        self.run_steps.append(step)
        self.open_step[subagent] = step
        return step

    def message(self, data: dict[str, Any], ts: datetime | None, subagent: bool) -> None:
        step = self.open_step[subagent]
        if step is None:  # a reply without a turn_start before it: a request all the same
            step = self._step(_text(data.get("model")), self.since[subagent] or ts, subagent)
        elif data.get("model"):
            step.model = _text(data["model"])
        if step.latency is None and ts is not None and step.ts is not None:
            step.latency = (ts - step.ts).total_seconds()
        self.events.append(Event(Kind.ACTIVITY, ts, phase=step.phase, subagent=subagent))

    def usage(self, data: dict[str, Any], ts: datetime | None, subagent: bool) -> None:
        tokens = _usage_tokens(data)
        step = self.open_step[subagent] or (self.run_steps[-1] if self.run_steps else None)
        if tokens is None or step is None:
            return
        self.has_usage = True
        step.tokens = tokens
        step.model = _text(data.get("model")) or step.model

    def tool_start(self, data: dict[str, Any], ts: datetime | None, subagent: bool) -> None:
        call_id = _text(data.get("toolCallId"))
        if call_id:
            arguments = _arguments(data.get("arguments"))
            self.calls[call_id] = _Call(_text(data.get("toolName")), arguments, ts, self.mode, subagent)

    def tool_complete(self, data: dict[str, Any], ts: datetime | None, subagent: bool) -> None:
        call = self.calls.pop(_text(data.get("toolCallId")), None)
        self.open_step[subagent], self.since[subagent] = None, ts  # the next request answers this result
        self.events.append(Event(Kind.ACTIVITY, ts, phase=self.mode, subagent=subagent))
        if call is None:
            return
        ok = data.get("success") is True
        error = _mapping(data.get("error"))
        refused = not ok and any(
            m in f"{_text(error.get('code'))} {_text(error.get('message'))}".lower() for m in REFUSAL_MARKERS
        )
        if call.name in EDIT_TOOLS:
            self.events.append(
                Event(
                    Kind.EDIT,
                    call.ts or ts,
                    phase=call.phase,
                    subagent=call.subagent,
                    files=self._files(call),
                    failed=not ok and not refused,
                    rejected=refused,
                )
            )
        elif call.name in SHELL_TOOLS:
            command = _text(call.arguments.get("command"))
            verify = is_verify_command(command)
            self.events.append(
                Event(Kind.COMMAND, call.ts or ts, phase=call.phase, subagent=call.subagent, verify=verify)
            )
            if ok and is_commit_command(command):
                self.events.append(Event(Kind.COMMIT, ts or call.ts, phase=call.phase, subagent=call.subagent))
        elif refused:
            self.events.append(Event(Kind.ABORT, ts, phase=call.phase, subagent=call.subagent))

    def _files(self, call: _Call) -> tuple[Path, ...]:
        if call.name == "apply_patch":
            patch = _text(call.arguments.get("input") or call.arguments.get("patch"))
            names = [m.group(1) or m.group(2) for m in PATCH_FILE_RE.finditer(patch)]
        else:
            names = [_text(call.arguments.get("path") or call.arguments.get("file_path"))]
        return tuple(edited_path(name.strip(), self.cwd) for name in names if name.strip())

    def abort(self, data: dict[str, Any], ts: datetime | None, subagent: bool) -> None:
        self.events.append(Event(Kind.ABORT, ts, phase=self.mode, subagent=subagent))
        self.open_step[subagent] = None

    def shutdown(self, data: dict[str, Any], ts: datetime | None, subagent: bool) -> None:
        """One run's token totals per model, shared out over that run's requests to the model."""
        steps, self.run_steps = self.run_steps, []
        if self.has_usage:
            return
        for model, metrics in _mapping(data.get("modelMetrics")).items():
            tokens = _usage_tokens(_mapping(_mapping(metrics).get("usage")))
            if tokens is None or not isinstance(model, str):
                continue
            own = [s for s in steps if model_name(s.model) == model_name(model)]
            if not own:
                self.events.append(
                    Event(Kind.TOKENS, ts, phase=self.mode, model=model, provider=PROVIDER, tokens=tokens)
                )
                continue
            for index, step in enumerate(own):
                step.tokens = _share(tokens, len(own), last=index == len(own) - 1)


def _share(tokens: Tokens, parts: int, *, last: bool) -> Tokens:
    """One of `parts` even shares of `tokens`; the last share takes what division leaves over."""

    def one(total: int) -> int:
        return total - (parts - 1) * (total // parts) if last else total // parts

    return Tokens(one(tokens.input), one(tokens.output), one(tokens.cache_read), one(tokens.cache_write))


HANDLERS: Final = {
    "session.start": _Reader.start,
    "session.resume": _Reader.start,
    "session.model_change": _Reader.model_change,
    "session.mode_changed": _Reader.mode_changed,
    "user.message": _Reader.user,
    "assistant.turn_start": _Reader.turn_start,
    "assistant.message": _Reader.message,
    "assistant.usage": _Reader.usage,
    "tool.execution_start": _Reader.tool_start,
    "tool.execution_complete": _Reader.tool_complete,
    "abort": _Reader.abort,
    "session.shutdown": _Reader.shutdown,
}


def read(path: Path) -> Reading:
    """One session's events as a session; [] when it holds no model request."""
    fallback = path.parent.name if path.name == "events.jsonl" else path.stem
    reader = _Reader(session_id=fallback)
    for entry in json_objects(path, _bad_line):
        reader.line(entry)
    if not any(e.kind is Kind.STEP and not e.subagent for e in reader.events):
        return Reading()
    return Reading([Session(HARNESS, reader.session_id, reader.version, reader.events, cwd=reader.cwd)])


def parse(path: Path) -> list[Session]:
    return read(path).sessions
