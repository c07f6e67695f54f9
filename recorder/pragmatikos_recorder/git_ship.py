"""Whether a cycle's edits landed: a commit by the user within 7 days touching a file the cycle edited.

"By the user" means authored under the repository's configured `user.email` (aider's own commits
keep the user's e-mail and add "(aider)" to the name, so they count as the user's too, as do
commits the agent made in the session with the user's identity). Commits are read once per
repository with one `git log`; a commit counts only while reachable from some ref, so one undone
with a reset does not.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Final

SHIP_WINDOW: Final = timedelta(days=7)
JUDGED, PENDING, UNSHIPPABLE = 0, 1, 2


@dataclass(frozen=True, slots=True)
class Commit:
    when: datetime
    author_email: str
    files: frozenset[str]  # relative to the repository's top level


@dataclass(frozen=True, slots=True)
class ShipFacts:
    tpaths: int
    tship: int
    tshipe: int


def _git(repo: Path, *args: str) -> str | None:
    try:
        return subprocess.run(  # noqa: S603 -- fixed argv, no shell
            ["git", "-C", str(repo), *args],  # noqa: S607
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        ).stdout
    except (subprocess.SubprocessError, OSError):
        return None


class ShipJudge:
    """Finds repositories and their commits, each once per scan."""

    def __init__(self, now: datetime | None = None) -> None:
        self.now = now or datetime.now(UTC)
        self._tops: dict[Path, Path | None] = {}
        self._commits: dict[Path, list[Commit]] = {}

    def repository_of(self, path: Path) -> Path | None:
        """The top level of the git work tree holding `path` (looked up by its `.git`), or None."""
        directory = path if path.is_dir() else path.parent
        seen = []
        top: Path | None = None
        for candidate in (directory, *directory.parents):
            if candidate in self._tops:
                top = self._tops[candidate]
                break
            seen.append(candidate)
            if (candidate / ".git").exists():
                top = candidate
                break
        for candidate in seen:
            self._tops[candidate] = top
        return top

    def commits(self, repo: Path) -> list[Commit]:
        if repo not in self._commits:
            self._commits[repo] = self._read_commits(repo)
        return self._commits[repo]

    def _read_commits(self, repo: Path) -> list[Commit]:
        email = (_git(repo, "config", "user.email") or "").strip().lower()
        log = _git(repo, "log", "--all", "--no-merges", "--format=%x1e%ct%x1f%ae", "--name-only")
        commits = []
        for record in (log or "").split("\x1e")[1:]:
            header, _, names = record.partition("\n")
            stamp, _, author = header.partition("\x1f")
            if email and author.strip().lower() != email:
                continue
            try:
                when = datetime.fromtimestamp(int(stamp), UTC)
            except ValueError:
                continue
            files = frozenset(line.strip() for line in names.splitlines() if line.strip())
            commits.append(Commit(when, author.strip().lower(), files))
        return commits

    def judge(self, edited: list[Path], cwd: Path | None, start: datetime, end: datetime) -> ShipFacts:
        """tpaths, tship and tshipe of a cycle that edited `edited` between `start` and `end`."""
        by_repo: dict[Path, set[str]] = {}
        for path in edited:
            repo = self.repository_of(path)
            if repo is not None:
                try:
                    by_repo.setdefault(repo, set()).add(path.relative_to(repo).as_posix())
                except ValueError:
                    continue
        window_open = self.now < end + SHIP_WINDOW
        if not by_repo:
            in_repo = cwd is not None and self.repository_of(cwd) is not None
            if edited or not in_repo:
                return ShipFacts(0, 0, UNSHIPPABLE)
            return ShipFacts(0, 0, PENDING if window_open else JUDGED)
        for repo, files in by_repo.items():
            for commit in self.commits(repo):
                if start <= commit.when <= end + SHIP_WINDOW and not files.isdisjoint(commit.files):
                    return ShipFacts(1, 1, JUDGED)
        return ShipFacts(1, 0, PENDING if window_open else JUDGED)
