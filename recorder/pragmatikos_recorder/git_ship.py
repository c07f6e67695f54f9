"""Whether a cycle's edits landed: a commit by the user within 7 days touching a file the cycle edited.

"By the user" means authored under the repository's configured `user.email` (aider's own commits
keep the user's e-mail and add "(aider)" to the name, so they count as the user's too, as do
commits the agent made in the session with the user's identity). Commits are read once per
repository with one `git log`; a commit counts only while reachable from some ref, so one undone
with a reset does not.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
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


# Repository configuration that makes `git log`, `git show`, `git config` or `git rev-parse` run a
# program, each set to something inert on the command line (which outranks every config file).
# Repositories are other people's data: a cloned one's .git/config is written by whoever made it.
NEUTRAL_CONFIG: Final = (
    "log.showSignature=false",  # with gpg.program, showing signatures runs it
    "gpg.program=false",
    "gpg.openpgp.program=false",
    "gpg.x509.program=false",
    "gpg.ssh.program=false",
    "gpg.ssh.defaultKeyCommand=false",
    "core.fsmonitor=false",  # a hook run whenever git looks at the work tree
    "core.hooksPath=/dev/null",
    "core.pager=cat",
    "core.sshCommand=false",
    "core.askPass=",
    "credential.helper=",  # an empty value clears the list of helpers
    "protocol.allow=never",  # a partial clone fetches missing objects through a remote's program
    # A bare repository buried in a work tree (a folder holding HEAD, config, objects/) is read only
    # when named on purpose, never found by discovery with the config it carries.
    "safe.bareRepository=explicit",
    "core.quotePath=false",
    "i18n.logOutputEncoding=UTF-8",
    "color.ui=never",
    "gc.auto=0",
    "maintenance.auto=false",
)
# Options of the commands that show commits or diffs: no signature check, no external diff (diff.external
# cannot be cleared by -c: an empty value is run as a program) and no textconv filter.
DIFF_OPTIONS: Final = ("--no-ext-diff", "--no-textconv", "--no-color")
COMMAND_OPTIONS: Final = {
    "log": ("--no-show-signature", *DIFF_OPTIONS),
    "show": ("--no-show-signature", *DIFF_OPTIONS),
    "diff": DIFF_OPTIONS,
}

_roots: ContextVar[tuple[Path, ...] | None] = ContextVar("git_roots", default=None)


@contextmanager
def only_under(roots: Iterable[Path]) -> Iterator[None]:
    """Within this block, git reads no repository (and ShipJudge looks up no path) outside `roots`."""
    token = _roots.set(tuple(_real(root) or root for root in roots))
    try:
        yield
    finally:
        _roots.reset(token)


def _real(path: Path) -> Path | None:
    """`path` with symlinks and `..` resolved, or None when it cannot be (a NUL, a name too long)."""
    try:
        return Path(os.path.realpath(path))
    except (OSError, ValueError):
        return None


def is_allowed(path: Path) -> bool:
    """Whether `path` lies under one of the scan's roots (anything, outside a scan)."""
    roots = _roots.get()
    if roots is None:
        return True
    real = _real(path)
    return real is not None and any(real == root or root in real.parents for root in roots)


def _git_env(repo: Path) -> dict[str, str]:
    # The caller's GIT_* variables (GIT_DIR, GIT_EXEC_PATH, GIT_SSH_COMMAND, GIT_CONFIG_PARAMETERS...)
    # would point git elsewhere or run something: none is passed on.
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    return env | {
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_PAGER": "cat",
        "PAGER": "cat",
        "GIT_ASKPASS": "",  # empty: no askpass program at all, core.askPass and SSH_ASKPASS included
        "SSH_ASKPASS": "",
        "GIT_ALLOW_PROTOCOL": "",  # no transport at all, whatever protocol.<name>.allow a repository sets
        "GIT_NO_LAZY_FETCH": "1",  # git 2.44 on: a partial clone fetches nothing it lacks
        "GIT_OPTIONAL_LOCKS": "0",
        # No climbing to a repository above this one (git ignores a relative ceiling, hence abspath).
        "GIT_CEILING_DIRECTORIES": os.path.abspath(repo.parent),
    }


def _git(repo: Path, *args: str) -> str | None:
    """`git -C repo args...`'s output, or None when git fails or `repo` lies outside the scan's roots.

    Every git call of the recorder goes through here: the repository's own configuration can run
    programs (signature display, fsmonitor, pagers, diff drivers, credential and ssh helpers), and
    NEUTRAL_CONFIG and COMMAND_OPTIONS switch each off. Output is read as file names are, so a name
    that is not UTF-8 still matches the path a log gave. An argument taken from a log goes after
    "--end-of-options" (or is checked first): read as an option, `--output=<file>` would write a file.
    """
    if not args or not is_allowed(repo):
        return None
    command, *rest = args
    options = COMMAND_OPTIONS.get(command, ())
    config = [part for setting in NEUTRAL_CONFIG for part in ("-c", setting)]
    try:
        completed = subprocess.run(  # noqa: S603 -- fixed argv, no shell
            ["git", "--no-pager", *config, "-C", str(repo), command, *options, *rest],  # noqa: S607
            capture_output=True,
            stdin=subprocess.DEVNULL,
            env=_git_env(repo),
            check=True,
            timeout=60,
        )
    except (subprocess.SubprocessError, OSError, ValueError):
        return None
    return os.fsdecode(completed.stdout)


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except (OSError, ValueError):  # a name too long, a NUL in a path read from a log
        return False


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except (OSError, ValueError):
        return False


def _git_dirs_allowed(top: Path) -> bool:
    """Whether the repository's git directory (and, for a linked work tree, the main one) is under the roots.

    A `.git` file names its git directory ("gitdir: <path>"), which may lie anywhere; read lexically
    here so that nothing outside the roots is opened, not even by git.
    """
    dot_git = top / ".git"
    git_dir = dot_git
    if dot_git.is_file():
        try:
            first = dot_git.read_text(encoding="utf-8", errors="replace").partition("\n")[0]
        except OSError:
            return False
        if not first.startswith("gitdir:"):
            return False
        git_dir = top / first.removeprefix("gitdir:").strip()
    common = git_dir / "commondir"
    dirs = [git_dir]
    if common.is_file():
        try:
            dirs.append(git_dir / common.read_text(encoding="utf-8", errors="replace").strip())
        except OSError:
            return False
    return all(is_allowed(d) for d in dirs)


class ShipJudge:
    """Finds repositories and their commits, each once per scan, under the scan's roots only."""

    def __init__(self, now: datetime | None = None) -> None:
        self.now = now or datetime.now(UTC)
        self._tops: dict[Path, Path | None] = {}
        self._commits: dict[Path, list[Commit] | None] = {}

    def repository_of(self, path: Path) -> Path | None:
        """The top level of the git work tree holding `path` (looked up by its `.git`), or None.

        A path outside the scan's roots is not looked up at all, nor is any folder above them.
        """
        if not is_allowed(path):
            return None
        real = _real(path)
        if real is None:
            return None
        directory = real if _is_dir(real) else real.parent
        seen = []
        top: Path | None = None
        for candidate in (directory, *directory.parents):
            if candidate in self._tops:
                top = self._tops[candidate]
                break
            if not is_allowed(candidate):
                break
            seen.append(candidate)
            if _exists(candidate / ".git"):
                top = candidate if _git_dirs_allowed(candidate) else None
                break
        for candidate in seen:
            self._tops[candidate] = top
        return top

    def commits(self, repo: Path) -> list[Commit] | None:
        """The repository's commits by its user, or None when git could not read them."""
        if repo not in self._commits:
            self._commits[repo] = self._read_commits(repo)
        return self._commits[repo]

    def _read_commits(self, repo: Path) -> list[Commit] | None:
        # `git config` exits 1 when the key is unset: then every author counts, as before.
        email = (_git(repo, "config", "user.email") or "").strip().lower()
        # -z: file names as they are (a name with a newline, a tab or a quote is otherwise quoted).
        log = _git(repo, "log", "--all", "--no-merges", "-z", "--format=%x1e%ct%x1f%ae", "--name-only")
        if log is None:
            return None
        commits = []
        for record in log.split("\x1e")[1:]:
            header, _, names = record.partition("\x00")
            stamp, _, author = header.partition("\x1f")
            if email and author.strip().lower() != email:
                continue
            try:
                when = datetime.fromtimestamp(int(stamp), UTC)
            except (ValueError, OverflowError, OSError):  # a crafted commit date past year 9999
                continue
            files = frozenset(name.lstrip("\n") for name in names.split("\x00") if name.lstrip("\n"))
            commits.append(Commit(when, author.strip().lower(), files))
        return commits

    def judge(self, edited: list[Path], cwd: Path | None, start: datetime, end: datetime) -> ShipFacts:
        """tpaths, tship and tshipe of a cycle that edited `edited` between `start` and `end`."""
        by_repo: dict[Path, set[str]] = {}
        for path in edited:
            repo = self.repository_of(path)
            real = _real(path)
            if repo is not None and real is not None:
                try:
                    by_repo.setdefault(repo, set()).add(real.relative_to(repo).as_posix())
                except ValueError:
                    continue
        window_open = self.now < end + SHIP_WINDOW
        if not by_repo:
            in_repo = cwd is not None and self.repository_of(cwd) is not None
            if edited or not in_repo:
                return ShipFacts(0, 0, UNSHIPPABLE)
            return ShipFacts(0, 0, PENDING if window_open else JUDGED)
        unread = False
        for repo, files in by_repo.items():
            commits = self.commits(repo)
            if commits is None:
                unread = True
                continue
            for commit in commits:
                if start <= commit.when <= end + SHIP_WINDOW and not files.isdisjoint(commit.files):
                    return ShipFacts(1, 1, JUDGED)
        if unread:
            # git could not read a repository the cycle edited, so whether it shipped is not known.
            # "Judged, not shipped" would be a claim; while the window is open the cycle is pending
            # (the next scan may read it), after that it cannot be judged: unshippable.
            return ShipFacts(1, 0, PENDING if window_open else UNSHIPPABLE)
        return ShipFacts(1, 0, PENDING if window_open else JUDGED)
