"""Amp: a thread as one JSON document, `~/.local/share/amp/threads/T-<id>.json` (docs/agents/amp.md).

Amp builds of 2025 kept each thread there (`$XDG_DATA_HOME/amp`, `%USERPROFILE%\\.local\\share\\amp` on
Windows); later builds keep threads on Amp's server only, and `amp threads export <id>` writes the same
document: a folder of exports is read the same way. The document is `{id, created (epoch ms), env
{initial {trees [{uri}], platform {clientVersion}}}, messages [], usageLedger? {events []}}`.
* Messages are `{role: user|assistant, messageId (int), content [blocks], usage?, state?, meta?}`.
  Blocks: `text`, `thinking`, `tool_use {id, name, input}` (assistant), `tool_result {toolUseID, run
  {status: done|error|cancelled|rejected-by-user, result}}` (in user messages: tool results are not prompts).
* A step is one assistant message: Amp records usage per message (`usage {model, timestamp, inputTokens,
  outputTokens, cacheCreationInputTokens, cacheReadInputTokens}`, input counted apart from the cache), and
  Amp picks models itself, so the model is read per step. Where a `usageLedger` is kept (older builds) its
  events {model, timestamp, tokens {input, output}, toMessageId} are the tokens, as ccusage reads them.
  Amp bills credits, never dollars: the cost is the price list's.
* A prompt is a user message with text and no tool result; it carries `meta.sentAt` (epoch ms). Tool
  results carry no time, so only a step answering a prompt has a latency.
* Edits: `apply_patch` {patchText} (its result lists `files[].uri`), older `edit_file`/`create_file`
  {path}; a run with status error failed, one rejected by the person or cancelled was turned down.
  Commands: `shell_command` {command}, older `Bash` {cmd}; a `git commit` whose result exits 0 committed.
* Amp has no plan mode: every step builds.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Final
from urllib.parse import unquote, urlparse

from pragmatikos_recorder import json_file
from pragmatikos_recorder.canonical import provider_of
from pragmatikos_recorder.cline import epoch_time
from pragmatikos_recorder.jsonl import NOT_AN_OBJECT, skip_line, token_count
from pragmatikos_recorder.session import Event, Kind, Session, Tokens, edited_path, is_commit_command, is_verify_command
from pragmatikos_recorder.skips import Reading, Skipped
from pragmatikos_recorder.timeutil import parse_ts

HARNESS: Final = "amp"
THREAD_GLOB: Final = "T-*.json"
PATCH_TOOLS: Final = frozenset({"apply_patch"})
EDIT_TOOLS: Final = frozenset({"edit_file", "create_file", "undo_edit"})
SHELL_TOOLS: Final = frozenset({"shell_command", "bash", "Bash"})
TURNED_DOWN: Final = frozenset({"rejected-by-user", "cancelled"})
PATCH_FILE_RE: Final = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$|^\*\*\* Move to: (.+)$", re.MULTILINE)
VERSION_RE: Final = re.compile(r"[0-9][0-9A-Za-z.+-]{0,31}")
NOT_A_THREAD: Final = "not an Amp thread (no messages list)"
BAD_MESSAGE: Final = "a message without a role or a content list"
NO_MODEL: Final = "records no model (no assistant message carries usage)"


def default_roots() -> tuple[Path, ...]:
    """Amp's data folder, which held threads/ in the builds that kept threads on disk."""
    home = Path.home()
    if sys.platform == "win32":
        base = Path(os.environ.get("USERPROFILE") or home) / ".local" / "share"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or home / ".local" / "share")
    roots = [base / "amp"]
    if data := os.environ.get("AMP_DATA_DIR"):
        roots.insert(0, Path(data))
    return tuple(roots)


def find_logs(roots: tuple[Path, ...]) -> list[Path]:
    """Each root's threads/T-*.json, or the T-*.json files in the root itself (a folder of exports)."""
    found: list[Path] = []
    for root in roots:
        for folder in (root / "threads", root):
            if folder.is_dir():
                found.extend(sorted(folder.glob(THREAD_GLOB)))
    return list(dict.fromkeys(found))


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _path_of(uri: str) -> Path | None:
    """A `file://` URI or a bare path as a path; None for anything else."""
    if not uri or len(uri) > 4096:
        return None
    if uri.startswith("file://"):
        return Path(unquote(urlparse(uri).path))
    return Path(uri) if "://" not in uri else None


def _tokens(usage: dict[str, Any], names: tuple[str, str, str, str]) -> Tokens | None:
    """(input, output, cache writes, cache reads) under `names`; input counted apart from the cache, as Amp does."""
    counts = [token_count(usage.get(name)) for name in names]
    if any(count is None for count in counts) or not any(counts):
        return None
    fresh, output, writes, reads = (count or 0 for count in counts)
    return Tokens(input=fresh + writes + reads, output=output, cache_read=reads, cache_write=writes)


USAGE_NAMES: Final = ("inputTokens", "outputTokens", "cacheCreationInputTokens", "cacheReadInputTokens")
LEDGER_NAMES: Final = ("input", "output", "cacheCreationInputTokens", "cacheReadInputTokens")


@dataclass(frozen=True, slots=True)
class Usage:
    model: str
    ts: datetime | None
    tokens: Tokens | None


def _usage(usage: dict[str, Any]) -> Usage:
    return Usage(_text(usage.get("model")), parse_ts(usage.get("timestamp")), _tokens(usage, USAGE_NAMES))


def _ledger(thread: dict[str, Any], messages: list[dict[str, Any]]) -> dict[int, list[Usage]] | None:
    """The usage ledger's events by the message they answer (cache counts from that message); None: no ledger."""
    events = _mapping(thread.get("usageLedger")).get("events")
    if not isinstance(events, list):
        return None
    cache = {m.get("messageId"): _mapping(m.get("usage")) for m in messages if m.get("role") == "assistant"}
    by_message: dict[int, list[Usage]] = {}
    for event in events:
        event = _mapping(event)
        target = event.get("toMessageId")
        counts = {**_mapping(event.get("tokens")), **_cache_counts(cache.get(target, {}))}
        used = Usage(_text(event.get("model")), parse_ts(event.get("timestamp")), _tokens(counts, LEDGER_NAMES))
        by_message.setdefault(target if isinstance(target, int) else -1, []).append(used)
    return by_message


def _cache_counts(usage: dict[str, Any]) -> dict[str, Any]:
    return {key: usage.get(key) for key in USAGE_NAMES[2:]}


def _message_time(message: dict[str, Any]) -> datetime | None:
    """When a message was sent or finished: its usage time, `meta.sentAt`, else its last block's finalTime."""
    if ts := parse_ts(_mapping(message.get("usage")).get("timestamp")):
        return ts
    if ts := epoch_time(_mapping(message.get("meta")).get("sentAt")):
        return ts
    finals = [epoch_time(_mapping(b).get("finalTime")) for b in _list(message.get("content"))]
    return max((t for t in finals if t is not None), default=None)


def _bad_message(message: Any) -> str | None:
    if not isinstance(message, dict):
        return NOT_AN_OBJECT
    if message.get("role") not in ("user", "assistant") or not isinstance(message.get("content"), list):
        return BAD_MESSAGE
    return None


@dataclass(slots=True)
class _Reader:
    cwd: Path | None
    ledger: dict[int, list[Usage]] | None
    events: list[Event] = field(default_factory=list)
    model: str = ""
    last_input: datetime | None = None
    calls: dict[str, tuple[Event, str]] = field(default_factory=dict)  # open tool uses: id -> (event, command)

    def _add(self, kind: Kind, ts: datetime | None, **fields: Any) -> Event:
        event = Event(kind, ts, **fields)
        self.events.append(event)
        return event

    def message(self, message: dict[str, Any]) -> None:
        blocks = [_mapping(b) for b in message["content"]]
        ts = _message_time(message)
        if message["role"] == "assistant":
            self._assistant(message, blocks, ts)
        else:
            self._user(blocks, ts)

    def _assistant(self, message: dict[str, Any], blocks: list[dict[str, Any]], ts: datetime | None) -> None:
        used = self._used(message)
        first = used[0] if used else Usage("", None, None)
        self.model = first.model or self.model
        latency = (ts - self.last_input).total_seconds() if ts and self.last_input else None
        self._add(
            Kind.STEP, ts, model=self.model, provider=provider_of(self.model), latency=latency, tokens=first.tokens
        )
        for extra in used[1:]:  # ledger events beyond the first for one message (retries)
            self._add(Kind.TOKENS, extra.ts or ts, model=extra.model or self.model, tokens=extra.tokens)
        self.last_input = None  # tool results carry no time: the next step's latency is unknown
        if _mapping(message.get("state")).get("type") == "cancelled":
            self._add(Kind.ABORT, ts)
        for block in blocks:
            if block.get("type") == "tool_use":
                self._tool_use(block, ts)

    def _used(self, message: dict[str, Any]) -> list[Usage]:
        if self.ledger is None:
            usage = message.get("usage")
            return [_usage(usage)] if isinstance(usage, dict) else []
        number = message.get("messageId")
        return self.ledger.pop(number, []) if isinstance(number, int) else []

    def _tool_use(self, block: dict[str, Any], ts: datetime | None) -> None:
        name, arguments = _text(block.get("name")), _mapping(block.get("input"))
        command = _text(arguments.get("command") or arguments.get("cmd"))
        if name in PATCH_TOOLS:
            patch = _text(arguments.get("patchText") or arguments.get("patch"))
            event = self._add(Kind.EDIT, ts, files=self._files(_patch_files(patch)))
        elif name in EDIT_TOOLS:
            event = self._add(Kind.EDIT, ts, files=self._files([_text(arguments.get("path"))]))
        elif name in SHELL_TOOLS and command:
            event = self._add(Kind.COMMAND, ts, verify=is_verify_command(command))
        else:
            return
        self.calls[_text(block.get("id"))] = (event, command if event.kind is Kind.COMMAND else "")

    def _files(self, raws: list[str]) -> tuple[Path, ...]:
        files = []
        for raw in raws:
            path = _path_of(raw.strip())
            if path is None or not str(path):
                continue
            files.append(edited_path(str(path), self.cwd))
        return tuple(files)

    def _user(self, blocks: list[dict[str, Any]], ts: datetime | None) -> None:
        results = [b for b in blocks if b.get("type") == "tool_result"]
        for block in results:
            self._result(block, ts)
        typed = any(b.get("type") == "text" and _text(b.get("text")).strip() for b in blocks)
        if typed and not results:
            self._add(Kind.PROMPT, ts)
            self.last_input = ts
        else:
            self._add(Kind.ACTIVITY, ts)

    def _result(self, block: dict[str, Any], ts: datetime | None) -> None:
        opened = self.calls.pop(_text(block.get("toolUseID")), None)
        if opened is None:
            return
        event, command = opened
        run = _mapping(block.get("run"))
        status, result = run.get("status"), run.get("result")
        if status in TURNED_DOWN:
            event.rejected, event.verify = True, False
        elif event.kind is Kind.EDIT:
            event.failed = status == "error"
            if not event.files:  # apply_patch's result names the files it wrote
                uris = [_text(_mapping(f).get("uri")) for f in _list(_mapping(result).get("files"))]
                event.files = self._files(uris)
        elif status == "error":
            event.verify = False
        elif is_commit_command(command) and _mapping(result).get("exitCode") in (0, None):
            self._add(Kind.COMMIT, ts or event.ts)


def _patch_files(patch: str) -> list[str]:
    return [m.group(1) or m.group(2) for m in PATCH_FILE_RE.finditer(patch[: 1 << 20])]


def _cwd(thread: dict[str, Any]) -> Path | None:
    trees = _list(_mapping(_mapping(thread.get("env")).get("initial")).get("trees"))
    return _path_of(_text(_mapping(trees[0]).get("uri"))) if trees else None


def _version(thread: dict[str, Any]) -> str:
    platform = _mapping(_mapping(_mapping(thread.get("env")).get("initial")).get("platform"))
    version = _text(platform.get("clientVersion"))
    return version if VERSION_RE.fullmatch(version) else ""


def read(path: Path) -> Reading:
    """One thread file as a session; why it gave none when it is not a thread or records no model."""
    thread = json_file.document(path)
    if thread is None:
        return Reading()  # unreadable, too large or not JSON: told to the scan's report already
    if not isinstance(thread, dict) or not isinstance(thread.get("messages"), list):
        return Reading(skipped=Skipped(path, NOT_A_THREAD))
    messages = []
    for number, message in enumerate(thread["messages"], start=1):
        if (why := _bad_message(message)) is not None:
            skip_line(path, number, why)
        else:
            messages.append(message)
    reader = _Reader(_cwd(thread), _ledger(thread, messages))
    for message in messages:
        reader.message(message)
    steps = [e for e in reader.events if e.kind is Kind.STEP]
    if not steps:
        return Reading()
    if not any(step.model for step in steps):
        return Reading(skipped=Skipped(path, NO_MODEL))
    thread_id = _text(thread.get("id")) or path.stem
    return Reading([Session(HARNESS, thread_id, _version(thread), reader.events, cwd=reader.cwd)])


def parse(path: Path) -> list[Session]:
    return read(path).sessions
