"""Under the home folder, an aider history is read only in a repository where the person committed.

A history anyone leaves in a repository they publish would otherwise be sent, once the repository is
cloned, as cycles of the person's own install. Real git repositories made here; the history is a real
published one (tests/data/aider/kevinmatz-AiderExperiments.md, see its SOURCE.md).
"""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest
from pragmatikos_recorder import aider, cli
from pragmatikos_recorder.scan import Roots, scan_logs

from tests.data.paths import DATA_DIR
from tests.recorder.conftest import NOW, commit, git

HISTORY = DATA_DIR / "aider" / "kevinmatz-AiderExperiments.md"


def repository(path: Path, author: str, *, local_email: str = "") -> Path:
    """A repository whose every commit is `author`'s ("Name <e-mail>"), its history in it."""
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.name", "Someone")
    git(path, "config", "user.email", local_email or "someone@example.com")
    commit(path, {"README.md": "# x\n"}, "Initial", "2025-03-01T09:00:00Z", author=author)
    commit(path, {"app.py": "print(1)\n"}, "App", "2025-03-02T09:00:00Z", author=author)
    shutil.copyfile(HISTORY, path / aider.HISTORY_NAME)
    return path


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home folder whose git identity is Dev's, work repositories under ~/work with a work e-mail."""
    if shutil.which("git") is None:
        pytest.skip("needs git")
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(
        "[user]\n\tname = Dev\n\temail = Dev@Example.com\n"
        f'[includeIf "gitdir:{home}/work/"]\n\tpath = {home}/work.gitconfig\n'
    )
    (home / "work.gitconfig").write_text("[user]\n\temail = dev@work.example\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.setenv("PRAGMATIKOS_RECORDER_CONFIG", str(tmp_path / "config"))
    # aider's own commits keep the person's e-mail after "(aider)"; the case of an e-mail does not matter.
    repository(home / "src" / "mine", "Dev (aider) <dev@example.com>")
    repository(home / "work" / "service", "Dev <dev@work.example>")
    # Cloned (or unpacked with its .git/config, which may name anyone): nobody here is Dev.
    repository(home / "src" / "planted", "Mallory <mallory@example.com>", local_email="mallory@example.com")
    (home / "Downloads").mkdir()  # and one outside any repository
    shutil.copyfile(HISTORY, home / "Downloads" / aider.HISTORY_NAME)
    return home


def roots(home: Path, *, named: bool) -> Roots:
    return Roots(claude=home / ".claude", codex=home / ".codex", aider=home, aider_named=named)


def test_under_the_home_folder_only_histories_where_the_person_committed_are_read(home: Path) -> None:
    scanned = scan_logs(("aider",), roots(home, named=False), now=NOW, progress=False)
    assert sorted(path.parent.name for path in scanned.report.read) == ["mine", "service"]
    assert scanned.report.files_read() == Counter({"aider": 2})
    # The planted repository's history and the one outside any repository.
    assert scanned.report.files_skipped() == Counter({("aider", aider.NOT_YOURS): 2})
    assert len(scanned.cycles) == 2 * len(scan_logs(("aider",), roots(home / "src" / "mine", named=True)).cycles)


def test_under_a_root_the_person_names_every_history_is_read(home: Path) -> None:
    scanned = scan_logs(("aider",), roots(home, named=True), now=NOW, progress=False)
    assert scanned.report.files_read() == Counter({"aider": 4})
    assert scanned.report.files_skipped() == Counter()


def test_without_a_global_identity_no_history_under_the_home_folder_is_read(home: Path) -> None:
    (home / ".gitconfig").write_text("")  # the planted repository's own user.email does not stand in
    scanned = scan_logs(("aider",), roots(home, named=False), now=NOW, progress=False)
    assert scanned.report.files_read() == Counter()
    assert scanned.report.files_skipped() == Counter({("aider", aider.NOT_YOURS): 4})


def test_the_command_line_reads_the_home_folder_by_commits_and_a_named_root_whole(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["scan", "--harness", "aider"]) == 0
    summary = capsys.readouterr().err.splitlines()
    assert "files read: 2 (aider 2)" in summary
    assert f"  aider: 2 {aider.NOT_YOURS}" in summary
    assert cli.main(["scan", "--harness", "aider", "--aider-root", str(home / "src")]) == 0
    summary = capsys.readouterr().err.splitlines()
    assert "files read: 2 (aider 2)" in summary  # mine and planted: the person asked for both
    assert not any(aider.NOT_YOURS in line for line in summary)
