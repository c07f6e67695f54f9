"""The summary `pragmatikos-record scan` ends with: counts and harness names, withheld names, no path."""

from __future__ import annotations

import json

import pytest
from pragmatikos_recorder import cli

from tests.recorder.conftest import World


def log_options(world: World) -> list[str]:
    roots = world.roots
    return ["--claude-dir", str(roots.claude), "--codex-dir", str(roots.codex), "--aider-root", str(roots.aider)]


def summary_of(world: World, capsys: pytest.CaptureFixture[str]) -> list[str]:
    assert cli.main(["scan", *log_options(world)]) == 0
    return capsys.readouterr().err.splitlines()


def test_it_counts_the_files_read_per_harness(world: World, capsys: pytest.CaptureFixture[str]) -> None:
    # By hand from the fixtures: Claude Code's three transcripts and the subagent file read with the first;
    # Codex's three rollouts, one a subagent thread read with its parent (no cycle of its own); one aider
    # history. Cycles as test_rows counts them.
    assert summary_of(world, capsys) == [
        "11 cycles (aider 3, claude-code 5, codex 3)",
        "files read: 8 (aider 1, claude-code 4, codex 3), of which without a cycle (codex 1)",
    ]


def test_it_tells_lines_skipped_and_names_withheld_but_no_path(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    project = world.roots.claude / "projects" / "-repos-app"
    transcript = project / "5b1f0c9e-2d4a-4c1e-9f3b-7a2e8d6c1b03.jsonl"
    lines = [json.loads(line) for line in transcript.read_text().splitlines()]
    # A session of the fixture's third one's shape whose model names a machine: its one cycle is withheld.
    own = [line | {"sessionId": "own-1", "uuid": f"own-{i}"} for i, line in enumerate(lines[1:6])]
    for line in own:
        if line["type"] == "assistant":
            line["message"] = line["message"] | {"model": "qwen3@dev-box", "id": line["message"]["id"] + "-own"}
            line["requestId"] += "-own"
    (project / "own-1.jsonl").write_text("".join(json.dumps(line) + "\n" for line in own))
    with transcript.open("a") as handle:
        handle.write(json.dumps(lines[1] | {"uuid": "odd-1", "message": "hello"}) + "\n")
    summary = summary_of(world, capsys)
    assert summary == [
        "11 cycles (aider 3, claude-code 5, codex 3); 1 withheld because a model name could identify something",
        "files read: 9 (aider 1, claude-code 5, codex 3), of which without a cycle (codex 1)",
        "lines skipped: 1",
        "  claude-code: 1 a message that is not an object",
        "names not sent (unknown to the public lists, or shaped like a private value; --allow-name NAME sends a"
        " public one): qwen3@dev-box",
    ]
    assert str(world.app.parent) not in "\n".join(summary)
