"""Codex code mode's odd cases, on crafted rollouts (the real one is read in test_codex_logs.py).

Every line here is crafted in the shapes of the real 0.144 rollout kept in tests/data/codex: an `exec`
custom tool call holding a script, `patch_apply_end` events with `exec-…` call ids, script outputs as
lists of `input_text` items, and `wait` calls that take up a script that yielded.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pragmatikos_recorder import codex
from pragmatikos_recorder.codex_scripts import script_calls
from pragmatikos_recorder.cycles import Cycle, cycle_facts
from pragmatikos_recorder.git_ship import ShipJudge

PATCH = "*** Begin Patch\\n*** Update File: src/a.rs\\n@@\\n-a\\n+b\\n*** End Patch\\n"


def line(second: int, kind: str, payload: dict[str, Any]) -> str:
    return json.dumps({"timestamp": f"2026-07-10T18:00:{second:02d}.000Z", "type": kind, "payload": payload}) + "\n"


def script(second: int, call_id: str, source: str) -> str:
    return line(
        second, "response_item", {"type": "custom_tool_call", "call_id": call_id, "name": "exec", "input": source}
    )


def output(second: int, call_id: str, text: str, kind: str = "custom_tool_call_output") -> str:
    return line(
        second, "response_item", {"type": kind, "call_id": call_id, "output": [{"type": "input_text", "text": text}]}
    )


def patch_end(second: int, success: bool = True, status: str = "completed") -> str:
    changes = {"/w/src/a.rs": {"type": "update", "unified_diff": "@@\n-a\n+b\n", "move_path": None}}
    payload = {"type": "patch_apply_end", "call_id": f"exec-{second}", "success": success, "status": status}
    return line(second, "event_msg", payload | {"changes": changes})


def cycle_of(tmp_path: Path, *lines: str) -> Cycle:
    rollout = tmp_path / "sessions" / "2026" / "07" / "10" / "rollout-crafted.jsonl"
    rollout.parent.mkdir(parents=True)
    head = [
        line(0, "session_meta", {"id": "s", "cwd": "/w", "cli_version": "0.144.1", "model_provider": "openai"}),
        line(0, "turn_context", {"model": "gpt-5.6-sol", "effort": "high", "cwd": "/w"}),
        line(1, "event_msg", {"type": "user_message", "message": "fix it"}),
    ]
    rollout.write_text("".join(head + list(lines)))
    [session] = codex.read(rollout).sessions
    [cycle] = cycle_facts(session, ShipJudge(datetime(2030, 1, 1, tzinfo=UTC)))
    return cycle


def test_a_test_run_after_the_patch_in_the_same_script_verifies_even_when_the_script_yields(tmp_path: Path) -> None:
    source = f'await tools.apply_patch("{PATCH}");\nconst r = await tools.exec_command({{"cmd":"cargo test"}});'
    cycle = cycle_of(
        tmp_path,
        script(2, "c1", source),
        patch_end(3),
        output(13, "c1", "Script running with cell ID 7\nWall time 10.0 seconds\nOutput:\n"),
        line(14, "response_item", {"type": "function_call", "name": "wait", "call_id": "w1",
                                   "arguments": '{"cell_id":"7","yield_time_ms":30000}'}),
        output(20, "w1", "Script completed\nWall time 6.0 seconds\nOutput:\ntest result: ok", "function_call_output"),
    )  # fmt: skip
    assert (cycle.tedits, cycle.teerr, cycle.tver) == (1, 0, 1)


def test_a_test_run_before_the_patch_in_the_same_script_does_not_verify_it(tmp_path: Path) -> None:
    source = f'await tools.exec_command({{cmd: "cargo test"}});\nawait tools.apply_patch("{PATCH}");'
    cycle = cycle_of(tmp_path, script(2, "c1", source), patch_end(3), output(4, "c1", "Script completed\n"))
    assert (cycle.tedits, cycle.tver) == (1, 0)


def test_a_patch_that_fails_verification_or_application_is_a_failed_edit(tmp_path: Path) -> None:
    failed = "Script failed\nWall time 0.1 seconds\nOutput:\nScript error:\napply_patch verification failed: Failed"
    cycle = cycle_of(
        tmp_path,
        script(2, "c1", f'await tools.apply_patch("{PATCH}");'),
        output(3, "c1", failed),
        script(4, "c2", f'await tools.apply_patch("{PATCH}");'),
        patch_end(5, success=False, status="failed"),
        output(6, "c2", "Script failed\n"),
    )
    assert (cycle.tedits, cycle.teerr) == (2, 2)


def test_a_script_that_reads_a_file_holding_the_failure_text_has_no_failed_edit(tmp_path: Path) -> None:
    source = 'text((await tools.exec_command({cmd: "rg \\"apply_patch verification failed\\" logs"})).output);'
    said = "Script completed\nOutput:\nlogs/x: apply_patch verification failed"
    assert cycle_of(tmp_path, script(2, "c1", source), output(3, "c1", said)).tedits == 0


def test_a_commit_made_by_a_completed_script_ends_the_cycle(tmp_path: Path) -> None:
    commit = 'await tools.exec_command({"cmd":"git commit -am \\"fix\\""});'
    rollout_lines = [script(2, "c1", f'await tools.apply_patch("{PATCH}");\n{commit}'), patch_end(3)]
    rollout_lines += [output(4, "c1", "Script completed\n"), line(9, "event_msg", {"type": "user_message"})]
    rollout_lines += [line(10, "response_item", {"type": "message", "role": "assistant", "content": []})]
    rollout = tmp_path / "sessions" / "rollout-commit.jsonl"
    rollout.parent.mkdir(parents=True)
    head = [
        line(0, "session_meta", {"id": "s", "cwd": "/w", "cli_version": "0.144.1"}),
        line(0, "turn_context", {"model": "gpt-5.6-sol", "cwd": "/w"}),
        line(1, "event_msg", {"type": "user_message", "message": "fix it"}),
        line(1, "response_item", {"type": "reasoning", "summary": []}),
    ]
    rollout.write_text("".join(head + rollout_lines))
    [session] = codex.read(rollout).sessions
    cycles = cycle_facts(session, ShipJudge(datetime(2030, 1, 1, tzinfo=UTC)))
    assert [(c.u, c.tedits) for c in cycles] == [(1, 1), (1, 0)]


@pytest.mark.parametrize(
    ("source", "commands"),
    [
        ('await tools.exec_command({"cmd":"npm test","workdir":"/w"})', ["npm test"]),
        ("await tools.exec_command({workdir: '/w', cmd: 'it\\'s \\u0041'})", ["it's A"]),
        ("await tools.exec_command({cmd: `make\\tcheck`})", ["make\tcheck"]),
        ("await tools.exec_command({cmd: `make ${target}`})", []),  # interpolated: not in the text
        ("const a = {cmd: 'make'}; await tools.exec_command(a)", []),  # a variable: not read
        ('await tools.exec_command({"cmd":"unclosed', []),
    ],
)
def test_a_scripts_commands_are_read_from_its_string_literals(source: str, commands: list[str]) -> None:
    assert list(script_calls(source).commands_before_last_patch) == commands


def test_a_declined_patch_is_a_rejected_edit_not_a_failed_one(tmp_path: Path) -> None:
    cycle = cycle_of(
        tmp_path,
        script(2, "c1", f'await tools.apply_patch("{PATCH}");'),
        patch_end(3, success=False, status="declined"),
        output(4, "c1", "Script failed\n"),
    )
    assert (cycle.tedits, cycle.teerr, cycle.tabort) == (1, 0, 1)
