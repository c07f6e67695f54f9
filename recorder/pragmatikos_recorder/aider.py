"""aider: `.aider.chat.history.md` in each repository where aider ran.

The file is Markdown appended to by every session, as aider's InputOutput writes it:
* `# aider chat started at YYYY-MM-DD HH:MM:SS` (local time) opens a session;
* `> ` lines are aider's own output. Its announcements come at the start and again after every
  `/model`, `/chat-mode` and mode switch: `Aider vX`, `Main model: X with <format> edit format[, reasoning
  high]` (before 0.49 `Models: X with … format, weak model Y`, before 0.2x `Model: X [using …]`),
  `Editor model: Y with …` (architect mode: X plans, Y builds). After each reply `Tokens: … Cost: $x
  message, …` (before about 0.40, if at all, `N prompt tokens, M completion tokens[, $x cost]`);
  `Applied edit to <file>`, `Commit <hash> <message>`, `Edit the files? (Y)es/(N)o [Yes]: n` (a plan
  turned down), `^C`.
* `#### ` lines are user input, one input per block of consecutive `####` lines (a blank line
  ends it): a prompt, a `/command`, the echo of a `/ask`, `/code` or `/architect` message (aider
  writes the message again as it runs it in that mode), an answer given for a whole group of
  y/n questions (`…(A)ll/(S)kip all [Yes]: a`), in architect mode the plan handed to the editor, or
  `#### <blank>`: Enter on an empty line, which aider sends nowhere.
* With `--watch-files`, an "AI!" or "AI?" comment the person wrote in a file is a request:
  `> Processing your request...`, with no input line; an "AI?" one is run as `/ask` and so echoed
  (`#### Find the "AI" comments below…`), the same request.
* Plain lines are the model's reply (so is a `#### heading` of its own: aider ends each line it
  writes with two spaces, a Markdown line break, and the reply's lines lack them).
A reply is one step: its token report says so; before token reports, the first reply text after
an input is. The log has no time per message: active hours and step latencies are unknown; a
cycle's end is the time of its commit where git knows it.
Modes: `code` (and any edit format) builds; `architect` plans, then its editor builds; `ask`,
`help` and `context` only talk: their replies cost money but neither plan nor build.
"""

from __future__ import annotations

import os
import re
from array import array
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Final, Literal

from pragmatikos_recorder.canonical import provider_of
from pragmatikos_recorder.git_ship import _git
from pragmatikos_recorder.jsonl import skip_file, skip_line, text_lines
from pragmatikos_recorder.session import Event, Kind, Phase, Session, is_verify_command
from pragmatikos_recorder.skips import Reading, Skipped
from pragmatikos_recorder.timeutil import EARLIEST, LATEST

HARNESS: Final = "aider"
HISTORY_NAME: Final = ".aider.chat.history.md"
START_RE: Final = re.compile(r"^# aider chat started at (\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})")
VERSION_RE: Final = re.compile(r"^Aider v(\S+)")
MAIN_MODEL_RE: Final = re.compile(r"^(?:Main model|Models?): (\S+)(?: (?:with|using) (\S+) edit format(.*))?$")
EDITOR_MODEL_RE: Final = re.compile(r"^Editor model: (\S+)")
EFFORT_RE: Final = re.compile(r"reasoning(?: effort:?)? (\w+)")
COST_RE: Final = re.compile(r"Cost: \$([0-9.]+) message")
OLD_TOKENS_RE: Final = re.compile(r"^[0-9,]+ prompt tokens, [0-9,]+ completion tokens(?:, \$([0-9.]+) cost)?")
APPLIED_RE: Final = re.compile(r"^Applied edit to (.+)$")
FAILED_EDIT_RE: Final = re.compile(r"SEARCH/REPLACE blocks? failed to match|did not conform to the edit format")
COMMIT_RE: Final = re.compile(r"^Commit ([0-9a-f]{7,40}) ")
DECLINED_RE: Final = re.compile(r"^Edit the files\? .*: n", re.IGNORECASE)
# An edit the person refused to let aider write (older: "Allow creation of new file x? n").
REFUSED_EDIT_RE: Final = re.compile(r"^(?:Allow creation of new file|Create new file|Allow edits to)\b.*[?:] n$", re.I)
# A y/n question's answer logged as user input (aider does so when a group answer applies).
ANSWER_RE: Final = re.compile(r"\(Y\)es/\(N\)o.*\[[^\]]*\]: ?\S*$")
ADDED_TO_CHAT_RE: Final = re.compile(r"^Add .+ to the chat\? (?:.*: )?y$", re.I)
BLANK_INPUT: Final = "<blank>"
WATCH_REQUEST: Final = "Processing your request..."
WATCH_ASK_ECHO: Final = 'Find the "AI" comments below'
MAX_COST: Final = 5000.0  # the contract's ceiling for a cycle's cost
# Real histories run ~45 bytes a line: this is ~90 MB of one, ~170 MB of Python for a file of 2-byte lines.
MAX_HISTORY_LINES: Final = 1 << 21
TOO_MANY_LINES: Final = "more lines than an aider history holds"
NOT_YOURS: Final = "in a repository with no commit of yours (name its folder with --aider-root to read it)"
SKIPPED_DIRS: Final = frozenset({"node_modules", ".git", ".venv", "venv", "__pycache__", "Library", ".cache"})

# aider's commands (`cmd_*` in aider/commands.py); it runs any unique prefix of one, so `/arch` is /architect.
COMMANDS: Final = (
    "/add /architect /ask /chat-mode /clear /code /commit /context /copy /copy-context /diff /drop /edit /editor"
    " /editor-model /exit /git /help /lint /load /ls /map /map-refresh /model /models /multiline-mode /ok /paste"
    " /quit /read-only /reasoning-effort /report /reset /run /save /settings /test /think-tokens /tokens /undo"
    " /voice /weak-model /web"
).split()
# Commands that, given a message, run that one message in another mode; the message is echoed next.
ONE_TURN_MODES: Final = {"/ask": "ask", "/code": "code", "/ok": "code", "/architect": "architect",
                         "/context": "context", "/help": "help"}  # fmt: skip
TALK_MODES: Final = frozenset({"ask", "help", "context"})

Mode = Literal["code", "architect", "editor", "talk"]


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


def repository_of(history: Path) -> Path | None:
    """The work tree holding a history: the nearest folder above it with a `.git`."""
    return next((d for d in (history.parent, *history.parent.parents) if (d / ".git").exists()), None)


def yours(histories: list[Path]) -> list[Path]:
    """The histories in a repository where the person committed; the others are skipped and counted.

    Anyone can leave a history in a repository they publish, and one cloned under the home folder
    would otherwise be sent as the person's own cycles.
    """
    kept = []
    for history in histories:
        if _has_your_commit(repository_of(history)):
            kept.append(history)
        else:
            skip_file(history, NOT_YOURS)
    return kept


def _has_your_commit(repo: Path | None) -> bool:
    """Whether a commit of `repo` is authored with the e-mail the person's own git configuration gives.

    The global files only (and what they include, so a per-folder `includeIf` identity counts): a
    repository's .git/config is written by whoever made the repository when it comes as an archive.
    """
    if repo is None:
        return False
    email = (_git(repo, "config", "--global", "--includes", "user.email") or "").strip()
    if not email:
        return False
    # aider's own commits keep the person's e-mail ("Name (aider) <e-mail>"), so they count too.
    author = f"--author=<{email}>"
    found = _git(repo, "log", "--all", "--fixed-strings", "--regexp-ignore-case", author, "-n", "1", "--format=%H")
    return bool(found and found.strip())


@dataclass(slots=True)
class CommitTimes:
    """When each commit of a repository was made, read with one `git log` per repository per scan."""

    _by_repo: dict[Path, dict[str, list[tuple[str, int]]]] = field(default_factory=dict)

    def of(self, repo: Path, short: str) -> datetime | None:
        if repo not in self._by_repo:
            self._by_repo[repo] = self._read(repo)
        for full, stamp in self._by_repo[repo].get(short[:7], []):
            if full.startswith(short):
                return datetime.fromtimestamp(stamp, UTC)
        return None

    @staticmethod
    def _read(repo: Path) -> dict[str, list[tuple[str, int]]]:
        # --reflog too: a commit aider made and the person later undid is still where the log names it.
        log = _git(repo, "log", "--all", "--reflog", "--format=%H %ct")
        by_prefix: dict[str, list[tuple[str, int]]] = {}
        for line in (log or "").splitlines():
            full, _, stamp = line.partition(" ")
            if stamp.isdigit():
                by_prefix.setdefault(full[:7], []).append((full, int(stamp)))
        return by_prefix


def _command(text: str) -> tuple[str, str]:
    """(the command aider would run, its argument) for an input starting with `/`; ("", "") if none."""
    word, _, rest = text.partition(" ")
    if word in COMMANDS:
        return word, rest.strip()
    matches = [c for c in COMMANDS if c.startswith(word)]
    return (matches[0], rest.strip()) if len(matches) == 1 else ("", "")


class _SessionReader:
    def __init__(
        self, path: Path, repo: Path | None, started: datetime, commits: CommitTimes, *, text_steps: bool
    ) -> None:
        # aider names files relative to the repository's top level, where it keeps the history by default.
        self.repo, self.top, self.commits = repo, repo or path.parent, commits
        self.now = started
        self.session = Session(HARNESS, f"{path}\x00{started:%Y-%m-%d %H:%M:%S}", "", [], cwd=self.top, timed=False)
        self.main_model, self.editor_model, self.effort = "", "", ""
        self.mode: Mode = "code"  # the session's chat mode, as last announced
        self.one_turn: Mode | None = None  # a `/ask msg`-like command: its echoed message runs in this mode
        self.turn: Mode = "code"  # the mode the current reply runs in
        self.awaiting_editor = False  # an architect reply was made; the next user block hands it on
        # Without token reports (before about aider 0.40) a step is the first reply text after a prompt,
        # after an `/add` (those aider answered once the chat had begun) or after files were let into the
        # chat (`Add these files to the chat? y`: aider asks the model again).
        self.text_steps = text_steps
        self.reply_due = False
        # aider reports one failed reply twice ("did not conform…", then "# 1 SEARCH/REPLACE block failed…").
        self.failure_noted = False
        # A reply under way: ^C then interrupts it; ^C at an idle prompt is only how one leaves aider.
        self.replying = self.after_text = False
        # The prompt of a request written as comments in a file (--watch-files), until the next input.
        self.watch_request: Event | None = None

    def _add(self, kind: Kind, phase: Phase, **fields: object) -> None:
        self.session.events.append(Event(kind, self.now, phase=phase, **fields))  # type: ignore[arg-type]

    def user_block(self, text: str) -> None:
        """The first line of one user input."""
        request, self.watch_request = self.watch_request, None
        if text == BLANK_INPUT or ANSWER_RE.search(text):
            return
        if request is not None and text.startswith(WATCH_ASK_ECHO):  # an "AI?" request, run as /ask
            request.phase, self.turn = "build", "talk"
            return
        if text.startswith(("/", "!")):
            self._command(*(("/run", text[1:].strip()) if text.startswith("!") else _command(text)))
            return
        if self.awaiting_editor:  # the accepted plan, handed to the editor model
            self.awaiting_editor = False
            self.turn, self.reply_due, self.replying = "editor", True, True
            return
        self._prompt()

    def _prompt(self) -> None:
        """A prompt sent to the model, in the mode a one-turn command chose or the session's."""
        self.turn, self.one_turn = self.one_turn or self.mode, None
        self.reply_due = self.replying = True
        self._add(Kind.PROMPT, "plan" if self.turn == "architect" else "build")

    def _command(self, command: str, argument: str) -> None:
        self.awaiting_editor, self.reply_due = False, command == "/add"
        if command in ("/test", "/lint"):
            self._add(Kind.COMMAND, "build", verify=True)
        elif command == "/run":
            self._add(Kind.COMMAND, "build", verify=is_verify_command(argument))
        elif command in ONE_TURN_MODES and (argument or command == "/ok"):
            self.one_turn = _mode(ONE_TURN_MODES[command])
        # Everything else (/model, /chat-mode, a bare /ask…) either changes nothing a cycle counts or is
        # followed by aider's announcements, which say the new model and mode.

    def output_line(self, text: str) -> None:
        if self.text_steps and self.after_text and not text.startswith("^C"):
            self.replying = False  # aider's lines after a reply's text: the reply is done
        self.after_text = False
        if match := VERSION_RE.match(text):
            self.session.hversion = self.session.hversion or match.group(1)
        elif match := MAIN_MODEL_RE.match(text):
            self.main_model, self.mode = match.group(1), _mode(match.group(2) or "code")
            effort = EFFORT_RE.search(match.group(3) or "")
            self.effort = effort.group(1) if effort else ""
            self.one_turn = None
        elif match := EDITOR_MODEL_RE.match(text):
            self.editor_model = match.group(1)
        elif text.startswith("Tokens: "):
            cost = COST_RE.search(text)
            self._report(_dollars(cost.group(1)) if cost else None)
        elif match := OLD_TOKENS_RE.match(text):
            self._report(_dollars(match.group(1)) if match.group(1) else None)
        elif match := APPLIED_RE.match(text):
            self._add(Kind.EDIT, "build", files=(self.top / match.group(1).strip(),))
        elif FAILED_EDIT_RE.search(text) and not self.failure_noted:
            self.failure_noted = True
            self._add(Kind.EDIT, "build", failed=True)
        elif match := COMMIT_RE.match(text):
            when = self.commits.of(self.repo, match.group(1)) if self.repo else None
            self.now = when or self.now
            self._add(Kind.COMMIT, "build")
        elif DECLINED_RE.match(text):
            self.awaiting_editor = False
            self._add(Kind.ABORT, "plan")
        elif REFUSED_EDIT_RE.match(text):
            self._add(Kind.ABORT, "build")
        elif ADDED_TO_CHAT_RE.match(text):
            self.reply_due = True
        elif text == WATCH_REQUEST:
            self._prompt()
            self.watch_request = self.session.events[-1]
        elif (text.startswith("^C") or "KeyboardInterrupt" in text) and self.replying:
            self.replying = False
            self._add(Kind.ABORT, "build")

    def reply_text(self) -> None:
        if self.text_steps and self.reply_due:
            self._step(None)
        self.reply_due, self.after_text = False, True

    def _report(self, cost: float | None) -> None:
        """A token report closes the reply it follows: that reply is one step."""
        if not self.text_steps:
            self._step(cost)
            self.replying = False

    def _step(self, cost: float | None) -> None:
        self.failure_noted = False
        if self.turn == "talk":
            self._add(Kind.TOKENS, "build", cost=cost)
            return
        phase: Phase = "build"
        if self.turn == "architect":
            self.awaiting_editor = True
            model, effort, phase = self.main_model, self.effort, "plan"
        elif self.turn == "editor":  # aider's editor model defaults to the main model itself
            model, effort = self.editor_model or self.main_model, ""
        else:
            model, effort = self.main_model, self.effort
        self._add(Kind.STEP, phase, model=model, provider=provider_of(model), effort=effort, cost=cost)


def _dollars(text: str) -> float | None:
    """A cost as aider prints it, or None for one that is not a sum ("$." cut short, "1.2.3", 5,000 digits)."""
    try:
        value = float(text)
    except ValueError:
        return None
    return value if 0 <= value <= MAX_COST else None


def _mode(edit_format: str) -> Mode:
    if edit_format == "architect":
        return "architect"
    return "talk" if edit_format in TALK_MODES else "code"


def _local_time(text: str) -> datetime | None:
    """A session's start (aider writes local time); None for a time that is none (month 13, year 9999)."""
    try:
        started = datetime.strptime(text, "%Y-%m-%d %H:%M:%S").astimezone()
    except (ValueError, OverflowError, OSError):
        return None
    return started if EARLIEST <= started < LATEST else None


def _has_token_reports(lines: list[str]) -> bool:
    return any(line.startswith("> Tokens: ") or OLD_TOKENS_RE.match(line[2:]) for line in lines if line[:2] == "> ")


def _read_session(path: Path, repo: Path | None, started: datetime, lines: list[str], commits: CommitTimes) -> Session:
    reader = _SessionReader(path, repo, started, commits, text_steps=not _has_token_reports(lines))
    # aider ends every input line with a Markdown line break; a reply's own `#### heading` has none. Where a
    # file lost its trailing spaces (an editor trimmed them) every `####` line has to count as input.
    user_line_end = "  " if any(line.startswith("####") and line.endswith("  ") for line in lines) else ""
    in_user_block = False
    for raw in lines:
        line = raw.rstrip()
        if (line.startswith("#### ") or line == "####") and raw.endswith(user_line_end):
            if not in_user_block:
                reader.user_block(line[5:].strip())
            in_user_block = True
            continue
        in_user_block = False
        if line.startswith("> ") or line == ">":
            reader.output_line(line[2:].strip())
        elif line:
            reader.reply_text()
    return reader.session


def _lines(path: Path) -> tuple[list[str], array[int]] | None:
    """The history's lines and each one's number in the file (over-long lines are left out), or None
    past MAX_HISTORY_LINES: each line kept costs ~60 bytes, however short."""
    lines: list[str] = []
    numbers = array("L")  # 4 or 8 bytes a line, not a Python int's 28
    for number, text in text_lines(path):
        if len(lines) == MAX_HISTORY_LINES:
            return None
        numbers.append(number)
        lines.append(text.rstrip("\r\n"))
    return lines, numbers


def read(path: Path, commits: CommitTimes | None = None) -> Reading:
    """The history's sessions that have a model reply; or, if replies were made by no named model, why none."""
    commits = commits or CommitTimes()
    # A file that is not a regular one, or too large, gives no lines (and is reported by text_lines);
    # a line over the cap is left out and reported.
    read_lines = _lines(path)
    if read_lines is None:
        return Reading(skipped=Skipped(path, TOO_MANY_LINES))
    lines, numbers = read_lines
    repo = repository_of(path)
    starts = [
        (i, _local_time(m.group(1))) for i, line in enumerate(lines) if line[:2] == "# " and (m := START_RE.match(line))
    ]
    sessions = []
    for n, (first, started) in enumerate(starts):
        last = starts[n + 1][0] if n + 1 < len(starts) else len(lines)
        if started is None:  # an impossible date: that session only is lost
            skip_line(path, numbers[first], "a session start at no real time")
        else:
            sessions.append(_read_session(path, repo, started, lines[first + 1 : last], commits))
    replied = [s for s in sessions if any(e.kind is Kind.STEP for e in s.events)]
    named = [s for s in replied if any(e.kind is Kind.STEP and e.model for e in s.events)]
    if replied and not named:
        return Reading(skipped=Skipped(path, "no session in it names the model that replied"))
    return Reading(named)


def parse(path: Path, commits: CommitTimes | None = None) -> list[Session]:
    return read(path, commits).sessions
