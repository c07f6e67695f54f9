"""A machine with agent logs: the fixture logs installed under a temporary home, beside real git repositories.

The fixture logs (fixtures/) follow the structure of real Claude Code transcripts, Codex rollouts and
aider chat histories, and of the records OpenCode, Gemini CLI and Copilot CLI write (an export, a chat
file, an events.jsonl: see docs/agents/). Their paths are placeholders ({{REPO}}, ...) filled in here with the
repositories this module makes with `git init` and real, dated commits.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pragmatikos_recorder.scan import Roots

FIXTURES = Path(__file__).parent / "fixtures"
DATA = Path(__file__).parent.parent / "data"
CLINE_TASK = DATA / "cline" / "gmfstu-1769053680585-ui_messages.json"
AMP_THREAD = DATA / "amp" / "T-019fa4db-29cf-70c9-8d9b-81524df70e52.json"
# The scans in these tests judge ship windows as of this moment (the fixtures run 10-18 March 2025).
NOW = datetime(2025, 3, 21, 12, 0, tzinfo=UTC)
USER = ("Dev", "dev@example.com")


@dataclass(frozen=True)
class World:
    roots: Roots
    app: Path  # Claude Code's repository
    tool: Path  # Codex's repository
    cli: Path  # aider's repository
    scratch: Path  # a folder outside any repository
    config: Path  # the recorder's config directory


def git(repo: Path, *args: str, when: str | None = None, author: str | None = None) -> str:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    if when:
        env |= {"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
    extra = [f"--author={author}"] if author else []
    if args[0] == "commit":
        args = (*args, *extra)
    return subprocess.run(["git", "-C", str(repo), *args], env=env, check=True, capture_output=True, text=True).stdout


def make_repo(path: Path, files: dict[str, str], when: str) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.name", USER[0])
    git(path, "config", "user.email", USER[1])
    commit(path, files, "Initial", when)
    return path


def commit(repo: Path, files: dict[str, str], message: str, when: str, author: str | None = None) -> str:
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    git(repo, "add", *files)
    git(repo, "commit", "-q", "-m", message, when=when, author=author)
    return git(repo, "rev-parse", "--short=7", "HEAD").strip()


def install(source: Path, target: Path, values: dict[str, str]) -> None:
    text = source.read_text()
    for key, value in values.items():
        text = text.replace("{{" + key + "}}", value)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)


def build_world(base: Path) -> World:
    home = base / "home"
    app = make_repo(
        base / "repos" / "app",
        {"src/app.py": "fetch(url)\n", "src/util.py": "\n", "README.md": "# app\n", "docs/notes.txt": "Notes\n"},
        "2025-03-01T09:00:00Z",
    )
    # The commit Claude Code made in session 1 (10:02:52), then the user's own commit of the notes,
    # then someone else's commit touching src/app.py (not the user's: it ships nothing).
    commit(
        app,
        {"src/app.py": "retry(fetch, url)\n", "src/util.py": "def retry(fn, *a): ...\n"},
        "Retry",
        "2025-03-10T10:02:52Z",
    )
    commit(app, {"docs/notes.txt": "Notes\nFetches retry 3 times.\n"}, "Notes", "2025-03-14T16:00:00Z")
    commit(
        app,
        {"src/app.py": "retry(fetch, url, log=True)\n"},
        "Log",
        "2025-03-19T11:00:00Z",
        author="Other <other@example.com>",
    )

    tool = make_repo(
        base / "repos" / "tool",
        {"src/lib.rs": "pub fn parse() {}\n", "src/main.rs": "fn main() {}\n"},
        "2025-03-01T09:00:00Z",
    )
    commit(tool, {"src/lib.rs": "pub fn parse(verbose: bool) {}\n"}, "Add --verbose", "2025-03-11T08:01:02Z")

    cli = make_repo(
        base / "repos" / "cli",
        {"cli.py": "parser = argparse.ArgumentParser()\n", "README.txt": "recieve\n"},
        "2025-03-01T09:00:00Z",
    )
    # aider's own commit: the user's e-mail, "(aider)" after the name; a local time like aider's log.
    aider_commit = commit(
        cli,
        {"cli.py": "parser.add_argument('--verbose')\n"},
        "feat: Add --verbose flag to cli",
        "2025-03-12 12:05:00",
        author="Dev (aider) <dev@example.com>",
    )

    scratch = base / "scratch"
    scratch.mkdir()
    values = {"REPO": str(app), "NOREPO": str(scratch), "AIDER_COMMIT": aider_commit}
    project = home / ".claude" / "projects" / "-repos-app"
    for source in sorted((FIXTURES / "claude-code").glob("5b1f*.jsonl")):
        install(source, project / source.name, values)
    install(
        FIXTURES / "claude-code" / "agent-a1b2c3d.jsonl",
        project / "5b1f0c9e-2d4a-4c1e-9f3b-7a2e8d6c1b01" / "subagents" / "agent-a1b2c3d.jsonl",
        values,
    )
    for source in (FIXTURES / "codex").glob("rollout-*.jsonl"):
        install(
            source, home / ".codex" / "sessions" / "2025" / "03" / "11" / source.name, {**values, "REPO": str(tool)}
        )
    install(FIXTURES / "aider" / "aider.chat.history.md", cli / ".aider.chat.history.md", values)
    # A real Cline task (tests/data/cline/SOURCE.md), as the extension keeps it under VS Code's globalStorage.
    cline_extension = home / ".config" / "Code" / "User" / "globalStorage" / "saoudrizwan.claude-dev"
    cline_task = cline_extension / "tasks" / "1769053680585"
    cline_task.mkdir(parents=True)
    shutil.copy(CLINE_TASK, cline_task / "ui_messages.json")
    # OpenCode, Gemini CLI and Copilot CLI work in Claude Code's repository (their commits are not in it).
    opencode = home / ".local" / "share" / "opencode"
    install(FIXTURES / "opencode" / "ses_fixture0001.json", opencode / "exports" / "ses_fixture0001.json", values)
    chat = "session-2025-03-16T09-00-7c2e8d6c.json"
    install(FIXTURES / "gemini-cli" / chat, home / ".gemini" / "tmp" / "myproject" / "chats" / chat, values)
    events = home / ".copilot" / "session-state" / "0195a1b2-c3d4-7e5f-8a9b-0c1d2e3ffixt" / "events.jsonl"
    install(FIXTURES / "copilot-cli" / "events.jsonl", events, values)
    # Goose's crafted database (tests/data/goose/SOURCE.md) and a real Amp thread (tests/data/amp/SOURCE.md).
    goose_data = home / ".local" / "share" / "goose"
    (goose_data / "sessions").mkdir(parents=True)
    with sqlite3.connect(goose_data / "sessions" / "sessions.db") as connection:
        connection.executescript((DATA / "goose" / "crafted-schema9.sql").read_text())
    connection.close()
    amp_data = home / ".local" / "share" / "amp"
    (amp_data / "threads").mkdir(parents=True)
    shutil.copy(AMP_THREAD, amp_data / "threads" / AMP_THREAD.name)
    return World(
        roots=Roots(
            claude=home / ".claude",
            codex=home / ".codex",
            aider=base / "repos",
            opencode=opencode,
            gemini=home / ".gemini",
            copilot=home / ".copilot",
            cline=(cline_extension,),
            goose=(goose_data,),
            amp=(amp_data,),
        ),
        app=app,
        tool=tool,
        cli=cli,
        scratch=scratch,
        config=base / "config",
    )


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    if shutil.which("git") is None:
        pytest.skip("needs git")
    built = build_world(tmp_path)
    monkeypatch.setenv("PRAGMATIKOS_RECORDER_CONFIG", str(built.config))
    return built
