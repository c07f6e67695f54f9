"""Ship facts from real repositories: file names git would quote, and a git that cannot read the repository."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pragmatikos_recorder.git_ship import JUDGED, PENDING, UNSHIPPABLE, ShipFacts, ShipJudge

from tests.recorder.conftest import commit, make_repo

START = datetime(2025, 3, 10, 10, 0, tzinfo=UTC)
END = datetime(2025, 3, 10, 11, 0, tzinfo=UTC)
CLOSED = END + timedelta(days=30)  # the 7-day window long over


@pytest.mark.parametrize("name", ["résumé.md", "数据/表.py", "tab\there.txt", "line\nbreak.txt", 'say "hi".txt'])
def test_an_edit_to_a_file_git_would_quote_ships_when_committed(tmp_path: Path, name: str) -> None:
    repo = make_repo(tmp_path / "repo", {"README.md": "\n"}, "2025-03-01T09:00:00Z")
    commit(repo, {name: "edited\n"}, "Edit", "2025-03-10T10:30:00Z")
    # By default git log prints these names quoted and escaped ("r\303\251sum\303\251.md"), which never
    # equal the path the log gave; read as they are, the commit touches the edited file.
    assert ShipJudge(CLOSED).judge([repo / name], repo, START, END) == ShipFacts(1, 1, JUDGED)


def test_a_repository_git_cannot_read_leaves_shipping_unknown_not_judged(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"app.py": "\n"}, "2025-03-01T09:00:00Z")
    commit(repo, {"app.py": "edited\n"}, "Edit", "2025-03-10T10:30:00Z")
    (repo / ".git" / "HEAD").write_text("not a reference\n")  # git now fails: "not a git repository"
    edited = [repo / "app.py"]
    # The commit that would ship it is there, but git cannot say so: not "judged, not shipped" (0) but,
    # once the window has closed, not judgeable (2), and pending (1) while it is open.
    assert ShipJudge(CLOSED).judge(edited, repo, START, END) == ShipFacts(1, 0, UNSHIPPABLE)
    assert ShipJudge(END + timedelta(days=1)).judge(edited, repo, START, END) == ShipFacts(1, 0, PENDING)


def test_a_readable_repository_without_the_commit_is_judged_not_shipped(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"app.py": "\n", "other.py": "\n"}, "2025-03-01T09:00:00Z")
    commit(repo, {"other.py": "edited\n"}, "Other", "2025-03-10T10:30:00Z")
    assert ShipJudge(CLOSED).judge([repo / "app.py"], repo, START, END) == ShipFacts(1, 0, JUDGED)
