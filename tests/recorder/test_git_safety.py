"""A repository's own git configuration cannot make the recorder run a program, and repositories outside
the scan's roots are not read at all.

Each repository here is a real `git init` one whose .git/config names a script that, when run, writes a
marker file; the scans run through the real CLI (`pragmatikos-record scan`).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from pragmatikos_recorder import cli
from pragmatikos_recorder.git_ship import _git

from tests.recorder.conftest import World, commit, git, make_repo


def marker_script(folder: Path) -> tuple[Path, Path]:
    """A program that, whenever git runs it, leaves a marker file (and swallows its input, as a filter would)."""
    marker = folder / "ran"
    script = folder / "program.sh"
    script.write_text(f'#!/bin/sh\necho "$@" >> "{marker}"\ncat >/dev/null 2>&1\nexit 0\n')
    script.chmod(0o755)
    return script, marker


def add_signed_looking_commit(repo: Path) -> None:
    """A commit object carrying a gpgsig header, on a branch of its own: showing signatures would verify it."""
    tree = git(repo, "rev-parse", "HEAD^{tree}").strip()
    parent = git(repo, "rev-parse", "HEAD").strip()
    body = (
        f"tree {tree}\nparent {parent}\n"
        "author Dev <dev@example.com> 1741600000 +0000\ncommitter Dev <dev@example.com> 1741600000 +0000\n"
        "gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n\nSigned\n"
    )
    body_file = repo.parent / f"{repo.name}-signed-commit"
    body_file.write_text(body)
    sha = git(repo, "hash-object", "-t", "commit", "-w", str(body_file)).strip()
    git(repo, "update-ref", "refs/heads/signed", sha)


def arm(repo: Path, variant: str, script: Path) -> None:
    """Set `repo`'s configuration so that git runs `script` in the way `variant` names."""
    settings = {
        "signature": [("log.showSignature", "true"), ("gpg.program", str(script))],
        "fsmonitor": [("core.fsmonitor", str(script))],
        "pager": [("core.pager", str(script)), ("pager.log", str(script)), ("pager.show", str(script))],
        "diff": [("diff.external", str(script)), ("diff.marked.textconv", str(script))],
    }[variant]
    for key, value in settings:
        git(repo, "config", key, value)
    if variant == "diff":
        (repo / ".gitattributes").write_text("* diff=marked\n")
    add_signed_looking_commit(repo)


def log_options(world: World) -> list[str]:
    roots = world.roots
    return ["--claude-dir", str(roots.claude), "--codex-dir", str(roots.codex), "--aider-root", str(roots.aider)]


# "signature" runs the script through a plain `git log` (the recorder's own call before this fix);
# fsmonitor and the diff drivers through `git status`, `git show` and `git diff`. git pages only to a
# terminal, which captured output never is: "pager" guards against a change that hands one over.
VARIANTS = ["signature", "fsmonitor", "pager", "diff"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_scan_runs_no_program_a_scanned_repository_configures(
    world: World, tmp_path: Path, capsys: pytest.CaptureFixture[str], variant: str
) -> None:
    script, marker = marker_script(tmp_path)
    # world.cli holds an .aider.chat.history.md (aider's commit times are read from it); world.app and
    # world.tool are the repositories Claude Code's and Codex's edits name.
    for repo in (world.cli, world.app, world.tool):
        arm(repo, variant, script)
    assert cli.main(["scan", *log_options(world)]) == 0
    out = capsys.readouterr().out
    assert not marker.exists(), marker.read_text()
    # git still answered: aider's first cycle shipped (its commit touched cli.py), as in test_rows.
    header, *rows = out.strip().splitlines()
    tship, harness = header.split().index("tship"), header.split().index("harness")
    aider_ship = [row.split()[tship] for row in rows if row.split()[harness] == "aider"]
    assert aider_ship == ["1", "0", "0"]


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_one_git_function_runs_no_configured_program_whatever_it_is_asked(tmp_path: Path, variant: str) -> None:
    # The commands here (status, a full show, a diff) are ones the recorder does not run today; a later
    # caller of _git might, and each of them runs the configured program when git is called plainly.
    repo = make_repo(tmp_path / "repo", {"a.txt": "one\n"}, "2025-03-01T09:00:00Z")
    commit(repo, {"a.txt": "two\n"}, "Two", "2025-03-02T09:00:00Z")
    script, marker = marker_script(tmp_path)
    arm(repo, variant, script)
    for args in (("status",), ("show", "HEAD"), ("show", "-s", "signed"), ("diff", "HEAD~1"), ("log", "-p")):
        assert _git(repo, *args) is not None, args
    assert not marker.exists(), marker.read_text()


def test_a_plain_git_call_would_have_run_the_program(tmp_path: Path) -> None:
    """The repositories above are armed for real: called without the hardening, git runs the script."""
    repo = make_repo(tmp_path / "repo", {"a.txt": "one\n"}, "2025-03-01T09:00:00Z")
    script, marker = marker_script(tmp_path)
    arm(repo, "signature", script)
    git(repo, "log", "--all")
    assert "--verify" in marker.read_text()


def outside_session(repo: Path) -> str:
    """A Claude Code session (the fixture's line shapes) whose Write names `repo`/x.txt, run in `repo`."""
    base = {"isSidechain": False, "userType": "external", "cwd": str(repo), "sessionId": "out-1", "version": "2.0.31"}
    usage = {"input_tokens": 10, "output_tokens": 10}
    lines = [
        base | {"type": "user", "uuid": "o-1", "timestamp": "2025-03-18T14:00:00.000Z",
                "message": {"role": "user", "content": "Write the file"}},
        base | {"type": "assistant", "uuid": "o-2", "timestamp": "2025-03-18T14:00:10.000Z", "requestId": "req_o1",
                "message": {"id": "msg_o1", "role": "assistant", "model": "claude-sonnet-4-20250514", "usage": usage,
                            "content": [{"type": "tool_use", "id": "toolu_o1", "name": "Write",
                                         "input": {"file_path": str(repo / "x.txt"), "content": "x"}}]}},
        base | {"type": "user", "uuid": "o-3", "timestamp": "2025-03-18T14:00:11.000Z",
                "message": {"role": "user", "content": [{"tool_use_id": "toolu_o1", "type": "tool_result",
                                                         "content": "File created successfully"}]}},
    ]  # fmt: skip
    return "".join(json.dumps(line) + "\n" for line in lines)


@pytest.mark.parametrize("named_as", ["absolute", "through ..", "through a symlink"])
def test_a_repository_outside_the_roots_named_by_an_edit_path_is_not_read(
    world: World, tmp_path: Path, capsys: pytest.CaptureFixture[str], named_as: str
) -> None:
    outside = make_repo(tmp_path / "elsewhere" / "repo", {"x.txt": "\n"}, "2025-03-18T14:00:30Z")
    script, marker = marker_script(tmp_path)
    arm(outside, "signature", script)
    inside = world.roots.aider  # the folder the scan searches for aider histories, one of its roots
    if named_as == "through ..":
        outside = inside / ".." / "elsewhere" / "repo"  # tmp_path/repos/../elsewhere/repo
    elif named_as == "through a symlink":
        (inside / "link").symlink_to(outside)
        outside = inside / "link"
    project = world.roots.claude / "projects" / "-elsewhere-repo"
    project.mkdir(parents=True)
    (project / "out-1.jsonl").write_text(outside_session(outside))
    assert cli.main(["scan", "--harness", "claude-code", *log_options(world)]) == 0
    out = capsys.readouterr().out
    assert not marker.exists()
    header, *rows = out.strip().splitlines()
    columns = header.split()
    # The fixture's five cycles, then this session's (18 March): its edit was not looked up, so it has no
    # path inside a repository (tpaths 0) and cannot be judged (tshipe 2) although the file was committed.
    last = dict(zip(columns, rows[-1].split(), strict=True))
    assert len(rows) == 6
    assert (last["tedits"], last["tpaths"], last["tship"], last["tshipe"]) == ("1", "0", "0", "2")


def test_a_partial_clone_fetches_nothing_through_a_program_its_remote_names(tmp_path: Path) -> None:
    source = make_repo(tmp_path / "source", {"a.txt": "one\n"}, "2025-03-01T09:00:00Z")
    git(source, "config", "uploadpack.allowFilter", "true")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--no-checkout", "--filter=blob:none", source.as_uri(), str(clone))
    marker = tmp_path / "ran"
    # The blob of a.txt is missing: reading it makes git fetch it from the promisor remote, here an
    # ext:: URL (a shell command) that the clone's own config allows.
    git(clone, "config", "remote.origin.url", f"ext::sh -c touch% {marker}")
    git(clone, "config", "protocol.ext.allow", "always")
    assert _git(clone, "show", "HEAD:a.txt") is None
    assert _git(clone, "log", "--all", "--name-only", "--format=%ct") is not None  # trees are there
    assert not marker.exists()
    with pytest.raises(subprocess.CalledProcessError):
        git(clone, "show", "HEAD:a.txt")  # plainly called, git runs the remote's command (and then fails)
    assert marker.exists()


def test_the_callers_git_variables_do_not_reach_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(tmp_path / "repo", {"a.txt": "one\n"}, "2025-03-01T09:00:00Z")
    commit(repo, {"a.txt": "two\n"}, "Mine", "2025-03-02T09:00:00Z")
    other = make_repo(tmp_path / "other", {"b.txt": "\n"}, "2025-03-01T09:00:00Z")
    script, marker = marker_script(tmp_path)
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))  # would make git read the other repository
    monkeypatch.setenv("GIT_EXTERNAL_DIFF", str(script))
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", f"'core.pager={script}' 'log.showSignature=true'")
    assert _git(repo, "log", "--format=%s") == "Mine\nInitial\n"
    assert _git(repo, "diff", "HEAD~1") is not None
    assert not marker.exists()


def test_a_bare_repository_laid_out_in_a_folder_is_not_taken_for_one(tmp_path: Path) -> None:
    # aider's reader, finding no .git above a history file, asks git about the history's own folder: one
    # laid out as a bare repository (HEAD, config, objects/) would be read with the config it carries.
    source = make_repo(tmp_path / "source", {"a.txt": "one\n"}, "2025-03-01T09:00:00Z")
    buried = tmp_path / "buried"
    git(tmp_path, "clone", "-q", "--bare", str(source), str(buried))
    script, marker = marker_script(tmp_path)
    arm(buried, "signature", script)
    assert _git(buried, "log", "--all") is None
    assert not marker.exists()
    git(buried, "log", "--all")  # plainly called, git finds it and runs the script
    assert marker.exists()
