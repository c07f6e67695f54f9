"""Real, published Claude Code transcripts (tests/data/claude-code, see its SOURCE.md) read into cycles.

Every expected value was counted by hand from the lines of the file, as each comment says. Line
numbers are those of the files as kept in tests/data.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from pragmatikos_recorder import claude_code
from pragmatikos_recorder.cycles import Cycle, cycle_facts
from pragmatikos_recorder.git_ship import ShipJudge
from pragmatikos_recorder.session import Event, Kind, Session

from tests.data.paths import CLAUDE_CODE_DIR

SPOTTER = CLAUDE_CODE_DIR / "marot-spotter"
VIEWER = CLAUDE_CODE_DIR / "claude-code-viewer"
BHAVANA = CLAUDE_CODE_DIR / "ikihin-bhavana" / "claude-session.jsonl"


def session_of(path: Path) -> Session:
    [session] = claude_code.parse(path)
    return session


def cycles_of(path: Path) -> list[Cycle]:
    return cycle_facts(session_of(path), ShipJudge(now=datetime(2026, 3, 1, tzinfo=UTC)))


def prompt_times(session: Session) -> list[str]:
    return [e.ts.isoformat(timespec="milliseconds") for e in session.events if e.kind is Kind.PROMPT and e.ts]


def main_steps(session: Session) -> list[Event]:
    return [e for e in session.events if e.kind is Kind.STEP and not e.subagent]


def test_a_task_notification_is_no_prompt_and_starts_no_cycle_after_a_commit() -> None:
    path = SPOTTER / "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"
    # User lines that are not tool results: line 3 (the typed task, 21:41:44.800) and line 48, the
    # `<task-notification>` of a background command, written after the commit (`git commit` in the
    # Bash call of line 28 or later, its result a success). One typed prompt, so one cycle.
    assert prompt_times(session_of(path)) == ["2026-02-11T21:41:44.800+00:00"]
    [cycle] = cycles_of(path)
    assert cycle.u == 1


def test_prompts_typed_while_the_agent_works_count_once_each() -> None:
    path = SPOTTER / "258c7280-ae70-4798-800f-63464d01a85d.jsonl"
    session = session_of(path)
    # No user line here is typed: line 8 is an interruption, line 9 a `<task-notification>`, the rest tool
    # results. Typed while the agent worked: "check again" (enqueue line 10, remove line 14, 20:51:19.419) and
    # "new beads for the epic were added. tackle them" (enqueue 41, remove 42, 20:56:15.446); neither is
    # written as a user line (upstream, only the later compaction summary quotes them). Between them a task
    # notification is queued (line 20) and not taken by either contentless `remove`.
    assert prompt_times(session) == ["2026-02-11T20:51:19.419+00:00", "2026-02-11T20:56:15.446+00:00"]
    # The commit (line 40, its result at 20:56:15.177) ends cycle 0; the second prompt starts cycle 1.
    # Steps (distinct message ids): UYQGtt pygSs6 vd1zPk JFLW3t KCM4y7 yrWZBD VUY7Cg jokj5u vStC51 UGtFeZ
    # b9vRsQ before it (11), kCN82s FbYn8B after (2).
    assert [(c.u, c.a) for c in cycles_of(path)] == [(1, 11), (1, 2)]


def test_a_queued_and_a_local_slash_command_are_no_prompts() -> None:
    path = SPOTTER / "tool_heavy.jsonl"
    # Typed prompts: line 4 "start phoenix in background" (22:57:54.684) and line 26 "scrolling back in
    # xterm.js…" (22:59:22.893). `/mcp` was queued (lines 9-10) and then run by Claude Code itself: its
    # `<command-name>` line (21) is answered by `<local-command-stdout>` (22), no model step between.
    assert prompt_times(session_of(path)) == ["2026-02-10T22:57:54.684+00:00", "2026-02-10T22:59:22.893+00:00"]
    [cycle] = cycles_of(path)
    assert (cycle.u, cycle.tabort) == (2, 1)  # lines 18 and 39: "[Request interrupted by user]"


def test_a_slash_command_is_one_prompt() -> None:
    # Line 1: `<command-message>init is analyzing your codebase…</command-message><command-name>/init…`, then its
    # expansion (line 2, isMeta) and the model's steps; no other user line is typed (all others are tool results).
    [init] = cycles_of(VIEWER / "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl")
    assert init.u == 1


def test_a_subagents_task_prompt_is_not_the_persons() -> None:
    path = VIEWER / "5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"
    # Line 1 is `/orchestrator` with arguments (one prompt), line 2 its isMeta expansion. Lines 16 and 26 are
    # the Task prompts Claude Code gave two subagents, written into this file with isSidechain: not typed.
    assert prompt_times(session_of(path)) == ["2025-09-07T09:52:03.071+00:00"]
    [cycle] = cycles_of(path)
    assert cycle.u == 1


def test_one_hour_cache_writes_are_priced_at_the_one_hour_rate() -> None:
    # The four steps of tool_heavy.jsonl (claude-opus-4-6: $5 in, $25 out, $0.50 cache read, $10 for a
    # 1-hour cache write per million), each writing only to the 1-hour cache (ephemeral_5m 0):
    #   msg_0167…  in 3,  write 7883, read 17915, out 27   -> 15 + 78830 + 8957.5 + 675  = 88477.5
    #   msg_01NU…  in 1,  write 208,  read 25798, out 1    ->  5 +  2080 + 12899  + 25   = 15009
    #   msg_01Lb…  in 3,  write 8490, read 18014, out 11   -> 15 + 84900 + 9007   + 275  = 94197
    #   msg_019B…  in 47, write 1115, read 26504, out 173  -> 235 + 11150 + 13252 + 4325 = 28962
    # (millionths of a dollar; msg_019B's output count on its last line, 173 on line 37, is the step's). At the
    # 5-minute rate ($6.25) it would be 0.1603.
    [cycle] = cycles_of(SPOTTER / "tool_heavy.jsonl")
    assert cycle.tcost == pytest.approx(0.2266455, abs=5e-5)


def test_the_agent_entering_plan_mode_plans_and_its_plan_file_is_no_edit() -> None:
    path = SPOTTER / "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"
    session = session_of(path)
    # EnterPlanMode (line 13) is accepted at line 14; ExitPlanMode (line 20) approved at line 21. Between them,
    # two steps: PzANRQ (lines 15-17) and E9oD5Z (line 20). Before: F1Hkdb RXukgF CuPDWr BBYa62; after:
    # DQVLeR TU7uPA m8NwyM XmQJh4 QLTE9t dskqWr 3CcKQv Zqx4fg veJJcx fTPPwm XjqwTn psSjVN.
    phases = [s.phase for s in main_steps(session)]
    assert phases == ["build"] * 4 + ["plan"] * 2 + ["build"] * 12
    # The four steps before it only looked around (Bash bd show, Grep, Read): no edit, so planning after
    # them starts no new cycle; the one commit comes after the build.
    [cycle] = cycles_of(path)
    # Write /home/USER/.claude/plans/drifting-tumbling-whisper.md (line 17) is the plan, not a project file;
    # Write …/lib/spotter/services/transcript_renderer… (line 26) is the one edit.
    assert (cycle.a, cycle.tedits, cycle.pm, cycle.bm) == (18, 1, "claude-opus-4.6", "claude-opus-4.6")


def test_parallel_tool_calls_split_by_their_results_are_one_step_counted_once() -> None:
    # Claude Code 2.1.177 through Bedrock (message ids `msg_bdrk_…`, no requestId on any line). Assistant lines
    # of the main chain by message id (lines 1-94): puX94Y (9, 11), yjHRRP (14, 15), GYtuWm (23, 24), 8gvKCJ
    # (26, 27, 29, 31), 9QtaqX (33, 35, 37), cCiQN4 (40, 41), g7ZceG (43-46), 1W8gUt (54-57), 9dFrhv (64), BhXe68
    # (69, 70), SxLMwR (72, 74, 76), ZMX7vv (82), 5j9GDu (84-86), tcmfUz (92): 14 messages. In 8gvKCJ, 9QtaqX and
    # SxLMwR each further tool_use line follows the tool_result of the one before (lines 28, 30, 34, 36, 73,
    # 75), and every line of one id repeats the same usage: one response each, not three or two.
    session = session_of(BHAVANA)
    assert len(main_steps(session)) == 14
    [cycle] = cycles_of(BHAVANA)
    assert (cycle.u, cycle.a) == (3, 14)
    # Counted once, the three messages cost (claude-opus-4-6: $5 in, $25 out, $0.50 cache read, $6.25 per
    # million written to the 5-minute cache), in millionths of a dollar:
    #   8gvKCJ in 1, write 340,  read 26827, out 232 -> 5 + 2125     + 13413.5 + 5800 = 21343.5
    #   9QtaqX in 1, write 2149, read 27167, out 360 -> 5 + 13431.25 + 13583.5 + 9000 = 36019.75
    #   SxLMwR in 1, write 391,  read 35104, out 228 -> 5 + 2443.75  + 17552   + 5700 = 25700.75
    # Counting their extra lines as steps added 2 x 83064 = 0.166128 to the cycle's 0.6647 (0.8308).
    assert cycle.tcost == pytest.approx(0.6647, abs=5e-5)
