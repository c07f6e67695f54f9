"""Claude Code: ~/.claude/projects/<dir>/<session>.jsonl (+ <session>/subagents/*.jsonl).

One JSON object per line. Facts read, as real transcripts hold them (checked against public
transcripts of Claude Code 1.x and 2.x):
* `type` user/assistant (others: summary, system, file-history-snapshot… are skipped);
  `timestamp`, `sessionId`, `cwd`, `version`, `isSidechain`, `isMeta`, `permissionMode`.
* An assistant API message is written as one line per content block (and sometimes as streaming
  partials), each line repeating `message.id`, `requestId` and `message.usage`: a step is one
  (`message.id`, `requestId`), its usage that of its last line, the final counts (earlier lines may
  hold partial output counts, or a gateway's estimate of the input). Later versions write each
  parallel tool call's result between the calls' lines. Without a `requestId` (Amazon Bedrock;
  gateways, which may reuse one id for every message) lines of one id are one step when adjacent, or
  when only tool results part them and the later line holds only tool calls of the same request
  (same input count). A resumed session's file repeats earlier requests and entries, skipped here.
  `message.model` `<synthetic>` marks a message Claude Code made itself (errors, interruptions),
  not a model step.
* `tool_use` {id, name, input} in assistant content, `tool_result` {tool_use_id, is_error,
  content} in the next user line. A rejected tool call is an error result saying the user
  doesn't want to proceed. Interruptions are user text "[Request interrupted by user…]".
* Plan mode: `permissionMode: "plan"` on a user line (2.0.x) or a line of type `permission-mode`
  (later versions), or an accepted `EnterPlanMode` (the agent asking for it); another mode, or an
  accepted `ExitPlanMode`, ends it. The plan the agent writes under `~/.claude/plans/` is no edit.
* Prompts. Most user lines are not typed: tool results, `isMeta` and `isCompactSummary` lines,
  `<task-notification>` (a background command or agent finished), `<local-command-caveat>`,
  `<local-command-stdout>`, system reminders. A slash command is one line holding `<command-name>`
  (its expansion follows as an `isMeta` line): one prompt, unless Claude Code answers it itself
  (a built-in such as `/mcp`: a `<local-command-stdout>` line follows, or no model step before the
  next prompt). A prompt typed while the agent works is a `queue-operation` `enqueue`; `dequeue`
  hands it over as a later user line, `remove` folds it into the running turn and no user line is
  written (2.1.x), so only a removed one counts at the queue, unless it is a slash command (run on
  its own line). A `remove` without content takes a typed prompt before a queued notification.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Final

from pragmatikos_recorder.claude_tokens import usage_tokens
from pragmatikos_recorder.jsonl import json_objects, modified_time, token_count
from pragmatikos_recorder.session import Event, Kind, Phase, Session, is_commit_command, is_verify_command
from pragmatikos_recorder.timeutil import parse_ts

HARNESS: Final = "claude-code"
EDIT_TOOLS: Final = frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit"})
SHELL_TOOLS: Final = frozenset({"Bash"})
REJECTION_MARKERS: Final = ("doesn't want to proceed", "tool use was rejected", "user rejected")
INTERRUPTION_MARKER: Final = "[Request interrupted by user"
COMMAND_MARKER: Final = "<command-name>"
LOCAL_OUTPUT_PREFIXES: Final = ("<local-command-stdout>", "<local-command-stderr>")
# User lines Claude Code writes itself, not the person.
INJECTED_PREFIXES: Final = (
    "<task-notification>",
    "<local-command-",
    "Caveat:",
    "<system-reminder>",
    "<bash-input>",
    "<bash-stdout>",
    "<bash-stderr>",
    "This session is being continued from a previous conversation",
)


def default_root() -> Path:
    config = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(config) if config else Path.home() / ".claude"


def find_logs(root: Path) -> list[Path]:
    """The main transcripts under `root`/projects (subagent files are read with their session)."""
    projects = root / "projects"
    if not projects.is_dir():
        return []
    # Oldest first: a resumed session's file repeats what an older one holds, and the older one keeps it.
    found = [p for p in projects.glob("*/*.jsonl") if not p.name.startswith("agent-")]
    return sorted(found, key=lambda p: (modified_time(p), p.name))


USAGE_KEYS: Final = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")


def _bad_line(entry: dict[str, Any]) -> str | None:
    """What makes a line unusable (the reader would misread it or stop on it), or None."""
    message = entry.get("message")
    if message is None:
        return None
    if not isinstance(message, dict):
        return "a message that is not an object"
    usage = message.get("usage")
    if isinstance(usage, dict) and any(token_count(usage.get(key)) is None for key in USAGE_KEYS):
        return "a token count that is not a whole number"
    return None


def _lines(path: Path) -> list[dict[str, Any]]:
    return list(json_objects(path, _bad_line))


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(block.get("text", "")) for block in content if isinstance(block, dict) and block.get("type") == "text"
        )
    return ""


@dataclass(slots=True)
class _Queued:
    text: str
    typed: bool


@dataclass(slots=True)
class _Result:
    is_error: bool
    text: str
    ts: datetime | None


@dataclass(slots=True)
class _OpenStep:
    """The step the previous assistant line of a chain belonged to; whether tool results came after it."""

    message_id: str
    step: Event
    after_results: bool = False


@dataclass(slots=True)
class _Parse:
    """The state of one pass over a session's lines, main chain and subagents together."""

    results: dict[str, _Result]
    tool_names: dict[str, str] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    steps: dict[str, Event] = field(default_factory=dict)
    # The step the previous assistant line of each chain (main, subagent) belonged to.
    open_step: dict[bool, _OpenStep | None] = field(default_factory=lambda: {False: None, True: None})
    mode: Phase = "build"
    last_ts: dict[bool, datetime | None] = field(default_factory=lambda: {False: None, True: None})
    plans: Path | None = None  # where this Claude Code keeps its plan files
    queue: list[_Queued] = field(default_factory=list)  # prompts and notifications waiting while the agent works
    # The PROMPT of the last slash command until a model step answers it: Claude Code may answer it itself.
    command: Event | None = None


@dataclass(slots=True)
class Seen:
    """Request keys and entry uuids already read in this scan, so a resumed session's copies count once."""

    requests: set[str] = field(default_factory=set)
    uuids: set[str] = field(default_factory=set)


def _request_key(entry: dict[str, Any]) -> str | None:
    message_id, request_id = (entry.get("message") or {}).get("id"), entry.get("requestId")
    return f"{message_id}:{request_id}" if message_id and request_id else None


def _collect_results(entries: list[dict[str, Any]]) -> dict[str, _Result]:
    results: dict[str, _Result] = {}
    for entry in entries:
        if entry.get("type") != "user":
            continue
        content = (entry.get("message") or {}).get("content")
        if not isinstance(content, list):
            continue
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_result" and block.get("tool_use_id"):
                text = block.get("content")
                results[str(block["tool_use_id"])] = _Result(
                    is_error=bool(block.get("is_error")),
                    text=_text_of(text) if not isinstance(text, str) else text,
                    ts=parse_ts(entry.get("timestamp")),
                )
    return results


def _set_mode(state: _Parse, mode: Any) -> None:
    if isinstance(mode, str) and mode:
        state.mode = "plan" if mode == "plan" else "build"


def _tool_results(state: _Parse, blocks: list[Any], ts: datetime | None, subagent: bool) -> bool:
    """Mode changes the results of EnterPlanMode and ExitPlanMode make; whether the line held any result."""
    has_result = False
    for block in blocks:
        if not (isinstance(block, dict) and block.get("type") == "tool_result"):
            continue
        has_result = True
        tool_id = str(block.get("tool_use_id", ""))
        result = state.results.get(tool_id)
        if subagent or result is None:
            continue
        name = state.tool_names.get(tool_id)
        if name == "EnterPlanMode" and not result.is_error:
            state.mode = "plan"
        elif name == "ExitPlanMode":
            if result.is_error:  # the person turned the plan down: planning goes on
                state.events.append(Event(Kind.ABORT, ts, phase=state.mode))
            else:
                state.mode = "build"
    return has_result


def _user_line(state: _Parse, entry: dict[str, Any], ts: datetime | None, subagent: bool) -> None:
    message = entry.get("message") or {}
    content = message.get("content")
    blocks = content if isinstance(content, list) else []
    if _tool_results(state, blocks, ts, subagent):
        if (open_step := state.open_step[subagent]) is not None:  # more calls of its message may follow
            open_step.after_results = True
        state.events.append(Event(Kind.ACTIVITY, ts, phase=state.mode, subagent=subagent))
        state.last_ts[subagent] = ts
        return
    state.open_step[subagent] = None
    text = _text_of(content).strip()
    if INTERRUPTION_MARKER in text:
        state.events.append(Event(Kind.ABORT, ts, phase=state.mode, subagent=subagent))
        state.last_ts[subagent] = ts
        return
    if subagent or entry.get("isMeta") or entry.get("isCompactSummary") or not text:
        state.last_ts[subagent] = ts
        return
    _take_from_queue(state, text)
    if text.startswith(INJECTED_PREFIXES):
        if text.startswith(LOCAL_OUTPUT_PREFIXES):
            _not_a_prompt(state)
        return
    _not_a_prompt(state)  # a command no model step answered before this prompt
    _set_mode(state, entry.get("permissionMode"))
    prompt = Event(Kind.PROMPT, ts, phase=state.mode)
    state.events.append(prompt)
    state.command = prompt if COMMAND_MARKER in text else None
    state.last_ts[False] = ts


def _not_a_prompt(state: _Parse) -> None:
    """The pending slash command was answered by Claude Code itself (or not at all): no prompt to the agent."""
    if state.command is None:
        return
    # Usually the last event or close to it; an identity search, as equal events may come before.
    index = next((i for i in range(len(state.events) - 1, -1, -1) if state.events[i] is state.command), None)
    if index is not None:
        del state.events[index]
    state.command = None


def _take_from_queue(state: _Parse, text: str) -> _Queued | None:
    """The queued entry `text` names, or without one the next: a typed prompt before a notification."""
    queue = state.queue
    chosen = next((q for q in queue if q.text == text), None) if text else None
    if chosen is None and not text:
        chosen = next((q for q in queue if q.typed), queue[0] if queue else None)
    if chosen is not None:
        queue.remove(chosen)
    return chosen


def _queue_line(state: _Parse, entry: dict[str, Any], ts: datetime | None) -> None:
    operation, raw = entry.get("operation"), entry.get("content")
    text = raw.strip() if isinstance(raw, str) else ""
    if operation == "enqueue" and text:
        state.queue.append(_Queued(text, typed=not text.startswith(INJECTED_PREFIXES)))
    elif operation == "dequeue":  # handed over: it comes back as a user line
        _take_from_queue(state, text)
    elif operation == "remove":  # folded into the running turn, or run as a command (which has its own line)
        taken = _take_from_queue(state, text)
        if taken is not None and taken.typed and not taken.text.startswith("/"):
            state.events.append(Event(Kind.PROMPT, ts, phase=state.mode))
            state.last_ts[False] = ts


def _is_plan_file(path: Path, plans: Path | None) -> bool:
    """A plan Claude Code keeps for itself: under its plans folder, not in the project."""
    if plans is not None and path.is_relative_to(plans):
        return True
    return path.parent.name == "plans" and path.parent.parent.name == ".claude"


def _tool_use(state: _Parse, block: dict[str, Any], ts: datetime | None, subagent: bool, cwd: Path | None) -> None:
    tool_id, name = str(block.get("id", "")), str(block.get("name", ""))
    state.tool_names[tool_id] = name
    raw_input = block.get("input")
    tool_input: dict[str, Any] = raw_input if isinstance(raw_input, dict) else {}
    result = state.results.get(tool_id)
    if name in EDIT_TOOLS:
        raw_path = tool_input.get("file_path") or tool_input.get("notebook_path")
        files: tuple[Path, ...] = ()
        if isinstance(raw_path, str) and raw_path:
            path = Path(raw_path)
            files = (path if path.is_absolute() or cwd is None else cwd / path,)
            if _is_plan_file(files[0], state.plans):
                return
        rejected = bool(result and result.is_error and any(m in result.text for m in REJECTION_MARKERS))
        failed = bool(result and result.is_error and not rejected)
        state.events.append(
            Event(Kind.EDIT, ts, phase=state.mode, subagent=subagent, files=files, failed=failed, rejected=rejected)
        )
    elif name in SHELL_TOOLS:
        command = str(tool_input.get("command", ""))
        state.events.append(
            Event(Kind.COMMAND, ts, phase=state.mode, subagent=subagent, verify=is_verify_command(command))
        )
        if is_commit_command(command) and result is not None and not result.is_error:
            state.events.append(Event(Kind.COMMIT, result.ts or ts, phase=state.mode, subagent=subagent))


def _continues(open_step: _OpenStep | None, message_id: str, message: dict[str, Any]) -> bool:
    """Whether a line without a requestId belongs to the open step (see the module's notes)."""
    if open_step is None or not message_id or open_step.message_id != message_id:
        return False
    if not open_step.after_results:
        return True
    content = message.get("content")
    blocks = content if isinstance(content, list) else []
    only_calls = bool(blocks) and all(isinstance(b, dict) and b.get("type") == "tool_use" for b in blocks)
    tokens, step_tokens = usage_tokens(message.get("usage")), open_step.step.tokens
    return only_calls and (tokens is None or step_tokens is None or tokens.input == step_tokens.input)


def _assistant_line(
    state: _Parse, entry: dict[str, Any], ts: datetime | None, subagent: bool, cwd: Path | None
) -> None:
    message = entry.get("message") or {}
    model = str(message.get("model") or "")
    if not model or model == "<synthetic>":
        return
    message_id = str(message.get("id") or entry.get("uuid") or "")
    key = _request_key(entry)
    step = state.steps.get(key) if key else None
    open_step = state.open_step[subagent]
    if step is None and key is None and open_step is not None and _continues(open_step, message_id, message):
        step = open_step.step
    if step is None:
        previous = state.last_ts[subagent]
        latency = (ts - previous).total_seconds() if ts and previous else None
        step = Event(
            Kind.STEP, ts, phase=state.mode, subagent=subagent, model=model, provider="anthropic", latency=latency
        )
        if key:
            state.steps[key] = step
        state.events.append(step)
    state.open_step[subagent] = _OpenStep(message_id, step)
    if not subagent:
        state.command = None  # the model took the command up: it was a prompt
    step.tokens = usage_tokens(message.get("usage")) or step.tokens  # the last line's counts are the final ones
    state.last_ts[subagent] = ts
    content = message.get("content")
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict) and block.get("type") == "tool_use":
            _tool_use(state, block, ts, subagent, cwd)


def _subagent_files(path: Path, session_id: str) -> list[Path]:
    nested = sorted((path.parent / path.stem / "subagents").glob("*.jsonl"))
    # Older versions wrote subagents beside the session as agent-*.jsonl carrying the parent's sessionId.
    beside = []
    for candidate in sorted(path.parent.glob("agent-*.jsonl")):
        for entry in json_objects(candidate, _bad_line):
            if entry.get("sessionId") == session_id:
                beside.append(candidate)
            break
    return nested + beside


def _not_seen(entries: list[dict[str, Any]], seen: Seen) -> list[dict[str, Any]]:
    return [
        e for e in entries if str(e.get("uuid", "")) not in seen.uuids and (_request_key(e) or "") not in seen.requests
    ]


def _remember(entries: list[dict[str, Any]], seen: Seen) -> None:
    for entry in entries:
        if entry.get("uuid"):
            seen.uuids.add(str(entry["uuid"]))
        if key := _request_key(entry):
            seen.requests.add(key)


def parse(path: Path, seen: Seen | None = None) -> list[Session]:
    """One transcript (and its subagents) as a session; [] when it holds no assistant step.

    `seen` carries what earlier files of the same scan held (read oldest first), so the copies a
    resumed session makes of them are not counted again.
    """
    seen = seen if seen is not None else Seen()
    main = _lines(path)
    session_id = next((str(e["sessionId"]) for e in main if e.get("sessionId")), path.stem)
    sub_entries = [entry for sub in _subagent_files(path, session_id) for entry in _lines(sub)]
    everything = main + sub_entries
    main, sub_entries = _not_seen(main, seen), _not_seen(sub_entries, seen)
    _remember(everything, seen)
    state = _Parse(results=_collect_results(main + sub_entries), plans=path.parent.parent.parent / "plans")
    cwd = next((Path(str(e["cwd"])) for e in main if e.get("cwd")), None)
    version = ""
    for entries, forced_sub in ((main, False), (sub_entries, True)):
        for entry in entries:
            ts = parse_ts(entry.get("timestamp"))
            subagent = forced_sub or bool(entry.get("isSidechain"))
            if not subagent and isinstance(entry.get("version"), str):
                version = entry["version"]
            if entry.get("type") == "user":
                _user_line(state, entry, ts, subagent)
            elif entry.get("type") == "assistant":
                _assistant_line(state, entry, ts, subagent, cwd)
            elif entry.get("type") == "permission-mode" and not subagent:
                _set_mode(state, entry.get("permissionMode"))
            elif entry.get("type") == "queue-operation" and not subagent:
                _queue_line(state, entry, ts)
    _not_a_prompt(state)
    if not any(e.kind is Kind.STEP and not e.subagent for e in state.events):
        return []
    return [Session(HARNESS, session_id, version, state.events, cwd=cwd)]
