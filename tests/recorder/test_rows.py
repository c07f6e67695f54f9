"""Every field of every fixture cycle against values worked out by hand from the logs and the git history.

Prices used by hand (per million tokens, the vendors' list prices): claude-opus-4.5 $5 in, $25 out,
$6.25 cache write; claude-sonnet-4.5 and claude-sonnet-4 $3 in, $15 out, $0.30 cache read;
claude-haiku-4.5 $1 in, $5 out; gpt-5-codex $1.25 in, $0.125 cached in, $10 out.
"""

from __future__ import annotations

import json
import os
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from pragmatikos_recorder import claude_code
from pragmatikos_recorder.cycles import cut, cycle_facts
from pragmatikos_recorder.envelope import COLUMNS, to_rows
from pragmatikos_recorder.git_ship import ShipJudge
from pragmatikos_recorder.scan import scan_logs
from pragmatikos_recorder.session import Event, Kind, Session, Tokens

from tests.recorder.conftest import NOW, World

SECRET = b"\x01" * 32


def hand_worked(harness: str, hversion: str, *, prov: str, **facts: Any) -> dict[str, Any]:
    """A row worked out by hand, every column but the key: a builder's cycle without effort names unless `facts`
    say otherwise, the planner and builder it names served by `prov`."""
    row = {"role": 2, "pm": "", "bm": "", "variant": "", "pv": "", "bv": "", **facts}
    row |= {"prov": prov, "pp": prov if row["pm"] else "", "bp": prov if row["bm"] else ""}
    row |= {"harness": harness, "hversion": hversion}
    assert set(row) == set(COLUMNS) - {"cycle_key"}, set(row) ^ (set(COLUMNS) - {"cycle_key"})
    return row


claude_code_row = partial(hand_worked, "claude-code", prov="anthropic")
codex_row = partial(hand_worked, "codex", prov="openai")
aider_row = partial(hand_worked, "aider", "0.86.1")

CLAUDE_CODE = [
    # Session 1, cycle 0: plan (opus) -> ExitPlanMode accepted -> build (sonnet) -> commit.
    # a: 1 opus message (two lines, one message id) + 6 sonnet; the subagent's 2 haiku steps are not the agent's.
    # tedits: Edit app.py, Edit util.py (failed: "String to replace not found"), the subagent's Write util.py.
    # tcost: opus 100*5 + 1000*6.25 + 200*25 = 0.01175; sonnet 6 * (50*3 + 2000*0.3 + 100*15) = 0.0135;
    #        haiku 2 * (20*1 + 50*5) = 0.00054; total 0.02579.
    # thrs: 10:00:00 -> 10:03:00, no gap over 10 min: 0.05 h. latmed: 20, 10, 18, 9, 15, 10, 8 s -> median 10.
    # tver: pytest at 10:02:20 after the last edit (10:01:50). tship: the session's commit touches both files.
    claude_code_row("2.0.30", day="2025-03-10", model="claude-sonnet-4.5", pm="claude-opus-4.5", bm="claude-sonnet-4.5",
                    u=1, a=7, tedits=3, tpaths=1, teerr=1, tcost=0.02579, tship=1, thrs=0.05, tver=1, tabort=0,
                    latmed=10.0, tshipe=0),
    # Session 1, cycle 1: starts at the first prompt after the commit. A rejected edit of README.md (an edit
    # call, not an error) and "[Request interrupted by user…]" -> tabort. notes.txt lands in the user's commit of
    # 14 March. tcost 3 * (50*3 + 1500*0.3 + 333*15) = 0.016785. thrs 10:30:00 -> 10:31:20 = 80 s.
    claude_code_row("2.0.30", day="2025-03-10", model="claude-sonnet-4.5", bm="claude-sonnet-4.5",
                    u=2, a=3, tedits=2, tpaths=1, teerr=0, tcost=0.016785, tship=1, thrs=80 / 3600, tver=0, tabort=1,
                    latmed=10.0, tshipe=0),
    # Session 2, cycle 0: build only; app.py is touched later only by someone else's commit -> not shipped,
    # and on 21 March the window (to 25 March) is still open -> pending. latmed (30 + 9) / 2.
    claude_code_row("2.0.31", day="2025-03-18", model="claude-opus-4.5", bm="claude-opus-4.5",
                    u=1, a=2, tedits=1, tpaths=1, teerr=0, tcost=0.0006, tship=0, thrs=40 / 3600, tver=0, tabort=0,
                    latmed=19.5, tshipe=1),
    # Session 2, cycle 1: a return to plan mode after building (a `permission-mode` line) starts a new cycle;
    # it only plans (role 1).
    # thrs: 09:10:00 -> 09:20:20, the 9.5-minute pause counted whole: 620 s.
    claude_code_row("2.0.31", day="2025-03-18", model="claude-opus-4.5", role=1, pm="claude-opus-4.5",
                    u=2, a=2, tedits=0, tpaths=0, teerr=0, tcost=0.0006, tship=0, thrs=620 / 3600, tver=0, tabort=0,
                    latmed=25.0, tshipe=1),
    # Session 3: outside any repository -> tpaths 0, tshipe 2. The /clear command, its output and the
    # <synthetic> error message are neither prompts nor steps. tcost (1000*3 + 1000*15) + 1000*3.
    claude_code_row("2.0.31", day="2025-03-18", model="claude-sonnet-4", bm="claude-sonnet-4",
                    u=1, a=2, tedits=1, tpaths=0, teerr=0, tcost=0.021, tship=0, thrs=30 / 3600, tver=1, tabort=0,
                    latmed=9.5, tshipe=2),
]  # fmt: skip

CODEX = [
    # Cycle 0: steps at 08:00:10, :20, :30, :40, 08:01:00, :10 (each a run of output items after an input):
    # latencies 8, 8, 9, 9, 10, 8 -> 8.5. Two apply_patch calls, the second failing (exit code 1).
    # cargo test after the last edit; `git commit` ends the cycle and touches src/lib.rs -> shipped.
    # Tokens: totals grow to 8000 in (5000 cached), 600 out: 3000*1.25 + 5000*0.125 + 600*10 = 0.010375.
    # thrs: the prompt at 08:00:02 to the last token count at 08:01:10.5.
    codex_row("0.46.0", day="2025-03-11", model="gpt-5-codex", bm="gpt-5-codex",
              u=1, a=6, tedits=2, tpaths=1, teerr=1, tcost=0.010375, tship=1, thrs=68.5 / 3600, tver=1, tabort=0,
              latmed=8.5, tshipe=0, variant="high", pv="", bv="high"),
    # Cycle 1: turn_aborted; a new file never committed; effort medium from its turn_context, while the
    # session's model ran mostly at high. Tokens +3000 in (+1000 cached), +200 out: 0.004625.
    codex_row("0.46.0", day="2025-03-11", model="gpt-5-codex", bm="gpt-5-codex",
              u=2, a=3, tedits=1, tpaths=1, teerr=0, tcost=0.004625, tship=0, thrs=80.5 / 3600, tver=0, tabort=1,
              latmed=10.0, tshipe=0, variant="high", pv="", bv="medium"),
    # Session 2 (a later version): a turn in plan collaboration mode (gpt-5, effort from the mode's settings),
    # then a default turn (gpt-5-codex, low) that spawns a subagent thread (its own rollout file): its patch
    # counts as an edit, its steps and its task message do not count as steps or prompts. `exec_command` output
    # in plain text, "Process exited with code 0"; cargo clippy after the subagent's edit. The session's model is
    # the builder's (3 steps against 1). Tokens: gpt-5 2000*1.25 + 400*10 = 0.0065; gpt-5-codex
    # 1000*1.25 + 2000*0.125 + 300*10 = 0.0045; the subagent's gpt-5-mini 1000*0.25 + 100*2 = 0.00045.
    # Nothing committed and on 21 March the window is open: pending.
    codex_row("0.66.0", day="2025-03-19", model="gpt-5-codex", pm="gpt-5", bm="gpt-5-codex",
              u=2, a=4, tedits=2, tpaths=1, teerr=0, tcost=0.01145, tship=0, thrs=99.5 / 3600, tver=1, tabort=0,
              latmed=10.0, tshipe=1, variant="low", pv="high", bv="low"),
]  # fmt: skip

AIDER = [
    # Session 1, cycle 0: architect (sonnet 4) plans, the plan handed to the editor (haiku 3.5) is not a prompt;
    # the edit is committed by aider ("Dev (aider)", the user's e-mail) -> shipped. /run pytest after the edit.
    # Costs from the log: 0.01 + 0.002. No times per message: thrs 0, latmed -1.
    aider_row(prov="anthropic", day="2025-03-12", model="claude-sonnet-4", pm="claude-sonnet-4", bm="claude-3.5-haiku",
              u=1, a=2, tedits=1, tpaths=1, teerr=0, tcost=0.012, tship=1, thrs=0.0, tver=1, tabort=0,
              latmed=-1.0, tshipe=0),
    # Session 1, cycle 1: a plan turned down ("Edit the files? n") -> tabort; a second plan, accepted; one
    # block applied, one failed to match. 0.02 + 0.005 + 0.001.
    aider_row(prov="anthropic", day="2025-03-12", model="claude-sonnet-4", pm="claude-sonnet-4", bm="claude-3.5-haiku",
              u=2, a=3, tedits=2, tpaths=1, teerr=1, tcost=0.026, tship=0, thrs=0.0, tver=0, tabort=1,
              latmed=-1.0, tshipe=0),
    # Session 2: not architect, so no planner; "reasoning high"; interrupted with ^C before its second reply.
    aider_row(prov="openai", day="2025-03-13", model="o3-mini", bm="o3-mini",
              u=2, a=1, tedits=0, tpaths=0, teerr=0, tcost=0.0015, tship=0, thrs=0.0, tver=0, tabort=1,
              latmed=-1.0, tshipe=0, variant="high", pv="", bv="high"),
]  # fmt: skip


def rows_of(world: World, harness: str) -> list[dict[str, Any]]:
    built = to_rows(scan_logs((harness,), world.roots, now=NOW, progress=False).cycles, SECRET)
    assert built.withheld == 0
    return [dict(zip(COLUMNS, row, strict=True)) for row in built.rows]


def assert_rows(actual: list[dict[str, Any]], expected: list[dict[str, Any]]) -> None:
    assert len(actual) == len(expected)
    for index, (got, want) in enumerate(zip(actual, expected, strict=True)):
        for column, value in want.items():
            if column in ("tcost", "thrs"):  # sent to 4 decimals
                assert got[column] == pytest.approx(value, abs=5e-5), (index, column)
            else:
                assert got[column] == value, (index, column)
                assert type(got[column]) is type(value), (index, column)


def test_it_reads_claude_code_sessions_into_hand_worked_rows(world: World) -> None:
    assert_rows(rows_of(world, "claude-code"), CLAUDE_CODE)


def test_it_reads_codex_rollouts_into_hand_worked_rows(world: World) -> None:
    assert_rows(rows_of(world, "codex"), CODEX)


def test_it_reads_aider_histories_into_hand_worked_rows(world: World) -> None:
    assert_rows(rows_of(world, "aider"), AIDER)


def test_it_keeps_cycle_keys_stable_across_scans_and_distinct_between_cycles(world: World) -> None:
    first = [row["cycle_key"] for harness in ("claude-code", "codex", "aider") for row in rows_of(world, harness)]
    again = [row["cycle_key"] for harness in ("claude-code", "codex", "aider") for row in rows_of(world, harness)]
    assert first == again
    assert len(set(first)) == len(first) == 11
    other_secret = to_rows(scan_logs(("codex",), world.roots, now=NOW, progress=False).cycles, b"\x02" * 32).rows
    assert {row[0] for row in other_secret}.isdisjoint(first)


def test_it_judges_a_window_closed_once_seven_days_have_passed(world: World) -> None:
    later = NOW.replace(day=31)
    rows = to_rows(scan_logs(("claude-code",), world.roots, now=later, progress=False).cycles, SECRET).rows
    ship_status = [(row[COLUMNS.index("tship")], row[COLUMNS.index("tshipe")]) for row in rows]
    assert ship_status == [(1, 0), (1, 0), (0, 0), (0, 0), (0, 2)]


def test_it_only_counts_sessions_active_within_since_days(world: World) -> None:
    # On 21 March, 5 days back reaches Claude Code's sessions 2 and 3 (18 March) and Codex's session 2 (19 March).
    recent = scan_logs(("claude-code", "codex"), world.roots, since_days=5, now=NOW, progress=False).cycles
    assert sorted({c.start.date().isoformat() for c in recent}) == ["2025-03-18", "2025-03-19"]
    assert len(recent) == 4


def step(model: str, tokens: Tokens) -> Event:
    return Event(Kind.STEP, NOW, model=model, provider="anthropic", tokens=tokens)


def test_it_prices_nothing_when_a_model_is_not_on_the_price_list() -> None:
    known = step("claude-sonnet-4-20250514", Tokens(input=1_000_000))
    unknown = step("claude-experimental-zz9", Tokens(input=1_000_000))
    priced = Session("claude-code", "s", "2.0.0", [Event(Kind.PROMPT, NOW), known])
    mixed = Session("claude-code", "s", "2.0.0", [Event(Kind.PROMPT, NOW), known, unknown])
    judge = ShipJudge(NOW)
    assert cycle_facts(priced, judge)[0].tcost == pytest.approx(3.0)
    assert cycle_facts(mixed, judge)[0].tcost == 0.0
    assert len(cut(mixed)) == 1


def test_it_reads_subagents_kept_beside_the_session_by_older_versions(world: World) -> None:
    project = world.roots.claude / "projects" / "-repos-app"
    nested = project / "5b1f0c9e-2d4a-4c1e-9f3b-7a2e8d6c1b01" / "subagents" / "agent-a1b2c3d.jsonl"
    nested.rename(project / "agent-a1b2c3d.jsonl")
    first = rows_of(world, "claude-code")[0]
    # The subagent's Write and its two haiku steps' cost still count; the file is not a session of its own.
    assert (first["tedits"], first["a"]) == (3, 7)
    assert first["tcost"] == pytest.approx(0.02579, abs=5e-5)
    assert len(rows_of(world, "claude-code")) == 5


def test_it_finds_aider_files_relative_to_the_repository_top_level(world: World) -> None:
    history = world.cli / ".aider.chat.history.md"
    (world.cli / "sub").mkdir()
    history.rename(world.cli / "sub" / ".aider.chat.history.md")
    assert_rows(rows_of(world, "aider"), AIDER)


def test_it_counts_once_what_a_resumed_session_copies_from_the_one_it_resumes(world: World) -> None:
    project = world.roots.claude / "projects" / "-repos-app"
    original = project / "5b1f0c9e-2d4a-4c1e-9f3b-7a2e8d6c1b01.jsonl"
    resumed_id = "5b1f0c9e-2d4a-4c1e-9f3b-7a2e8d6c1b09"
    copied = [json.loads(line) | {"sessionId": resumed_id} for line in original.read_text().splitlines()]
    base = {"isSidechain": False, "userType": "external", "cwd": str(world.app), "sessionId": resumed_id}
    new = [
        base | {"type": "user", "uuid": "r-1", "timestamp": "2025-03-10T11:00:00.000Z",
                "message": {"role": "user", "content": "Thanks, anything else?"}},
        base | {"type": "assistant", "uuid": "r-2", "timestamp": "2025-03-10T11:00:10.000Z", "requestId": "req_r",
                "message": {"id": "msg_r", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
                            "content": [{"type": "text", "text": "No."}],
                            "usage": {"input_tokens": 10, "output_tokens": 10}}},
    ]  # fmt: skip
    resumed = project / f"{resumed_id}.jsonl"
    resumed.write_text("".join(json.dumps(entry) + "\n" for entry in copied + new))
    later = original.stat().st_mtime + 3600
    os.utime(resumed, (later, later))
    rows = rows_of(world, "claude-code")
    assert_rows(rows[:5], CLAUDE_CODE)
    # Only what the resumed file added: 10 s from prompt to step, 10*3 + 10*15 per million.
    assert_rows(
        rows[5:],
        [claude_code_row("", day="2025-03-10", model="claude-sonnet-4.5", bm="claude-sonnet-4.5",
                         u=1, a=1, tedits=0, tpaths=0, teerr=0, tcost=0.00018, tship=0, thrs=10 / 3600, tver=0,
                         tabort=0, latmed=10.0, tshipe=0)],
    )  # fmt: skip


def test_it_tells_messages_apart_behind_a_gateway_that_reuses_one_message_id(tmp_path: Path) -> None:
    def line(kind: str, second: int, **fields: Any) -> str:
        entry = {"type": kind, "sessionId": "g", "timestamp": f"2025-03-10T10:00:{second:02d}.000Z", **fields}
        return json.dumps(entry) + "\n"

    def reply(second: int, block: dict[str, Any]) -> str:
        message = {"id": "ocgo", "model": "kimi-k2", "content": [block], "usage": {"output_tokens": 5}}
        return line("assistant", second, message=message)

    session = tmp_path / "g.jsonl"
    session.write_text(
        line("user", 0, message={"content": "list the files"})
        + reply(5, {"type": "text", "text": "Listing."})
        + reply(5, {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}})
        + line("user", 6, message={"content": [{"type": "tool_result", "tool_use_id": "t1", "content": "a"}]})
        + reply(9, {"type": "text", "text": "One file."})
    )
    [parsed] = claude_code.parse(session)
    assert [e.latency for e in parsed.events if e.kind is Kind.STEP] == [5.0, 3.0]


def crafted_claude_session(tmp_path: Path, *replies: tuple[int, dict[str, Any], dict[str, Any]]) -> list[Event]:
    """Steps of a crafted session: a prompt, then (second, content block, usage) replies of message "m1" with no
    requestId, a tool result written after each tool_use block."""
    lines = [{"type": "user", "sessionId": "g", "timestamp": "2025-03-10T10:00:00.000Z",
              "message": {"content": "list the files"}}]  # fmt: skip
    for second, block, usage in replies:
        message = {"id": "m1", "model": "claude-sonnet-4-5", "content": [block], "usage": usage}
        stamp = f"2025-03-10T10:00:{second:02d}.000Z"
        lines.append({"type": "assistant", "sessionId": "g", "timestamp": stamp, "message": message})
        if block["type"] == "tool_use":
            result = {"type": "tool_result", "tool_use_id": block["id"], "content": "a"}
            lines.append({"type": "user", "sessionId": "g", "timestamp": stamp, "message": {"content": [result]}})
    session = tmp_path / "g.jsonl"
    session.write_text("".join(json.dumps(line) + "\n" for line in lines))
    [parsed] = claude_code.parse(session)
    return [e for e in parsed.events if e.kind is Kind.STEP]


def test_a_message_counts_the_usage_of_its_last_line(tmp_path: Path) -> None:
    # As a gateway model (glm-5) wrote it in a published transcript: the first line's input count is an
    # estimate, the later lines carry the final counts. Crafted from that shape.
    steps = crafted_claude_session(
        tmp_path,
        (1, {"type": "thinking", "thinking": ""}, {"input_tokens": 27693, "output_tokens": 0}),
        (1, {"type": "text", "text": "Listing."}, {"input_tokens": 26158, "output_tokens": 116}),
    )
    assert [s.tokens for s in steps] == [Tokens(input=26158, output=116)]


def test_further_tool_calls_of_a_request_after_a_result_are_its_step_and_a_new_request_is_not(tmp_path: Path) -> None:
    # Crafted: without a requestId, a line of the same message id after a tool result continues the step when
    # it holds only tool calls with the same input count; a new input count is another request (a gateway
    # reusing one id).
    same = {"input_tokens": 100, "output_tokens": 5}
    steps = crafted_claude_session(
        tmp_path,
        (1, {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "ls"}}, same),
        (2, {"type": "tool_use", "id": "t2", "name": "Bash", "input": {"command": "ls -a"}}, same),
        (5, {"type": "tool_use", "id": "t3", "name": "Bash", "input": {"command": "pwd"}}, {"input_tokens": 180}),
    )
    assert [s.latency for s in steps] == [1.0, 3.0]
