"""Gemini CLI chats: the real chat file (tests/data/gemini-cli, see its SOURCE.md), its records in the JSONL
layout of v0.39+, and crafted chats built on its records.

No JSONL chat, tool call or plan mode is published: the JSONL file here is the real file's own records laid out
as chatRecordingService writes them (metadata line, one line per message), and the tests that need tool calls,
plan mode, slash commands or rewrites add crafted records of chatRecordingTypes.ts's shapes, saying so.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pragmatikos_recorder import gemini_cli, jsonl
from pragmatikos_recorder.cycles import Cycle, cycle_facts
from pragmatikos_recorder.git_ship import ShipJudge
from pragmatikos_recorder.jsonl import LINE_TOO_LONG, NOT_JSON
from pragmatikos_recorder.scan import Roots, scan_logs

from tests.data.paths import DATA_DIR

CHAT = DATA_DIR / "gemini-cli" / "kvsankar-agent-history-session-01.json"
LATER = datetime(2030, 1, 1, tzinfo=UTC)


def real_chat() -> dict[str, Any]:
    return json.loads(CHAT.read_text(encoding="utf-8"))


def chats_folder(tmp_path: Path) -> Path:
    folder = tmp_path / ".gemini" / "tmp" / "myproject" / "chats"
    folder.mkdir(parents=True)
    return folder


def as_jsonl(chat: dict[str, Any], extra: list[Any] | None = None) -> str:
    """The record as v0.39+ writes it: its metadata without messages, then one line per message."""
    metadata = {k: v for k, v in chat.items() if k != "messages"}
    lines = [metadata, *chat["messages"], *(extra or [])]
    return "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)


def cycles_of(path: Path) -> list[Cycle]:
    return [c for s in gemini_cli.parse(path) for c in cycle_facts(s, ShipJudge(LATER))]


def assert_the_real_cycle(cycle: Cycle) -> None:
    # Counted by hand from the file: one user message ([REDACTED_PROMPT], typed), one gemini message (one model
    # request) of gemini-2.5-flash. Latency 04:59:44.839 - 04:59:42.197 = 2.642 s; active the same span,
    # 0.0007 h to 4 decimals. Cost from the price list (no cost is recorded): 4383 input tokens at $0.30/M
    # plus 8 output + 28 thought tokens at $2.50/M = $0.001405, 0.0014 to 4 decimals.
    assert (cycle.harness, cycle.hversion, cycle.model, cycle.prov) == ("gemini-cli", "", "gemini-2.5-flash", "google")
    assert (cycle.u, cycle.a, cycle.tedits, cycle.tver, cycle.tabort, cycle.role) == (1, 1, 0, 0, 0, 2)
    assert cycle.latmed == 2.64
    assert cycle.thrs == 0.0007
    assert cycle.tcost == 0.0014


def test_the_real_chat_reads_into_its_hand_counted_cycle(tmp_path: Path) -> None:
    [cycle] = cycles_of(CHAT)
    assert_the_real_cycle(cycle)


def test_the_real_records_read_alike_as_jsonl(tmp_path: Path) -> None:
    path = chats_folder(tmp_path) / "session-2026-06-05T04-59-dcbe78d3.jsonl"
    path.write_text(as_jsonl(real_chat()))
    [cycle] = cycles_of(path)
    assert_the_real_cycle(cycle)


def test_the_scan_finds_chats_under_the_home_folder(tmp_path: Path) -> None:
    folder = chats_folder(tmp_path)
    (folder / "session-2026-06-05T04-59-dcbe78d3.json").write_text(CHAT.read_text())
    (folder.parent / "logs.json").write_text("[]")  # typed inputs only: not read
    roots = Roots(tmp_path / "c", tmp_path / "x", tmp_path / "a", gemini=tmp_path / ".gemini")
    scanned = scan_logs(("gemini-cli",), roots, now=LATER, progress=False)
    assert len(scanned.cycles) == 1
    assert scanned.report.files_read() == Counter({"gemini-cli": 1})


# --- crafted records on the real ones ------------------------------------------------------------------


def user(at: str, content: Any, **more: Any) -> dict[str, Any]:
    return {"id": f"u-{at}", "timestamp": f"2026-06-05T05:{at}.000Z", "type": "user", "content": content, **more}


def reply(at: str, calls: list[dict[str, Any]] | None = None, **more: Any) -> dict[str, Any]:
    tokens = {"input": 1000, "output": 10, "cached": 0, "thoughts": 0, "tool": 0, "total": 1010}
    record = {"id": f"g-{at}", "timestamp": f"2026-06-05T05:{at}.000Z", "type": "gemini", "content": "ok"}
    return record | {"tokens": tokens, "model": "gemini-2.5-pro", "toolCalls": calls or []} | more


def call(name: str, status: str = "success", **args: Any) -> dict[str, Any]:
    return {"id": f"{name}-{len(args)}", "name": name, "args": args, "status": status, "result": []}


def test_plan_mode_slash_commands_and_injected_lines(tmp_path: Path) -> None:
    chat = real_chat()
    chat["messages"] += [
        user("00:00", "/model"),  # the CLI answers it itself: no model request follows
        user("00:05", [{"text": "<session_context>cwd and date</session_context>"}]),
        user("01:00", [{"text": "plan the retry"}]),
        reply("01:10", [call("enter_plan_mode")]),
        reply("01:20", [call("write_file", file_path=str(tmp_path / ".gemini" / "tmp" / "p" / "plans" / "a.md"))]),
        reply("01:30", [call("exit_plan_mode", plan_filename="a.md")]),
        reply("02:00", [call("replace", "error", file_path="/src/app.py"), call("replace", file_path="/src/app.py")]),
        reply(
            "02:10",
            [call("run_shell_command", command="npm test"), call("run_shell_command", command="git commit -m x")],
        ),
        user("03:00", "?"),
        user("03:05", "now the docs"),
        reply("03:10"),
    ]
    path = chats_folder(tmp_path) / "session-x.json"
    path.write_text(json.dumps(chat))
    first, second = cycles_of(path)
    # First cycle: the real prompt and reply, "plan the retry" (/model had no answer, the session context is the
    # CLI's): u = 2. Steps: the real one, three plan replies, two build replies = 6. The plan file in the home
    # folder is no edit; the failed replace and the replace are 2 edits, 1 failed; npm test ran after them.
    assert (first.u, first.a, first.tedits, first.teerr, first.tver) == (2, 6, 2, 1, 1)
    assert (first.pm, first.bm) == ("gemini-2.5-pro", "gemini-2.5-pro")
    # After the commit, "?" (help, not answered) and "now the docs": one prompt, one reply.
    assert (second.u, second.a, second.tedits) == (1, 1, 0)


def test_a_session_started_in_plan_mode_plans_until_its_plan_is_approved(tmp_path: Path) -> None:
    chat = real_chat()
    chat["messages"] += [reply("01:00", [call("exit_plan_mode")]), reply("02:00", [call("write_file", file_path="/a")])]
    path = chats_folder(tmp_path) / "session-x.json"
    path.write_text(json.dumps(chat))
    [cycle] = cycles_of(path)
    assert (cycle.pm, cycle.bm, cycle.a) == ("gemini-2.5-flash", "gemini-2.5-pro", 3)


def test_a_refused_plan_and_a_cancelled_edit_are_interventions(tmp_path: Path) -> None:
    chat = real_chat()
    chat["messages"] += [reply("01:00", [call("write_file", "cancelled", file_path="/a")])]
    path = chats_folder(tmp_path) / "session-x.json"
    path.write_text(json.dumps(chat))
    [cycle] = cycles_of(path)
    assert (cycle.tedits, cycle.teerr, cycle.tabort) == (1, 0, 1)


def test_jsonl_rewrites_count_each_message_once(tmp_path: Path) -> None:
    chat = real_chat()
    first_reply = copy.deepcopy(chat["messages"][1])
    first_reply["tokens"] = None  # written first without tokens, again with them (the real line comes last)
    chat["messages"].insert(1, first_reply)
    extra = [
        {"$set": {"lastUpdated": "2026-06-05T05:00:00.000Z"}},
        # A compression: the history replaced by a summary and a canned reply. Not new work.
        {"$set": {"messages": [user("09:00", "<state_snapshot>…</state_snapshot>"), reply("09:01")]}},
        user("10:00", "and again"),
        reply("10:05"),
        {"$rewindTo": "u-10:00"},  # the request after it was made all the same
    ]
    path = chats_folder(tmp_path) / "session-x.jsonl"
    path.write_text(as_jsonl(chat, extra))
    [cycle] = cycles_of(path)
    assert (cycle.u, cycle.a) == (2, 2)
    assert cycle.tcost > 0.0014  # the real reply's tokens (its last line) and the later reply's


def test_a_subagent_chat_counts_with_its_parent(tmp_path: Path) -> None:
    folder = chats_folder(tmp_path)
    main = folder / "session-2026-06-05T04-59-dcbe78d3.jsonl"
    main.write_text(as_jsonl(real_chat()))
    child = {
        "sessionId": "child",
        "kind": "subagent",
        "messages": [user("00:00", "task"), reply("00:05", [call("write_file", file_path="/b")])],
    }
    (folder / real_chat()["sessionId"]).mkdir()
    (folder / real_chat()["sessionId"] / "child.jsonl").write_text(as_jsonl(child))
    assert gemini_cli.find_logs(tmp_path / ".gemini") == [main]
    [cycle] = cycles_of(main)
    assert (cycle.u, cycle.a, cycle.tedits) == (1, 1, 1)


# --- odd lines and crafted files ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "odd",
    [
        '{"id": "x", "type": "user", "content": ',
        "[1, 2, 3]",
        "[" * 200 + "]" * 200,
        '{"id": 12345678901234567890' + "1" * 5000 + "}",
    ],
)
def test_an_odd_jsonl_line_costs_that_line_only(tmp_path: Path, odd: str) -> None:
    path = chats_folder(tmp_path) / "session-x.jsonl"
    path.write_text(as_jsonl(real_chat(), [odd]))
    roots = Roots(tmp_path / "c", tmp_path / "x", tmp_path / "a", gemini=tmp_path / ".gemini")
    scanned = scan_logs(("gemini-cli",), roots, now=LATER, progress=False)
    [cycle] = scanned.cycles
    assert_the_real_cycle(cycle)
    assert sum(scanned.report.lines_skipped().values()) == 1


def test_a_line_longer_than_the_cap_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsonl, "MAX_LINE_BYTES", 4096)  # the cap made small; the real lines are shorter
    path = chats_folder(tmp_path) / "session-x.jsonl"
    huge = json.dumps(user("00:00", "x" * 5000))
    path.write_text(as_jsonl(real_chat(), [huge]))
    roots = Roots(tmp_path / "c", tmp_path / "x", tmp_path / "a", gemini=tmp_path / ".gemini")
    scanned = scan_logs(("gemini-cli",), roots, now=LATER, progress=False)
    [cycle] = scanned.cycles
    assert cycle.u == 1
    assert scanned.report.lines_skipped() == Counter({("gemini-cli", LINE_TOO_LONG): 1})


def test_a_truncated_chat_file_is_skipped_saying_why(tmp_path: Path) -> None:
    path = chats_folder(tmp_path) / "session-x.json"
    path.write_text(CHAT.read_text()[:500])
    roots = Roots(tmp_path / "c", tmp_path / "x", tmp_path / "a", gemini=tmp_path / ".gemini")
    scanned = scan_logs(("gemini-cli",), roots, now=LATER, progress=False)
    assert scanned.cycles == []
    assert scanned.report.skipped_files[path] == ("gemini-cli", NOT_JSON)


@pytest.mark.parametrize(
    "spoil",
    [
        lambda c: c["messages"][1].update(tokens={"input": "many", "output": -1}, model=["x"]),
        lambda c: c["messages"][1].update(timestamp=12, toolCalls={"not": "a list"}),
        lambda c: c["messages"][1].update(toolCalls=["x", {"name": 5, "args": "no"}, {"name": "replace", "args": []}]),
        lambda c: c["messages"].insert(0, "not a message"),
        lambda c: c["messages"][0].update(content={"functionResponse": {}}),
        lambda c: c["messages"][0].update(content=[None, 5, {"text": ["no"]}]),
        lambda c: c.update(messages={"not": "a list"}),
    ],
)
def test_values_of_the_wrong_type_cost_nothing_but_themselves(tmp_path: Path, spoil: Any) -> None:
    chat = real_chat()
    spoil(chat)
    path = chats_folder(tmp_path) / "session-x.json"
    path.write_text(json.dumps(chat))
    for cycle in cycles_of(path):
        assert cycle.a == 1
        assert cycle.u <= 1
