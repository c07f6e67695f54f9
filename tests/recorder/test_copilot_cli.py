"""GitHub Copilot CLI sessions (events.jsonl).

No events.jsonl written by the CLI is published (tests/data/copilot-cli/SOURCE.md), so every session here is
crafted: its lines have the envelope and data fields of the session-event schema (github/copilot-sdk,
nodejs/src/generated/session-events.ts) and of the real lines quoted in public transcripts (CLI 1.0.63:
session.start, session.model_change, user.message, assistant.turn_start, assistant.message with turnId and
model, tool.execution_start). The counts below are of these crafted sessions, not of anyone's work.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pragmatikos_recorder import copilot_cli
from pragmatikos_recorder.cycles import Cycle, cycle_facts
from pragmatikos_recorder.git_ship import ShipJudge
from pragmatikos_recorder.jsonl import NOT_JSON
from pragmatikos_recorder.prices import price
from pragmatikos_recorder.scan import Roots, scan_logs
from pragmatikos_recorder.session import Tokens

LATER = datetime(2030, 1, 1, tzinfo=UTC)
SESSION = "381474ec-066a-4e9b-8a13-14b602e419dd"


def event(kind: str, second: float, agent: str | None = None, **data: Any) -> dict[str, Any]:
    stamp = datetime(2026, 6, 18, 19, 13, 0, tzinfo=UTC).timestamp() + second
    when = datetime.fromtimestamp(stamp, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    line = {"type": kind, "data": data, "id": f"e{second}", "timestamp": when, "parentId": None}
    return line | ({"agentId": agent} if agent else {})


def start() -> list[dict[str, Any]]:
    return [
        event(
            "session.start",
            0,
            sessionId=SESSION,
            version=1,
            producer="copilot-agent",
            copilotVersion="1.0.63",
            startTime="2026-06-18T19:13:00.000Z",
            context={"cwd": "/work/app"},
        ),
        event("session.model_change", 1, newModel="claude-sonnet-4.5", reasoningEffort=None),
    ]


def tool(second: float, call: str, name: str, ok: bool = True, error: str = "", **arguments: Any) -> list[Any]:
    done: dict[str, Any] = {"toolCallId": call, "success": ok}
    if error:
        done["error"] = {"message": error, "code": "denied" if "denied" in error else "failure"}
    return [
        event("tool.execution_start", second, toolCallId=call, toolName=name, arguments=arguments),
        event("tool.execution_complete", second + 1, **done),
    ]


def turn(second: float, number: int, reply_after: float = 2.0) -> list[dict[str, Any]]:
    return [
        event("assistant.turn_start", second, turnId=str(number)),
        event("assistant.message", second + reply_after, messageId=f"m{number}", content="", turnId=str(number)),
    ]


def planned_and_built() -> list[dict[str, Any]]:
    usage = {"inputTokens": 30000, "outputTokens": 3000, "cacheReadTokens": 20000, "cacheWriteTokens": 0}
    return [
        *start(),
        event("session.mode_changed", 2, newMode="plan", previousMode="interactive"),
        event("user.message", 10, content="plan the retry", agentMode="plan"),
        *turn(11, 0),
        event("session.mode_changed", 20, newMode="interactive", previousMode="plan"),
        event("user.message", 21, content="go ahead", agentMode="interactive"),
        *turn(22, 1, reply_after=4),
        *tool(27, "c1", "edit", ok=False, error="old_str not found", path="src/app.py"),
        *turn(30, 2),
        *tool(33, "c2", "edit", path="src/app.py", old_str="a", new_str="b"),
        *tool(35, "c3", "bash", command="uv run pytest -q"),
        *turn(40, 3),
        *tool(43, "c4", "bash", command="git commit -am retry"),
        event("user.message", 60, content="continue", isAutopilotContinuation=True),
        event("user.message", 61, content="now the docs"),
        *turn(62, 4),
        event("session.shutdown", 70, shutdownType="routine", modelMetrics={"claude-sonnet-4.5": {"usage": usage}}),
    ]


def write(tmp_path: Path, lines: list[Any]) -> Path:
    path = tmp_path / ".copilot" / "session-state" / SESSION / "events.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines))
    return path


def cycles_of(path: Path) -> list[Cycle]:
    return [c for s in copilot_cli.parse(path) for c in cycle_facts(s, ShipJudge(LATER))]


def test_a_planned_and_built_session_reads_into_its_counted_cycles(tmp_path: Path) -> None:
    first, second = cycles_of(write(tmp_path, planned_and_built()))
    # Prompts: "plan the retry", "go ahead" (autopilot's "continue" is not typed), then "now the docs" after the
    # commit. Requests: turn 0 (plan), turns 1-3 (build) before the commit, turn 4 after it. Edits: the failed
    # edit and the edit; pytest ran after the last edit. Latencies 2, 4, 2, 2 s: median 2.
    assert (first.u, first.a, first.tedits, first.teerr, first.tver, first.tabort) == (2, 4, 2, 1, 1, 0)
    assert (first.pm, first.pp, first.bm, first.bp) == ("claude-sonnet-4.5", "github-copilot") * 2
    assert (first.harness, first.hversion, first.latmed) == ("copilot-cli", "1.0.63", 2.0)
    assert (second.u, second.a, second.tedits) == (1, 1, 0)
    # The run's tokens are shared over its five requests: 4/5 of them fall in the first cycle.
    share = Tokens(input=6000, output=600, cache_read=4000)
    one = price("claude-sonnet-4.5", "github-copilot", share, first.start)
    assert one is not None
    assert first.tcost == pytest.approx(round(4 * one, 4), abs=1e-4)
    assert second.tcost == pytest.approx(round(one, 4), abs=1e-4)


def test_usage_events_where_written_price_each_request(tmp_path: Path) -> None:
    lines = planned_and_built()
    usage: dict[str, Any] = {"model": "claude-sonnet-4.5", "inputTokens": 1000, "outputTokens": 100}
    lines.insert(5, event("assistant.usage", 12.5, **usage))  # in turn 0, before its reply
    first, second = cycles_of(write(tmp_path, lines))
    expected = price("claude-sonnet-4.5", "github-copilot", Tokens(input=1000, output=100), first.start)
    assert expected is not None
    # With per-request usage the shutdown totals are not shared out again: only turn 0 has tokens.
    assert first.tcost == pytest.approx(round(expected, 4), abs=1e-4)
    assert second.tcost == 0.0


def test_a_refused_edit_and_an_abort_are_interventions(tmp_path: Path) -> None:
    lines = [
        *start(),
        event("user.message", 10, content="fix it"),
        *turn(11, 0),
        *tool(14, "c1", "create", ok=False, error="Permission denied by the user", path="/work/app/a.py"),
        event("abort", 20, reason="user_initiated"),
    ]
    [cycle] = cycles_of(write(tmp_path, lines))
    assert (cycle.tedits, cycle.teerr, cycle.tabort) == (1, 0, 1)


def test_a_subagents_work_counts_as_edits_not_as_requests(tmp_path: Path) -> None:
    lines = [
        *start(),
        event("user.message", 10, content="delegate"),
        *turn(11, 0),
        event("user.message", 15, agent="sub1", content="the task the parent wrote", source="agent-main"),
        event("assistant.turn_start", 16, agent="sub1", turnId="0"),
        event("assistant.message", 18, agent="sub1", messageId="s0", content=""),
        event("tool.execution_start", 19, agent="sub1", toolCallId="s1", toolName="create", arguments={"path": "b"}),
        event("tool.execution_complete", 20, agent="sub1", toolCallId="s1", success=True),
    ]
    [cycle] = cycles_of(write(tmp_path, lines))
    assert (cycle.u, cycle.a, cycle.tedits) == (1, 1, 1)


def test_the_scan_finds_sessions_under_the_copilot_folder(tmp_path: Path) -> None:
    write(tmp_path, planned_and_built())
    roots = Roots(tmp_path / "c", tmp_path / "x", tmp_path / "a", copilot=tmp_path / ".copilot")
    scanned = scan_logs(("copilot-cli",), roots, now=LATER, progress=False)
    assert len(scanned.cycles) == 2
    assert scanned.report.files_read() == Counter({"copilot-cli": 1})


# --- odd lines and crafted files ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "odd",
    [
        '{"type": "user.message", "data": {"content": ',
        '{"type": 5, "data": {}}',
        '{"type": "user.message", "data": "text"}',
        "[" * 300 + "]" * 300,
        '"just a string"',
    ],
)
def test_an_odd_line_costs_that_line_only(tmp_path: Path, odd: str) -> None:
    lines: list[Any] = planned_and_built()
    lines.insert(5, odd)
    roots = Roots(tmp_path / "c", tmp_path / "x", tmp_path / "a", copilot=tmp_path / ".copilot")
    write(tmp_path, lines)
    scanned = scan_logs(("copilot-cli",), roots, now=LATER, progress=False)
    assert [(c.u, c.a) for c in scanned.cycles] == [(2, 4), (1, 1)]
    assert sum(scanned.report.lines_skipped().values()) == 1


def test_a_last_line_cut_short_while_written_costs_that_line(tmp_path: Path) -> None:
    lines: list[Any] = planned_and_built()
    lines[-1] = json.dumps(lines[-1])[:40]
    roots = Roots(tmp_path / "c", tmp_path / "x", tmp_path / "a", copilot=tmp_path / ".copilot")
    write(tmp_path, lines)
    scanned = scan_logs(("copilot-cli",), roots, now=LATER, progress=False)
    assert [c.tcost for c in scanned.cycles] == [0.0, 0.0]  # the shutdown line held the only tokens
    assert scanned.report.lines_skipped() == Counter({("copilot-cli", NOT_JSON): 1})


@pytest.mark.parametrize(
    "spoil",
    [
        lambda ls: ls[-1]["data"].update(modelMetrics={"claude-sonnet-4.5": {"usage": {"inputTokens": "lots"}}}),
        lambda ls: ls[-1]["data"].update(modelMetrics=["not", "a", "map"]),
        lambda ls: ls[0]["data"].update(context="nowhere", copilotVersion=7, selectedModel=["x"]),
        lambda ls: ls[5].update(timestamp=12345),
        lambda ls: ls[8]["data"].update(arguments="not json {", toolName=None),
        lambda ls: ls[9]["data"].update(toolCallId=["x"], success="yes"),
        lambda ls: ls[1]["data"].update(newModel={"id": "x"}),
    ],
)
def test_values_of_the_wrong_type_cost_nothing_but_themselves(tmp_path: Path, spoil: Any) -> None:
    lines = planned_and_built()
    spoil(lines)
    for cycle in cycles_of(write(tmp_path, lines)):
        assert cycle.u >= 1
        assert 0 <= cycle.tcost < 5000
