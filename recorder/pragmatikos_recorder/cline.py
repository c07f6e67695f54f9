"""Cline, Roo Code and Kilo Code: `<globalStorage>/<extension id>/tasks/<task id>/ui_messages.json`.

One reader for the three: Roo Code forked Cline and Kilo Code forked Roo, and all three keep a task as
a folder of JSON files (docs/agents/cline.md, roo-code.md, kilo-code.md). The harness is named by the
extension folder: saoudrizwan.claude-dev is Cline, rooveterinaryinc.roo-cline Roo Code,
kilocode.kilo-code Kilo Code. `ui_messages.json` is read, the rest only where present (people publish
that file alone): it is an array of rows `{ts (epoch ms), type: say|ask, say|ask, text, partial, modelInfo}`,
streamed rows rewritten in place under one `ts`.
* A step is one model request: a `say: api_req_started` row, whose `text` is JSON `{request, tokensIn,
  tokensOut, cacheWrites, cacheReads, cost, cancelReason, apiProtocol}`. `cost` is the agent's own figure,
  taken as it is; `cancelReason: user_cancelled` is the person stopping the request.
* Model and mode of a request: `modelInfo {providerId, modelId, mode: plan|act}` on its row (Cline from
  late 2025); else the `# Current Mode` section the request's text ends with (`PLAN MODE`, or Roo's
  `<slug>architect</slug>` and `<model>…</model>`); else `task_metadata.json`'s `model_usage` (Cline);
  else, for Roo's later builds that keep no request text, the user turns of
  `api_conversation_history.json`, which carry a `ts` and the same section. Cline's Plan mode and Roo's
  Architect mode plan; every other mode builds.
  Requests the person deleted (`deleted_api_reqs`, Roo `api_req_deleted`) keep their cost on one row.
* Prompts: the task (`say: task`, or the first `say: text` before any request) and `say: user_feedback`,
  which is what the person types in answer to any question, approval or finished task. The agent's own
  additions (environment details, tool results) live inside the request text, never as rows.
* Edits: `say|ask: tool` rows whose `tool` writes a file (`editedExistingFile`, `newFileCreated`,
  `appliedDiff`, …) with its `path`; `say: diff_error` is an edit that failed. Commands: `say|ask:
  command` (text = the command line). An edit or command the person turned down is followed by a
  request whose text answers it with "The user denied this operation" (Roo: `"status":"denied"`).
"""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from pragmatikos_recorder import json_file
from pragmatikos_recorder.canonical import provider_of
from pragmatikos_recorder.jsonl import token_count, weigh
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
from pragmatikos_recorder.skips import Reading, Skipped
from pragmatikos_recorder.timeutil import EARLIEST, LATEST

HARNESS: Final = "cline"
# Extension folder -> harness; a folder named otherwise (a copy, a custom storage path) is read as Cline.
EXTENSIONS: Final = {
    "saoudrizwan.claude-dev": "cline",
    "rooveterinaryinc.roo-cline": "roo-code",
    "rooveterinaryinc.roo-code-nightly": "roo-code",
    "kilocode.kilo-code": "kilo-code",
}
# VS Code and its forks, whose per-user folder holds globalStorage/<extension id>.
EDITORS: Final = ("Code", "Code - Insiders", "VSCodium", "Cursor")
UI_MESSAGES: Final = "ui_messages.json"
EDIT_TOOLS: Final = frozenset(
    {"editedExistingFile", "newFileCreated", "fileDeleted", "appliedDiff", "insertContent", "searchAndReplace"}
)
DENIED_MARKERS: Final = ("The user denied this operation", '"status":"denied"', '"status": "denied"')
PLAN_MODES: Final = frozenset({"plan", "architect"})
# Providers that are a gateway: the model's own vendor is the first part of its id (`x-ai/grok-code-fast-1`).
GATEWAYS: Final = frozenset({"cline", "kilocode", "kilo", "roo"})
CLINE_MODE_RE: Final = re.compile(r"# Current Mode\s*\n\s*(PLAN|ACT) MODE")
ROO_SLUG_RE: Final = re.compile(r"# Current Mode\s*\n\s*<slug>([^<\n]{1,64})</slug>")
ROO_MODEL_RE: Final = re.compile(r"# Current Mode\s*\n(?:.*\n){0,3}?\s*<model>([^<\n]{1,128})</model>")
CWD_RE: Final = re.compile(r"# Current (?:Working|Workspace) Directory \(([^\n]{1,4096}?)\) Files")
# What `git commit` prints when it made a commit: `[main 1a2b3c4] message`.
COMMITTED_RE: Final = re.compile(r"^\[[^\]\n]+ [0-9a-f]{7,40}\] ", re.MULTILINE)
NO_MODEL: Final = "records no model (neither on its messages nor in a task_metadata.json beside it)"


def default_roots() -> tuple[Path, ...]:
    """The extension folders of Cline, Roo Code and Kilo Code under every editor's user folder."""
    if sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    elif sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    else:
        base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return tuple(base / editor / "User" / "globalStorage" / extension for editor in EDITORS for extension in EXTENSIONS)


def harness_of(root: Path) -> str:
    return EXTENSIONS.get(root.name.lower(), HARNESS)


def find_logs(roots: tuple[Path, ...]) -> list[Path]:
    """Each task's ui_messages.json under the extension folders that exist."""
    found: list[Path] = []
    for root in roots:
        tasks = root / "tasks"
        if tasks.is_dir():
            found.extend(sorted(tasks.glob(f"*/{UI_MESSAGES}")))
    return found


def epoch_time(value: Any, per_second: int = 1000) -> datetime | None:
    """A time stored as a count since 1970 (`per_second` units a second), or None when it is none."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        return None
    seconds = value / per_second
    if not EARLIEST.timestamp() <= seconds < LATEST.timestamp():
        return None
    return datetime.fromtimestamp(seconds, UTC)


def _bad_row(row: dict[str, Any]) -> str | None:
    if epoch_time(row.get("ts")) is None:
        return "no time (ts) it could have been written at"
    if not all(isinstance(row.get(key), str | None) for key in ("type", "say", "ask", "text")):
        return "a type or text that is not a string"
    return None


@dataclass(frozen=True, slots=True)
class Request:
    """What an api_req_started row says about its request."""

    text: str
    tokens: Tokens | None
    cost: float | None
    cancelled: bool
    model: str
    provider: str
    mode: str  # "plan", "act", a Roo slug, or ""


def _json_text(text: Any) -> dict[str, Any]:
    """A row's `text` holding a JSON object; {} when it holds none (or one too heavy to parse)."""
    if not isinstance(text, str) or not text.startswith("{"):
        return {}
    if weigh(text.encode())[1] is not None:
        return {}
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError):
        return {}
    return parsed if isinstance(parsed, dict) else {}


def _cost(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if 0 <= value <= 5000 else None


def _tokens(info: dict[str, Any]) -> Tokens | None:
    counts = [token_count(info.get(key)) for key in ("tokensIn", "tokensOut", "cacheReads", "cacheWrites")]
    if any(count is None for count in counts):
        return None
    fresh, output, reads, writes = (count or 0 for count in counts)
    # Roo over an OpenAI-style API counts cached tokens within tokensIn; otherwise they are apart.
    total_in = fresh if info.get("apiProtocol") == "openai" else fresh + reads + writes
    return Tokens(input=total_in, output=output, cache_read=reads, cache_write=writes)


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _request(row: dict[str, Any]) -> Request:
    info = _json_text(row.get("text"))
    raw = info.get("request")
    text = raw if isinstance(raw, str) else ""
    model_info = _mapping(row.get("modelInfo"))
    model, provider, mode = (str(model_info.get(k) or "") for k in ("modelId", "providerId", "mode"))
    if not mode:
        mode = _mode_in(text)
    if not model and (found := ROO_MODEL_RE.search(text)):
        model = found.group(1).strip()
    return Request(
        text=text,
        tokens=_tokens(info),
        cost=_cost(info.get("cost")),
        cancelled=info.get("cancelReason") == "user_cancelled",
        model=model,
        provider=provider,
        mode=mode,
    )


def _mode_in(text: str) -> str:
    if found := CLINE_MODE_RE.search(text):
        return found.group(1).lower()
    if found := ROO_SLUG_RE.search(text):
        return found.group(1).strip().lower()
    return ""


@dataclass(frozen=True, slots=True)
class Known:
    """What the files beside ui_messages.json say, by time: (ms, model, provider, mode) in order."""

    usage: tuple[tuple[float, str, str, str], ...] = ()
    version: str = ""
    cwd: Path | None = None

    def at(self, ms: float) -> tuple[str, str, str]:
        """The model, provider and mode in use at `ms`: the last switch before it, else the first one."""
        chosen = self.usage[0] if self.usage else (0.0, "", "", "")
        for entry in self.usage:
            if entry[0] > ms:
                break
            chosen = entry
        return chosen[1], chosen[2], chosen[3]


def _metadata(folder: Path) -> Known:
    """Cline's task_metadata.json: model_usage (a row per model or mode switch) and the Cline version."""
    path = folder / "task_metadata.json"
    meta = json_file.document(path) if path.is_file() else None
    if not isinstance(meta, dict):
        return Known()
    usage = []
    for entry in _list(meta.get("model_usage")):
        if isinstance(entry, dict) and epoch_time(entry.get("ts")) is not None:
            model, provider, mode = (str(entry.get(key) or "") for key in ("model_id", "model_provider_id", "mode"))
            usage.append((float(entry["ts"]), model, provider, mode))
    versions = [
        str(e.get("cline_version") or "") for e in _list(meta.get("environment_history")) if isinstance(e, dict)
    ]
    return Known(tuple(sorted(usage)), next((v for v in reversed(versions) if v), ""))


def _roo_turns(folder: Path) -> Known:
    """Roo's api_conversation_history.json: each user turn's time, with the model and mode it names."""
    path = folder / "api_conversation_history.json"
    if not path.is_file():
        return Known()
    usage = []
    for message in json_file.records(path):
        if message.get("role") != "user" or epoch_time(message.get("ts")) is None:
            continue
        text = _turn_text(message.get("content"))
        model = ROO_MODEL_RE.search(text)
        mode = _mode_in(text)
        if model or mode:
            usage.append((float(message["ts"]), model.group(1).strip() if model else "", "", mode))
    return Known(tuple(sorted(usage)))


def _turn_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    blocks = content if isinstance(content, list) else []
    return "\n".join(str(b.get("text", "")) for b in blocks if isinstance(b, dict) and b.get("type") == "text")


def _history_item(folder: Path) -> Path | None:
    """The task's working folder as Roo's history_item.json records it."""
    path = folder / "history_item.json"
    item = json_file.document(path) if path.is_file() else None
    workspace = item.get("workspace") if isinstance(item, dict) else None
    return Path(workspace) if isinstance(workspace, str) and workspace else None


def _latest_rows(path: Path) -> list[dict[str, Any]]:
    """The rows in order, each `ts` once in its last state (a streamed row is rewritten under its ts)."""
    by_ts: dict[Any, dict[str, Any]] = {}
    for row in json_file.records(path, _bad_row):
        by_ts[row["ts"]] = row
    return list(by_ts.values())


def _phase(mode: str) -> Phase:
    return "plan" if mode in PLAN_MODES else "build"


def _provider(provider: str, model: str) -> str:
    provider = provider.strip().lower()
    if not provider or provider in GATEWAYS:
        return provider_of(model)
    return provider


@dataclass(slots=True)
class _Reader:
    harness: str
    known: Known
    cwd: Path | None
    events: list[Event] = field(default_factory=list)
    requests: int = 0
    mode: str = ""
    # The edit or command rows since the last request: a request that answers "denied" turns the last down.
    pending: list[Event] = field(default_factory=list)
    step: Event | None = None  # the request under way, until its first answer row gives its latency
    commands: dict[int, str] = field(default_factory=dict)  # id(command event) -> its line, for commits

    def row(self, row: dict[str, Any]) -> None:
        ts = epoch_time(row["ts"])
        kind, say, ask = row.get("type"), row.get("say"), row.get("ask")
        what = say if kind == "say" else ask
        if what in ("resume_task", "resume_completed_task"):
            return  # shown when a task is reopened, perhaps days later: not work
        if self.step is not None and what not in ("api_req_started", "checkpoint_created"):
            self.step.latency = (ts - self.step.ts).total_seconds() if ts and self.step.ts else None
            self.step = None
        if what == "api_req_started" and kind == "say":
            self._request(row, ts)
        elif kind == "say" and self._is_prompt(what):
            self._add(Kind.PROMPT, ts)
        elif what == "tool" and not row.get("partial"):
            self._tool(row, ts)
        elif what == "diff_error":
            self._add(Kind.EDIT, ts, files=self._files(row.get("text")), failed=True)
        elif what == "command" and not row.get("partial"):
            line = str(row.get("text") or "")
            event = self._add(Kind.COMMAND, ts, verify=is_verify_command(line))
            self.pending.append(event)
            self.commands[id(event)] = line
        elif what == "command_output" and is_commit_shown(row.get("text")):
            self._commit_shown(ts)
        elif what in ("deleted_api_reqs", "api_req_deleted"):
            self._deleted(row, ts)
        else:
            self._add(Kind.ACTIVITY, ts)

    def _is_prompt(self, what: Any) -> bool:
        """The task (the first text before any request, `task` in older builds) or what the person typed since."""
        if what in ("task", "user_feedback"):
            return True
        return what == "text" and self.requests == 0 and not any(e.kind is Kind.PROMPT for e in self.events)

    def _add(self, kind: Kind, ts: datetime | None, **fields: Any) -> Event:
        event = Event(kind, ts, phase=_phase(self.mode), **fields)
        self.events.append(event)
        return event

    def _files(self, raw: Any) -> tuple[Path, ...]:
        if not isinstance(raw, str) or not raw or len(raw) > 4096:
            return ()
        return (edited_path(raw, self.cwd),)

    def _tool(self, row: dict[str, Any], ts: datetime | None) -> None:
        tool = _json_text(row.get("text"))
        if tool.get("tool") in EDIT_TOOLS:
            self.pending.append(self._add(Kind.EDIT, ts, files=self._files(tool.get("path"))))
        else:
            self._add(Kind.ACTIVITY, ts)

    def _commit_shown(self, ts: datetime | None) -> None:
        """A command's output shows git made a commit: when that command was `git commit`, it is one."""
        command = next((e for e in reversed(self.events) if e.kind is Kind.COMMAND), None)
        if command is not None and is_commit_command(self.commands.get(id(command), "")):
            self.commands.pop(id(command))  # one commit per command however many output chunks follow
            self._add(Kind.COMMIT, ts)

    def _deleted(self, row: dict[str, Any], ts: datetime | None) -> None:
        """Requests the person deleted from the task (going back to a checkpoint): spent, though no longer shown."""
        request = _request(row)
        known_model, known_provider, _ = self.known.at(float(row["ts"]))
        model = request.model or known_model
        provider = _provider(request.provider or known_provider, model)
        self._add(Kind.TOKENS, ts, model=model, provider=provider, tokens=request.tokens, cost=request.cost)

    def _request(self, row: dict[str, Any], ts: datetime | None) -> None:
        request = _request(row)
        if self.cwd is None and (found := CWD_RE.search(request.text)):
            self.cwd = Path(found.group(1))
        if self.pending and any(marker in request.text for marker in DENIED_MARKERS):
            turned_down = self.pending[-1]
            turned_down.rejected = True
            if turned_down.kind is Kind.COMMAND:
                turned_down.verify = False  # it never ran
                self.commands.pop(id(turned_down), None)
                self._add(Kind.ABORT, ts)
        self.pending = []
        known_model, known_provider, known_mode = self.known.at(float(row["ts"]))
        self.mode = request.mode or known_mode or self.mode
        model = request.model or known_model
        provider = _provider(request.provider or known_provider, model)
        self.requests += 1
        self.step = self._add(Kind.STEP, ts, model=model, provider=provider, tokens=request.tokens, cost=request.cost)
        if request.cancelled:
            self._add(Kind.ABORT, ts)


def is_commit_shown(text: Any) -> bool:
    return isinstance(text, str) and COMMITTED_RE.search(text) is not None


def read(path: Path) -> Reading:
    """One task folder's ui_messages.json as a session; why it gave none when it had requests but no model."""
    folder = path.parent
    harness = harness_of(folder.parent.parent)
    rows = _latest_rows(path)
    if not any(r.get("say") == "api_req_started" for r in rows):
        return Reading()
    known = _metadata(folder)
    if not known.usage and not any(isinstance(r.get("modelInfo"), dict) for r in rows):
        known = Known(_roo_turns(folder).usage, known.version)
    reader = _Reader(harness, known, _history_item(folder))
    for row in rows:
        reader.row(row)
    steps = [e for e in reader.events if e.kind is Kind.STEP]
    if not any(step.model for step in steps):
        return Reading(skipped=Skipped(path, NO_MODEL))
    return Reading([Session(harness, folder.name, known.version, reader.events, cwd=reader.cwd)])


def parse(path: Path) -> list[Session]:
    return read(path).sessions
