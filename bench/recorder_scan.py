"""Recorder scan benchmark: `scan_logs` on ~50 MB of each reader's logs, against reading the same bytes.

    PYTHONPATH=.:recorder .venv/bin/python bench/recorder_scan.py [--megabytes 50] [--only codex,aider]

Every reader gets MEGABYTES of logs made by repeating real samples (tests/data/<agent>/, see each
folder's SOURCE.md) under the agent's own folder layout, in a temporary directory removed at the end.
Each copy is a session of its own: the ids in it (UUIDs and `msg_`, `req_`, `ses_`, ... ids) and its
file names are rewritten per copy, so no reader takes a copy for a resumed session it has read already.
Where no real log is published (Copilot CLI), the recorder's crafted fixture is repeated instead, and
the output says so. For aider the copies are one `.aider.chat.history.md` in a git repository of the
user's own commits, its `Commit <hash>` lines rewritten to name commits that exist, so commit times and
ship judgments are looked up for real.

Then, per reader, in the same run:

  baseline   reading the same files' bytes and splitting them into lines, nothing else;
  scan       `scan_logs((harness,), …)`: finding the logs, reading them, cutting the cycles and their
             facts (git and pricing included); not building or sending rows.

Prints each figure in seconds, the scan's ratio to its baseline, and whether each scan is within the
goal (15 s per 50 MB, scaled to MEGABYTES). A new reader is one entry in CORPORA.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "recorder"))

from pragmatikos_recorder.scan import Roots, scan_logs  # noqa: E402

DATA = REPO / "tests" / "data"
FIXTURES = REPO / "tests" / "recorder" / "fixtures"
GOAL_SECONDS_PER_50_MB = 15.0
T = TypeVar("T")
PROJECTS = 20  # as a person's logs spread over a few projects, not one folder per session
GIT_ENV = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-([0-9a-f]{12})")
PREFIXED_ID_RE = re.compile(r"\b(?:msg|req|ses|prt|toolu|call|chatcmpl)_[A-Za-z0-9]+")


@dataclass(frozen=True)
class Sample:
    """One real log and where copy `{n}` of it goes under the agent's folder, in project `{p}` of PROJECTS where
    the agent keeps logs by project (ids in the path are rewritten too)."""

    source: Path
    target: str


@dataclass(frozen=True)
class Corpus:
    """One reader's bench logs: what scan_logs calls it, the Roots field naming its folder, how to make them."""

    harness: str
    root: str  # the Roots field set to the agent's folder (a one-folder tuple for `cline`)
    make: Callable[[Path, float], list[Path]]  # (the agent's folder, megabytes) -> the files written
    origin: str  # what the copies are copies of, printed with the figures


def distinct(text: str, n: int) -> str:
    """The text with its ids made copy `n`'s own: each UUID's last group mixed with n (a bijection, so ids
    that differed still differ), and each prefixed id suffixed."""
    mask = ((n + 1) * 0x9E3779B97F4A) & 0xFFFFFFFFFFFF

    def uuid(match: re.Match[str]) -> str:
        return match.group(0)[:24] + f"{int(match.group(1), 16) ^ mask:012x}"

    return PREFIXED_ID_RE.sub(lambda m: f"{m.group(0)}c{n}", UUID_RE.sub(uuid, text))


def copied(*samples: Sample, values: dict[str, str] | None = None) -> Callable[[Path, float], list[Path]]:
    """A maker writing copies of every sample, each copy's ids its own, until they make the megabytes asked."""

    def make(folder: Path, megabytes: float) -> list[Path]:
        texts = [sample.source.read_text(encoding="utf-8") for sample in samples]
        for key, value in (values or {}).items():
            texts = [text.replace("{{" + key + "}}", value.replace("{folder}", str(folder))) for text in texts]
        per_round = sum(len(text.encode()) for text in texts)
        paths = []
        for n in range(max(1, round(megabytes * 1_000_000 / per_round))):
            for sample, text in zip(samples, texts, strict=True):
                path = folder / distinct(sample.target.format(n=n, p=n % PROJECTS), n)
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(distinct(text, n), encoding="utf-8")
                paths.append(path)
        return paths

    return make


# --- aider: one long history in a repository whose commits its commit lines name -------------------------

AIDER_SAMPLE = DATA / "aider" / "AndrewJacop-Simple-Calulator.md"
COMMIT_LINE_RE = re.compile(r"^> Commit ([0-9a-f]{7}) ", re.MULTILINE)


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
    return git(repo, "log", "--reverse", "--format=%h").split()


def aider_history(folder: Path, megabytes: float) -> list[Path]:
    """The sample repeated to `megabytes` in one history, each copy's commit lines naming commits of its own."""
    sample = AIDER_SAMPLE.read_text(encoding="utf-8")
    copies = max(1, round(megabytes * 1_000_000 / len(sample.encode())))
    repo = folder / "app"
    hashes = iter(make_repository(repo, copies * len(COMMIT_LINE_RE.findall(sample))))
    history = repo / ".aider.chat.history.md"
    with history.open("w", encoding="utf-8") as out:
        for _ in range(copies):
            out.write(COMMIT_LINE_RE.sub(lambda m: f"> Commit {next(hashes)} ", sample))
    return [history]


# --- the readers -------------------------------------------------------------------------------------------

CLAUDE = DATA / "claude-code"
CODEX = DATA / "codex"
CLINE = DATA / "cline"
CLINE_TASK = "tasks/1769053680585{n:06d}"
AMP_THREAD = DATA / "amp" / "T-019fa4db-29cf-70c9-8d9b-81524df70e52.json"
COPILOT_SESSION = "session-state/0195a1b2-c3d4-7e5f-8a9b-{n:012x}/events.jsonl"
CORPORA: tuple[Corpus, ...] = (
    Corpus(
        "claude-code",
        "claude",
        copied(
            *(
                Sample(path, f"projects/-home-dev-app{{p}}/{path.stem}-{{n}}.jsonl")
                for path in sorted(CLAUDE.glob("*/*.jsonl"))
            )
        ),
        "the six real transcripts in tests/data/claude-code",
    ),
    Corpus(
        "codex",
        "codex",
        copied(
            *(
                Sample(path, f"sessions/2026/06/05/rollout-2026-06-05T04-58-20-{{n:08d}}-{path.stem}.jsonl")
                for path in sorted(CODEX.glob("*.jsonl"))
            )
        ),
        "the four real rollouts in tests/data/codex",
    ),
    Corpus("aider", "aider", aider_history, f"the real history {AIDER_SAMPLE.name}, one file"),
    Corpus(
        "cline",
        "cline",
        copied(
            Sample(CLINE / "gmfstu-1769053680585-ui_messages.json", f"{CLINE_TASK}/ui_messages.json"),
            Sample(
                CLINE / "gmfstu-1769053680585-api_conversation_history.json",
                f"{CLINE_TASK}/api_conversation_history.json",
            ),
            Sample(CLINE / "gmfstu-1769053680585-task_metadata.json", f"{CLINE_TASK}/task_metadata.json"),
            Sample(CLINE / "jeehunter-plan-act-ui_messages.json", "tasks/1760000000000{n:06d}/ui_messages.json"),
            Sample(CLINE / "haram333-feedback-ui_messages.json", "tasks/1768000000000{n:06d}/ui_messages.json"),
        ),
        "the three real tasks in tests/data/cline (Roo Code and Kilo Code are the same reader)",
    ),
    Corpus(
        "opencode",
        "opencode",
        copied(Sample(DATA / "opencode" / "opencode-test-exported-session.json", "exports/{n}/session.json")),
        "the one real export in tests/data/opencode",
    ),
    Corpus(
        "gemini-cli",
        "gemini",
        copied(
            Sample(
                DATA / "gemini-cli" / "kvsankar-agent-history-session-01.json",
                "tmp/project{p}/chats/session-2026-06-05T04-58-{n}.json",
            )
        ),
        "the one real chat file in tests/data/gemini-cli",
    ),
    Corpus(
        "copilot-cli",
        "copilot",
        copied(
            Sample(FIXTURES / "copilot-cli" / "events.jsonl", COPILOT_SESSION),
            values={"REPO": "{folder}/work"},
        ),
        "the recorder's crafted fixture (no real events.jsonl is published: tests/data/copilot-cli/SOURCE.md)",
    ),
    Corpus(
        "amp",
        "amp",
        copied(Sample(AMP_THREAD, "threads/T-019fa4db-29cf-70c9-8d9b-{n:012x}.json")),
        "the one real thread in tests/data/amp",
    ),
    # Goose keeps one SQLite database; its only sample is crafted (tests/data/goose/SOURCE.md): not benched.
)
TUPLE_ROOTS = frozenset({"cline", "goose", "amp"})


def roots_for(corpus: Corpus, folder: Path, empty: Path) -> Roots:
    """Roots with only this reader's folder set (the others empty folders)."""
    roots = Roots(claude=empty, codex=empty, aider=empty)
    field: dict[str, Any] = {corpus.root: (folder,) if corpus.root in TUPLE_ROOTS else folder}
    return dataclasses.replace(roots, **field)


def read_lines(paths: list[Path]) -> int:
    return sum(len(p.read_text(encoding="utf-8", errors="replace").splitlines()) for p in paths)


def timed(work: Callable[[], T]) -> tuple[float, T]:
    began = time.perf_counter()
    result = work()
    return time.perf_counter() - began, result


@dataclass(frozen=True)
class Measured:
    corpus: Corpus
    files: int
    megabytes: float
    cycles: int
    baseline: float
    scan: float


def measure(corpus: Corpus, base: Path, megabytes: float) -> Measured:
    folder = base / corpus.harness
    paths = corpus.make(folder, megabytes)
    roots = roots_for(corpus, folder, base / "empty")
    baseline, _ = timed(lambda: read_lines(paths))
    seconds, scanned = timed(lambda: scan_logs((corpus.harness,), roots, progress=False))
    size = sum(p.stat().st_size for p in paths) / 1e6
    return Measured(corpus, len(paths), size, len(scanned.cycles), baseline, seconds)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--megabytes", type=float, default=50.0)
    parser.add_argument("--only", default="", help="comma-separated harnesses (default: every reader)")
    args = parser.parse_args()
    chosen = [c for c in CORPORA if not args.only or c.harness in args.only.split(",")]
    goal = GOAL_SECONDS_PER_50_MB * args.megabytes / 50
    print(f"Each reader's logs: real samples repeated to {args.megabytes:g} MB, each copy a session of its own.")
    results = []
    with tempfile.TemporaryDirectory(prefix="recorder-bench-") as scratch:
        for corpus in chosen:
            got = measure(corpus, Path(scratch), args.megabytes)
            results.append(got)
            print(f"{corpus.harness}: {got.files} files, {got.megabytes:.1f} MB of {corpus.origin}")
            print(f"  {got.cycles} cycles")
            print(f"  baseline (read + split lines): {got.baseline:6.2f} s")
            print(f"  scan:                          {got.scan:6.2f} s  ({got.scan / got.baseline:.1f}x)")
    slow = [got.corpus.harness for got in results if got.scan > goal]
    print(f"goal: each scan within {goal:g} s: {'yes' if not slow else 'NO: ' + ', '.join(slow)}")
    return 1 if slow else 0


if __name__ == "__main__":
    sys.exit(main())
