"""Recorder scan benchmark: `scan_logs` on ~50 MB of aider and of Codex logs, against reading the same bytes.

    PYTHONPATH=.:recorder .venv/bin/python bench/recorder_scan.py [--megabytes 50]

Builds, in a temporary directory removed at the end, a git repository of the user's own
commits and a `.aider.chat.history.md` in it made of a real published history
(tests/data/aider/AndrewJacop-Simple-Calulator.md, see its SOURCE.md) repeated until the file
is MEGABYTES large. Each copy is one session; its three `Commit <hash>` lines are rewritten to
name commits that exist in the repository (three per copy, touching the files the copy edits),
so commit times and ship judgments are looked up for real. For Codex it writes copies of a
real published rollout (tests/data/codex/kvsankar-agent-history-session-01.jsonl) under a
Codex home's sessions folder until they make MEGABYTES. Then, in the same run, times:

  baseline   reading the same files' bytes and splitting them into lines, nothing else;
  aider      `scan_logs(("aider",), …)`: finding the history, reading it, the repository's commits
             (one `git log` for commit times, one for ship judgments), cutting the cycles and
             their facts; not building or sending rows;
  codex      `scan_logs(("codex",), …)`: finding the rollouts, reading each one's first line for
             subagent threads, reading them all, cutting the cycles and their facts (pricing
             tokens included); not building or sending rows;
  git show   for comparison, what the aider reader did before: one `git show` per commit line.

Prints each figure in seconds and each scan's ratio to its baseline, and whether each scan is
within the goal (15 s).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "recorder"))

from pragmatikos_recorder.scan import Roots, scan_logs  # noqa: E402

SAMPLE = REPO / "tests" / "data" / "aider" / "AndrewJacop-Simple-Calulator.md"
ROLLOUT = REPO / "tests" / "data" / "codex" / "kvsankar-agent-history-session-01.jsonl"
COMMIT_LINE_RE = re.compile(r"^> Commit ([0-9a-f]{7}) ", re.MULTILINE)
GOAL_SECONDS = 15.0
T = TypeVar("T")
GIT_ENV = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}


def git(repo: Path, *args: str, stdin: str | None = None) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], input=stdin, env=GIT_ENV, check=True, capture_output=True, text=True
    )
    return done.stdout


def make_repository(repo: Path, commits: int) -> list[str]:
    """A repository with `commits` commits by its configured user, made at once with fast-import."""
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.name", "Dev")
    git(repo, "config", "user.email", "dev@example.com")
    stream = []
    start = int(datetime(2025, 5, 4, 14, 0, tzinfo=UTC).timestamp())
    for n in range(commits):
        body = f"/* {n} */\n"
        stream += [
            "commit refs/heads/main",
            f"mark :{n + 1}",
            f"author Dev (aider) <dev@example.com> {start + 60 * n} +0000",
            f"committer Dev <dev@example.com> {start + 60 * n} +0000",
            "data 7",
            "change",
            *([f"from :{n}"] if n else []),
            f"M 100644 inline src/{('App.js', 'styles.css', 'components/EmojiBubble.jsx')[n % 3]}",
            f"data {len(body.encode())}",
            body.rstrip("\n"),
            "",
        ]
    git(repo, "fast-import", "--quiet", stdin="\n".join(stream) + "\n")
    git(repo, "checkout", "-q", "main")
    log = git(repo, "log", "--reverse", "--format=%h")
    return log.split()


def build_history(repo: Path, megabytes: float) -> tuple[Path, int]:
    """The sample repeated to `megabytes`, its commit lines naming the repository's commits; (path, commit lines)."""
    sample = SAMPLE.read_text(encoding="utf-8")
    per_copy = len(COMMIT_LINE_RE.findall(sample))
    copies = max(1, round(megabytes * 1_000_000 / len(sample.encode())))
    hashes = iter(make_repository(repo, copies * per_copy))
    history = repo / ".aider.chat.history.md"
    with history.open("w", encoding="utf-8") as out:
        for _ in range(copies):
            out.write(COMMIT_LINE_RE.sub(lambda m: f"> Commit {next(hashes)} ", sample))
    return history, copies * per_copy


def build_rollouts(codex_home: Path, megabytes: float) -> list[Path]:
    """Copies of the rollout, one session each, under `codex_home`/sessions."""
    sample = ROLLOUT.read_bytes()
    day = codex_home / "sessions" / "2026" / "06" / "05"
    day.mkdir(parents=True)
    paths = []
    for n in range(max(1, round(megabytes * 1_000_000 / len(sample)))):
        path = day / f"rollout-2026-06-05T04-58-20-{n:08d}.jsonl"
        path.write_bytes(sample)
        paths.append(path)
    return paths


def read_lines(paths: list[Path]) -> int:
    return sum(len(p.read_text(encoding="utf-8", errors="replace").splitlines()) for p in paths)


def timed(work: Callable[[], T]) -> tuple[float, T]:
    began = time.perf_counter()
    result = work()
    return time.perf_counter() - began, result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--megabytes", type=float, default=50.0)
    parser.add_argument("--git-show-sample", type=int, default=200, help="commit lines timed the old way")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="recorder-bench-") as scratch:
        base = Path(scratch)
        history, commit_lines = build_history(base / "repos" / "app", args.megabytes)
        size = history.stat().st_size
        rollouts = build_rollouts(base / "codex", args.megabytes)
        roots = Roots(claude=base / "none", codex=base / "codex", aider=base / "repos")

        aider_baseline, _ = timed(lambda: read_lines([history]))
        aider_seconds, aider_cycles = timed(lambda: scan_logs(("aider",), roots, progress=False).cycles)
        codex_baseline, _ = timed(lambda: read_lines(rollouts))
        codex_seconds, codex_cycles = timed(lambda: scan_logs(("codex",), roots, progress=False).cycles)
        hashes = COMMIT_LINE_RE.findall(history.read_text(encoding="utf-8"))[: args.git_show_sample]
        shown, _ = timed(lambda: [git(history.parent, "show", "-s", "--format=%ct", h) for h in hashes])

    per_line = shown / max(1, len(hashes))
    codex_size = len(rollouts) * ROLLOUT.stat().st_size
    print(f"aider: one history of {size / 1e6:.1f} MB, {commit_lines} commit lines; {len(aider_cycles)} cycles")
    print(f"  baseline (read + split lines): {aider_baseline:.2f} s")
    print(f"  scan:                          {aider_seconds:.2f} s  ({aider_seconds / aider_baseline:.1f}x)")
    print(
        f"  git show per commit line:      {per_line * 1000:.1f} ms each, {len(hashes)} timed; "
        f"{per_line * commit_lines:.1f} s for all {commit_lines} (the old way, that part alone)"
    )
    print(f"codex: {len(rollouts)} rollouts, {codex_size / 1e6:.1f} MB; {len(codex_cycles)} cycles")
    print(f"  baseline (read + split lines): {codex_baseline:.2f} s")
    print(f"  scan:                          {codex_seconds:.2f} s  ({codex_seconds / codex_baseline:.1f}x)")
    within = max(aider_seconds, codex_seconds) <= GOAL_SECONDS
    print(f"goal: each scan within {GOAL_SECONDS:.0f} s: {'yes' if within else 'NO'}")
    return 0 if within else 1


if __name__ == "__main__":
    sys.exit(main())
