"""Codex CLI: ~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl (or $CODEX_HOME/sessions).

Lines are {timestamp, type, payload}, as Codex's rollout recorder writes them:
* `session_meta` {id, cwd, cli_version, model_provider, git}; `turn_context` {model, effort, cwd,
  collaboration_mode: {mode: plan|default, settings: {model, reasoning_effort}}} (plan mode in later versions).
* `response_item`: the model's output items (`reasoning`, assistant `message`, `function_call`
  {name, arguments, call_id}, `custom_tool_call` {name: apply_patch, input, call_id}) and their
  results (`function_call_output` / `custom_tool_call_output` {call_id, output}). A step is a run
  of output items between two inputs. Shell calls are `shell` {command: [argv]} or
  `exec_command` {cmd}; edits are apply_patch payloads, whose `*** Add/Update/Delete File:` lines
  name the files.
* Code mode (0.14x): one `custom_tool_call` {name: exec, input: a JavaScript script} calls the other tools
  from inside (`tools.apply_patch(…)`, `tools.exec_command({cmd})`; see codex_scripts.py). Each patch
  applied is an `event_msg` `patch_apply_end` {call_id: "exec-…", success, status, changes: {path: …}};
  a patch that fails verification leaves "apply_patch verification failed" in the script's output. A
  `patch_apply_end` whose call_id is a tool call of the log repeats that call's edit and is not counted.
* `event_msg`: `user_message` (what the person typed), `turn_aborted` (an interruption),
  `token_count` {info: {total_token_usage: {input_tokens, cached_input_tokens, output_tokens,
  reasoning_output_tokens}, last_token_usage: {…}}}: running totals, so a cycle's tokens are the growth of the
  totals; a file's first count adds its last usage only (a resumed session's totals start where the session it
  resumes left them).
* Subagent threads (later versions) have rollouts of their own whose session_meta says
  `source: {subagent: {thread_spawn: {parent_thread_id}}}`; their work is read with the parent's.
* The model is only on `turn_context`: a rollout without one is skipped, saying so, rather than
  read into cycles without a model.
* Rollouts of mid-2025 (before the envelope) are bare lines: a header {id, timestamp, instructions,
  git}, `{"record_type": "state"}` markers and response items with no time of their own. They record
  no model and no times: they are skipped, saying so.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Final

from pragmatikos_recorder.codex_scripts import ScriptCalls, completed, failed_patches, running_cell, script_calls
from pragmatikos_recorder.jsonl import json_objects, token_count
from pragmatikos_recorder.session import Event, Kind, Phase, Session, Tokens, is_commit_command, is_verify_command
from pragmatikos_recorder.skips import Reading, Skipped
from pragmatikos_recorder.timeutil import parse_ts

HARNESS: Final = "codex"
OUTPUT_ITEMS: Final = frozenset(
    {"reasoning", "function_call", "custom_tool_call", "local_shell_call", "web_search_call", "tool_search_call"}
)
RESULT_ITEMS: Final = frozenset({"function_call_output", "custom_tool_call_output", "local_shell_call_output"})
CALL_ITEMS: Final = frozenset({"function_call", "custom_tool_call", "local_shell_call"})
SHELL_NAMES: Final = frozenset({"shell", "container.exec", "local_shell", "exec_command", "shell_command"})
PATCH_FILE_RE: Final = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$|^\*\*\* Move to: (.+)$", re.MULTILINE)
EXIT_CODE_RES: Final = (re.compile(r"Exit code: (-?\d+)"), re.compile(r"Process exited with code (-?\d+)"))
PRE_ENVELOPE: Final = (
    "written in Codex's rollout format of mid-2025 (lines without the timestamp/type/payload envelope), "
    "which records neither the model nor the time of each step"
)
NO_MODEL: Final = "records no model (it has no turn_context, where Codex writes the model)"


def default_root() -> Path:
    home = os.environ.get("CODEX_HOME")
    return Path(home) if home else Path.home() / ".codex"


def find_logs(root: Path) -> list[Path]:
    sessions = root / "sessions"
    return sorted(sessions.rglob("rollout-*.jsonl")) if sessions.is_dir() else []


TOKEN_KEYS: Final = ("input_tokens", "output_tokens", "cached_input_tokens")


def _bad_line(entry: dict[str, Any]) -> str | None:
    """What makes a line unusable (the reader would misread it or stop on it), or None."""
    payload = entry.get("payload")
    if not isinstance(payload, dict):
        return "no payload object"
    if not all(isinstance(kind, str | None) for kind in (entry.get("type"), payload.get("type"))):
        return "a type that is not a string"
    info = payload.get("info")
    usage = info.get("total_token_usage") if isinstance(info, dict) else None
    if isinstance(usage, dict) and any(token_count(usage.get(key)) is None for key in TOKEN_KEYS):
        return "a token count that is not a whole number"
    return None


def _tokens(usage: dict[str, Any]) -> Tokens:
    return Tokens(
        input=token_count(usage.get("input_tokens")) or 0,
        output=token_count(usage.get("output_tokens")) or 0,
        cache_read=token_count(usage.get("cached_input_tokens")) or 0,
    )


def _before_first_count(total: Tokens, last: object) -> Tokens:
    """The running totals as this file's first step found them. A resumed session's file starts from the totals
    of the session it resumes (spent in another file, or before the part of a log kept), so its first step spent
    only its own last usage; without one (older versions), the whole total is taken as this file's."""
    if not isinstance(last, dict) or any(token_count(last.get(key)) is None for key in TOKEN_KEYS):
        return Tokens()
    own = _tokens(last)
    if own == Tokens() or own.input > total.input or own.output > total.output or own.cache_read > total.cache_read:
        return Tokens()
    return Tokens(total.input - own.input, total.output - own.output, total.cache_read - own.cache_read)


def _lines(path: Path) -> Iterator[dict[str, Any]]:
    return json_objects(path, _bad_line)


def _succeeded(output: Any) -> bool:
    """Whether a tool output reports success: exit code 0, or no failure said."""
    text = output if isinstance(output, str) else json.dumps(output)
    try:
        parsed = json.loads(text)
    except (ValueError, TypeError, RecursionError):  # not JSON; a crafted one too deep or too long a number
        parsed = None
    if isinstance(parsed, dict):
        code = (parsed.get("metadata") or {}).get("exit_code") if isinstance(parsed.get("metadata"), dict) else None
        if isinstance(code, int):
            return code == 0
        text = str(parsed.get("output", text))
    for pattern in EXIT_CODE_RES:
        if match := pattern.search(text):
            # Compared as text: a crafted code of thousands of digits is past what int() reads.
            return set(match.group(1).lstrip("-")) == {"0"}
    lowered = text.lstrip().lower()
    return not lowered.startswith(("error", "failed", "apply_patch verification failed"))


def _output_text(output: Any) -> str:
    """A tool output's text: a string, the `output` of a JSON one, or the texts of a list of content items."""
    if isinstance(output, list):
        return "".join(str(item.get("text", "")) for item in output if isinstance(item, dict))
    if not isinstance(output, str):
        return ""
    try:
        parsed = json.loads(output) if output.startswith("{") else None
    except (ValueError, RecursionError):
        parsed = None
    return str(parsed.get("output", "")) if isinstance(parsed, dict) else output


def _mapping(raw: Any) -> dict[str, Any]:
    return raw if isinstance(raw, dict) else {}


def _arguments(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    try:
        parsed = json.loads(raw) if isinstance(raw, str) else None
    except (ValueError, RecursionError):
        return {}
    return parsed if isinstance(parsed, dict) else {}


def _command_text(name: str, arguments: dict[str, Any]) -> str:
    command = arguments.get("command", arguments.get("cmd", ""))
    if isinstance(command, list):
        # ["bash", "-lc", "pytest -q"] runs its last element; ["apply_patch", patch] is an edit.
        if command[:1] == ["apply_patch"]:
            return "apply_patch\n" + " ".join(str(part) for part in command[1:])
        return str(command[-1]) if command[:1] in (["bash"], ["sh"], ["zsh"]) else " ".join(map(str, command))
    return str(command)


def _paths(names: list[str], base: Path | None) -> tuple[Path, ...]:
    paths = (Path(name.strip()) for name in names)
    return tuple(path if path.is_absolute() or base is None else base / path for path in paths)


def _patch_files(patch: str, base: Path | None) -> tuple[Path, ...]:
    return _paths([match.group(1) or match.group(2) for match in PATCH_FILE_RE.finditer(patch)], base)


def _patch_end(payload: dict[str, Any], ts: datetime | None, phase: Phase, cwd: Path | None) -> Event:
    """The edit a `patch_apply_end` reports: its files (a moved one under both names), failed or declined."""
    names = []
    for name, change in _mapping(payload.get("changes")).items():
        names.append(name)
        if moved := _mapping(change).get("move_path"):
            names.append(str(moved))
    declined = payload.get("status") == "declined"
    failed = not declined and (payload.get("success") is False or payload.get("status") == "failed")
    return Event(Kind.EDIT, ts, phase=phase, files=_paths(names, cwd), failed=failed, rejected=declined)


@dataclass(frozen=True, slots=True)
class _Script:
    """A code-mode script whose output is still to come, and the phase it was called in."""

    calls: ScriptCalls
    phase: Phase


@dataclass(slots=True)
class _Scripts:
    """Scripts awaiting their output, by the call that will return it (the exec call, or a later `wait`)."""

    pending: dict[str, _Script] = field(default_factory=dict)
    yielded: dict[str, _Script] = field(default_factory=dict)  # by cell id, until a `wait` call names it


def _script_call(
    events: list[Event], scripts: _Scripts, payload: dict[str, Any], ts: datetime | None, phase: Phase
) -> None:
    calls = script_calls(str(payload.get("input", "")))
    for command in calls.commands_before_last_patch:
        events.append(Event(Kind.COMMAND, ts, phase=phase, verify=is_verify_command(command)))
    if calls.patches or calls.commands_after_last_patch or calls.commits:
        scripts.pending[str(payload.get("call_id", ""))] = _Script(calls, phase)


def _script_output(events: list[Event], scripts: _Scripts, call_id: str, output: str, ts: datetime | None) -> None:
    """What a script's output says: patches that failed, and (once it completed) the commands after them."""
    script = scripts.pending.pop(call_id, None)
    if script is None:
        return
    if script.calls.patches:
        events.extend(Event(Kind.EDIT, ts, phase=script.phase, failed=True) for _ in range(failed_patches(output)))
    if (cell := running_cell(output)) is not None:
        scripts.yielded[cell] = script
    elif completed(output):
        for command in script.calls.commands_after_last_patch:
            events.append(Event(Kind.COMMAND, ts, phase=script.phase, verify=is_verify_command(command)))
        if script.calls.commits:
            events.append(Event(Kind.COMMIT, ts, phase=script.phase))


@dataclass(frozen=True, slots=True)
class Subagents:
    """Which rollouts are subagent threads (later versions), by the parent thread they work for."""

    of_parent: dict[str, list[Path]] = field(default_factory=dict)
    paths: frozenset[Path] = frozenset()


def _parent_thread(meta: dict[str, Any]) -> str | None:
    """The parent thread id of a subagent's session_meta; "" for a subagent without one; None for a main thread."""
    source = meta.get("source")
    if not (isinstance(source, dict) and "subagent" in source) and meta.get("thread_source") != "subagent":
        return None
    spawn = _mapping(_mapping(_mapping(source).get("subagent")).get("thread_spawn"))
    return str(spawn.get("parent_thread_id") or "")


def index_subagents(paths: list[Path]) -> Subagents:
    """Reads each rollout's first line (its session_meta) to find the subagent threads and their parents."""
    of_parent: dict[str, list[Path]] = {}
    children = set()
    for path in paths:
        first = next(_lines(path), None)
        if first is None or first.get("type") != "session_meta":
            continue
        parent = _parent_thread(first["payload"])
        if parent is not None:
            children.add(path)
            if parent:
                of_parent.setdefault(parent, []).append(path)
    return Subagents(of_parent, frozenset(children))


def parse(path: Path, subagents: Subagents | None = None) -> list[Session]:
    """One rollout as a session, with the work of its subagent threads; [] for a subagent's own rollout."""
    return read(path, subagents).sessions


def read(path: Path, subagents: Subagents | None = None) -> Reading:
    """As `parse`, and why a rollout gave no session when it had work but could not be read."""
    subagents = subagents or Subagents()
    if path in subagents.paths:
        return Reading()
    session = _read(path)
    if not isinstance(session, Session):
        return Reading(skipped=session)
    for child_path in subagents.of_parent.get(session.session_id, []):
        child = _read(child_path)
        for event in child.events if isinstance(child, Session) else []:
            # The subagent's "prompt" is the task its parent gave it, not something the person typed.
            if event.kind is not Kind.PROMPT:
                event.subagent = True
                session.events.append(event)
    return Reading([session])


def _is_pre_envelope(first: dict[str, Any] | None) -> bool:
    return first is not None and "payload" not in first and "id" in first and "timestamp" in first


def _read(path: Path) -> Session | Skipped | None:
    """The rollout's session; why it was skipped; or None when it holds no assistant step."""
    if _is_pre_envelope(next(json_objects(path), None)):
        return Skipped(path, PRE_ENVELOPE)
    entries = list(_lines(path))
    outputs: dict[str, tuple[bool, datetime | None]] = {}
    calls: set[str] = set()
    for entry in entries:
        payload = entry["payload"]
        if entry.get("type") != "response_item" or not payload.get("call_id"):
            continue
        if payload.get("type") in RESULT_ITEMS:
            outputs[str(payload["call_id"])] = (_succeeded(payload.get("output")), parse_ts(entry.get("timestamp")))
        elif payload.get("type") in CALL_ITEMS:
            calls.add(str(payload["call_id"]))

    session_id, version, provider = path.stem, "", "openai"
    cwd: Path | None = None
    model, effort = "", ""
    phase_now: Phase = "build"
    events: list[Event] = []
    step: Event | None = None
    last_input: datetime | None = None
    totals: Tokens | None = None
    scripts = _Scripts()
    for entry in entries:
        kind, payload, ts = entry.get("type"), entry["payload"], parse_ts(entry.get("timestamp"))
        if kind == "session_meta":
            session_id = str(payload.get("id") or session_id)
            version = str(payload.get("cli_version") or version)
            provider = str(payload.get("model_provider") or provider)
            cwd = Path(str(payload["cwd"])) if payload.get("cwd") else cwd
        elif kind == "turn_context":
            # Later versions carry a collaboration mode (plan or default) with its own model and effort.
            mode = _mapping(payload.get("collaboration_mode"))
            settings = _mapping(mode.get("settings"))
            model = str(payload.get("model") or settings.get("model") or model)
            effort = str(payload.get("effort") or settings.get("reasoning_effort") or "")
            phase_now = "plan" if mode.get("mode") == "plan" else "build"
            cwd = Path(str(payload["cwd"])) if payload.get("cwd") else cwd
        elif kind == "event_msg":
            event_type = payload.get("type")
            if event_type == "user_message":
                events.append(Event(Kind.PROMPT, ts, phase=phase_now))
                step, last_input = None, ts
            elif event_type == "turn_aborted":
                events.append(Event(Kind.ABORT, ts, phase=phase_now))
                step = None
            elif event_type == "patch_apply_end" and str(payload.get("call_id", "")) not in calls:
                events.append(_patch_end(payload, ts, phase_now, cwd))  # one a code-mode script applied
            elif event_type == "token_count" and isinstance(payload.get("info"), dict):
                usage = payload["info"].get("total_token_usage")
                if isinstance(usage, dict):
                    now = _tokens(usage)
                    if totals is None or now != totals:
                        base = totals or _before_first_count(now, payload["info"].get("last_token_usage"))
                        spent = Tokens(
                            max(0, now.input - base.input),
                            max(0, now.output - base.output),
                            max(0, now.cache_read - base.cache_read),
                        )
                        events.append(
                            Event(Kind.TOKENS, ts, phase=phase_now, model=model, provider=provider, tokens=spent)
                        )
                        totals = now
        elif kind == "response_item":
            item_type = payload.get("type")
            if item_type in RESULT_ITEMS:
                output = _output_text(payload.get("output"))
                _script_output(events, scripts, str(payload.get("call_id", "")), output, ts)
                events.append(Event(Kind.ACTIVITY, ts, phase=phase_now))
                step, last_input = None, ts
                continue
            is_output = item_type in OUTPUT_ITEMS or (item_type == "message" and payload.get("role") == "assistant")
            if not is_output:
                continue
            if step is None:
                latency = (ts - last_input).total_seconds() if ts and last_input else None
                step = Event(
                    Kind.STEP, ts, phase=phase_now, model=model, provider=provider, effort=effort, latency=latency
                )
                events.append(step)
            _tool_call(events, payload, ts, phase_now, outputs, cwd, scripts)
    steps = [e for e in events if e.kind is Kind.STEP]
    if not steps:
        return None
    if not any(e.model for e in steps):
        return Skipped(path, NO_MODEL)
    return Session(HARNESS, session_id, version, events, cwd=cwd)


def _tool_call(
    events: list[Event],
    payload: dict[str, Any],
    ts: datetime | None,
    phase: Phase,
    outputs: dict[str, tuple[bool, datetime | None]],
    cwd: Path | None,
    scripts: _Scripts,
) -> None:
    item_type, name = payload.get("type"), str(payload.get("name", ""))
    ok, done = outputs.get(str(payload.get("call_id", "")), (True, None))
    if item_type == "custom_tool_call" and name == "apply_patch":
        patch = str(payload.get("input", ""))
        events.append(Event(Kind.EDIT, ts, phase=phase, files=_patch_files(patch, cwd), failed=not ok))
        return
    if item_type == "custom_tool_call":  # a code-mode script (exec) calling the other tools
        _script_call(events, scripts, payload, ts, phase)
        return
    if item_type != "function_call":
        return
    arguments = _arguments(payload.get("arguments"))
    if name == "wait" and str(arguments.get("cell_id", "")) in scripts.yielded:  # the rest of a yielded script
        scripts.pending[str(payload.get("call_id", ""))] = scripts.yielded.pop(str(arguments["cell_id"]))
        return
    if name == "apply_patch":
        patch = str(arguments.get("input", ""))
        events.append(Event(Kind.EDIT, ts, phase=phase, files=_patch_files(patch, cwd), failed=not ok))
        return
    if name not in SHELL_NAMES:
        return
    command = _command_text(name, arguments)
    workdir = Path(str(arguments["workdir"])) if arguments.get("workdir") else cwd
    if command.startswith("apply_patch") or "apply_patch <<" in command:
        events.append(Event(Kind.EDIT, ts, phase=phase, files=_patch_files(command, workdir), failed=not ok))
        return
    events.append(Event(Kind.COMMAND, ts, phase=phase, verify=is_verify_command(command)))
    if ok and is_commit_command(command) and str(payload.get("call_id", "")) in outputs:
        events.append(Event(Kind.COMMIT, done or ts, phase=phase))
