"""Codex rollouts people published (tests/data/codex, see its SOURCE.md) against values counted by hand."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pragmatikos_recorder import codex
from pragmatikos_recorder.cycles import cycle_facts
from pragmatikos_recorder.git_ship import ShipJudge
from pragmatikos_recorder.session import Event, Kind, Session

from tests.data.paths import DATA_DIR

CODEX_DATA = DATA_DIR / "codex"
ENVELOPED = "kvsankar-agent-history-session-01.jsonl"
PRE_ENVELOPE = "AcidicSoil-codex-session-viewer-example.jsonl"


def copied(name: str, tmp_path: Path) -> Path:
    """The rollout under a sessions folder of a temporary Codex home, outside any repository."""
    target = tmp_path / "sessions" / "2026" / "06" / "05" / f"rollout-{name}"
    target.parent.mkdir(parents=True)
    shutil.copyfile(CODEX_DATA / name, target)
    return target


def test_an_enveloped_rollout_is_read_with_the_model_of_its_turn_context(tmp_path: Path) -> None:
    reading = codex.read(copied(ENVELOPED, tmp_path))
    assert reading.skipped is None
    [session] = reading.sessions
    [cycle] = cycle_facts(session, ShipJudge(datetime(2030, 1, 1, tzinfo=UTC)))
    # One user_message (the developer and environment messages are Codex's own), one assistant message,
    # the model from turn_context ("gpt-5.5"), the version from session_meta (0.135.0). Latency: the
    # reply at 04:58:26.681 after the prompt at 04:58:23.506 = 3.175 s. Active time: the prompt to the
    # token count at 04:58:26.707 = 3.201 s. /tmp/agent-history-real-agent/… is no repository here.
    assert (cycle.model, cycle.prov, cycle.hversion) == ("gpt-5.5", "openai", "0.135.0")
    assert (cycle.u, cycle.a, cycle.tedits, cycle.role) == (1, 1, 0, 2)
    assert cycle.latmed == pytest.approx(3.175, abs=0.005)
    assert cycle.thrs == pytest.approx(3.201 / 3600, abs=5e-5)  # kept to 4 decimals of an hour


def test_a_rollout_that_names_no_model_is_skipped_saying_so(tmp_path: Path) -> None:
    # The published rollout with its one turn_context line left out (the test says so; the file is kept
    # as published): its step has no model, so the rollout is skipped, not withheld for privacy.
    lines = (CODEX_DATA / ENVELOPED).read_text(encoding="utf-8").splitlines(keepends=True)
    rollout = copied(ENVELOPED, tmp_path)
    rollout.write_text("".join(line for line in lines if json.loads(line)["type"] != "turn_context"))
    reading = codex.read(rollout)
    assert reading.sessions == []
    assert reading.skipped is not None
    assert (reading.skipped.path, reading.skipped.reason) == (rollout, codex.NO_MODEL)


def test_a_pre_envelope_rollout_is_skipped_saying_why(tmp_path: Path) -> None:
    # Header {id, timestamp, instructions, git}, then bare items: no model and no step times to read.
    rollout = copied(PRE_ENVELOPE, tmp_path)
    reading = codex.read(rollout)
    assert reading.sessions == []
    assert reading.skipped is not None
    assert (reading.skipped.path, reading.skipped.reason) == (rollout, codex.PRE_ENVELOPE)
    # Its header is no session_meta, so it is no subagent thread either.
    assert codex.index_subagents([rollout]).paths == frozenset()


CODE_MODE = "AkashJana18-edgerunner-code-mode.jsonl"
WINDOWS = "Krosss0001-rave-era-project-windows.jsonl"


def edits_of(session: Session) -> list[Event]:
    return [e for e in session.events if e.kind is Kind.EDIT]


def test_code_mode_edits_and_failed_edits_are_read_from_inside_exec_scripts(tmp_path: Path) -> None:
    [session] = codex.read(copied(CODE_MODE, tmp_path)).sessions
    # Counted by hand over the file's 138 lines: every tool call is an `exec` script. Twelve scripts call
    # `tools.apply_patch` and succeed, each followed by its `patch_apply_end` (lines 27, 58, 67, 72, 81, 86,
    # 95, 106, 113, 118, 123, 132, success true, call_id `exec-…`); the script of line 53 fails, its output
    # (line 54) "Script error:\napply_patch verification failed: Failed to find expected lines in …/server.rs".
    edits = edits_of(session)
    assert (len(edits), sum(e.failed for e in edits)) == (13, 1)
    # Line 27 deletes web/scripts/visual-check.mjs; line 72 names eight files in its `changes`.
    assert [p.name for p in edits[0].files] == ["visual-check.mjs"]
    assert len(edits[4].files) == 8
    [cycle] = cycle_facts(session, ShipJudge(datetime(2030, 1, 1, tzinfo=UTC)))
    # One prompt (line 8). The last edit is line 132; the script of line 136 then runs
    # `cargo fmt --all -- --check && cargo clippy --workspace --all-targets -- -D warnings`: verified.
    assert (cycle.u, cycle.tedits, cycle.teerr, cycle.tver, cycle.hversion) == (1, 13, 1, 1, "0.144.1")


def test_a_windows_build_after_the_last_edit_verifies_and_a_patch_end_repeats_no_edit(tmp_path: Path) -> None:
    [session] = codex.read(copied(WINDOWS, tmp_path)).sessions
    # Two `apply_patch` custom tool calls (lines 26 and 34), each followed by a `patch_apply_end` with the same
    # call_id (lines 28 and 35): two edits, not four. Then `shell_command` "npm.cmd run build" (line 40).
    [cycle] = cycle_facts(session, ShipJudge(datetime(2030, 1, 1, tzinfo=UTC)))
    assert (cycle.u, cycle.tedits, cycle.teerr, cycle.tver) == (1, 2, 0, 1)


@pytest.mark.parametrize(
    ("name", "spent"),
    [
        # Counted by hand from the file's seven token_count lines (6, 14, 27, 31, 36, 41, 46), each one request's
        # usage in its last_token_usage: input 116,618 + 116,416 + 117,837 + 118,214 + 118,567 + 118,786 + 119,300;
        # output 300 + 524 + 317 + 61 + 172 + 96 + 229; cached 116,096 + 11,648 + 115,584 + 117,120 + 117,632
        # + 118,144 + 118,144. Its first running total, 4,543,240 input tokens, holds the turns before the lines kept.
        (WINDOWS, (825_738, 1_699, 714_368)),
        # Twenty-six counts (lines 14 to 138): the first's own usage (233,975 / 402 / 233,216) plus the growth of
        # the totals from 16,766,591 / 69,269 / 15,840,000 to 22,882,872 / 83,570 / 21,919,232.
        (CODE_MODE, (6_350_256, 14_703, 6_312_448)),
    ],
)
def test_a_rollout_whose_totals_start_mid_session_counts_only_its_own_tokens(
    name: str, spent: tuple[int, int, int], tmp_path: Path
) -> None:
    [session] = codex.read(copied(name, tmp_path)).sessions

    read = [e.tokens for e in session.events if e.kind is Kind.TOKENS and e.tokens is not None]

    assert tuple(sum(getattr(t, field) for t in read) for field in ("input", "output", "cache_read")) == spent
