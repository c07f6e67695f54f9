"""Cline, Roo Code and Kilo Code tasks: three real Cline tasks (tests/data/cline/SOURCE.md), then crafted rows.

Hand counts below were made with grep on the sample files (`grep -oE '"say": *"api_req_started"' | wc -l`
and the like) and checked by reading the rows around each prompt; the costs are the sums of the
`cost` each api_req_started row records.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from pragmatikos_recorder import cli, cline, json_file
from pragmatikos_recorder.cycles import cycle_facts
from pragmatikos_recorder.git_ship import ShipJudge
from pragmatikos_recorder.jsonl import (
    FILE_TOO_MANY_VALUES,
    NOT_AN_OBJECT,
    TOO_DEEP,
    TOO_LARGE,
    ReadReport,
    reporting_to,
)
from pragmatikos_recorder.scan import Roots, scan_logs
from pragmatikos_recorder.session import Event, Kind, Session

from tests.data.paths import DATA_DIR
from tests.recorder.conftest import NOW
from tests.recorder.test_memory_bound import TIME_BOUND_S, run_and_tell_peak

CLINE = DATA_DIR / "cline"
GMFSTU = CLINE / "gmfstu-1769053680585-ui_messages.json"  # one prompt, act mode, with its task_metadata.json
GMFSTU_META = CLINE / "gmfstu-1769053680585-task_metadata.json"
JEEHUNTER = CLINE / "jeehunter-plan-act-ui_messages.json"  # plan then act, no modelInfo (Cline 3.3x)
HARAM = CLINE / "haram333-feedback-ui_messages.json"  # fourteen follow-ups, two models, retries


def task(base: Path, files: dict[str, Path | str], extension: str = "saoudrizwan.claude-dev", name: str = "1") -> Path:
    """A task folder as the extension keeps it; `files` maps a name in it to a sample (or to text)."""
    folder = base / extension / "tasks" / name
    folder.mkdir(parents=True)
    for target, source in files.items():
        if isinstance(source, Path):
            shutil.copy(source, folder / target)
        else:
            (folder / target).write_text(source)
    return folder / cline.UI_MESSAGES


def session_of(path: Path) -> Session:
    reading = cline.read(path)
    assert reading.skipped is None
    [session] = reading.sessions
    return session


def kinds(session: Session) -> Counter[str]:
    return Counter(e.kind.value for e in session.events)


def steps(session: Session) -> list[Event]:
    return [e for e in session.events if e.kind is Kind.STEP]


def test_the_real_act_task_reads_with_its_metadata(tmp_path: Path) -> None:
    session = session_of(task(tmp_path, {"ui_messages.json": GMFSTU, "task_metadata.json": GMFSTU_META}))
    assert (session.harness, session.hversion) == ("cline", "3.51.0")
    assert session.cwd == Path("/workspaces/Online-Card-Architecture")  # from the first request's environment
    # 47 api_req_started rows; 1 typed prompt (the first say:text); 27 edit rows (13 editedExistingFile,
    # 14 newFileCreated, as the API history's 26 write_to_file and 1 replace_in_file); 2 say:command rows.
    counted = kinds(session)
    assert (counted["step"], counted["prompt"], counted["edit"], counted["command"]) == (47, 1, 27, 2)
    assert {(s.phase, s.model, s.provider) for s in steps(session)} == {
        ("build", "claude-sonnet-4-5-20250929", "anthropic")
    }
    assert sum(s.cost or 0 for s in steps(session)) == pytest.approx(1.05461835)
    [cycle] = cycle_facts(session, ShipJudge(NOW))
    assert (cycle.u, cycle.a, cycle.tedits, cycle.teerr, cycle.tcost, cycle.role) == (1, 47, 27, 0, 1.0546, 2)
    assert (cycle.bm, cycle.bp, cycle.pm, cycle.tabort) == ("claude-sonnet-4.5", "anthropic", "", 0)


def test_a_published_ui_messages_file_alone_is_read(tmp_path: Path) -> None:
    """Cline puts the model and mode on every row since late 2025: the other files are not needed."""
    session = session_of(task(tmp_path, {"ui_messages.json": GMFSTU}))
    assert len(steps(session)) == 47
    assert session.hversion == ""


def test_follow_ups_are_prompts_and_each_request_keeps_its_model(tmp_path: Path) -> None:
    session = session_of(task(tmp_path, {"ui_messages.json": HARAM}))
    # 1 first say:text + 14 say:user_feedback; 31 api_req_started (its 33 api_req_retried rows are retries
    # of those requests, not requests of their own); the person switched model after 26 requests.
    counted = kinds(session)
    assert (counted["prompt"], counted["step"], counted["edit"]) == (15, 31, 0)
    assert Counter((s.model, s.provider) for s in steps(session)) == {
        ("x-ai/grok-code-fast-1", "x-ai"): 26,  # Cline's own gateway: the vendor is the id's first part
        ("anthropic/claude-sonnet-4.5", "anthropic"): 5,
    }


def test_an_old_task_without_a_model_is_skipped_saying_why(tmp_path: Path) -> None:
    reading = cline.read(task(tmp_path, {"ui_messages.json": JEEHUNTER}))
    assert reading.sessions == []
    assert reading.skipped is not None and reading.skipped.reason == cline.NO_MODEL


def test_plan_mode_requests_plan_and_act_mode_requests_build(tmp_path: Path) -> None:
    """The real plan-then-act task, with a task_metadata.json naming the model (crafted here: the owner
    published ui_messages.json alone, and Cline 3.3x wrote the model nowhere else)."""
    meta = {"model_usage": [{"ts": 1760534080000, "model_id": "claude-sonnet-4-5-20250929",
                             "model_provider_id": "anthropic", "mode": "plan"}]}  # fmt: skip
    session = session_of(task(tmp_path, {"ui_messages.json": JEEHUNTER, "task_metadata.json": json.dumps(meta)}))
    # Requests 1-4 (rows 1, 6, 10, 14) end "# Current Mode\nPLAN MODE", the other 57 "ACT MODE".
    assert Counter(s.phase for s in steps(session)) == {"plan": 4, "build": 57}
    # The task and three user_feedback rows; 17 edit rows (9 editedExistingFile, 8 newFileCreated); 28 commands.
    counted = kinds(session)
    assert (counted["prompt"], counted["edit"], counted["command"]) == (4, 17, 28)
    [cycle] = cycle_facts(session, ShipJudge(NOW))
    assert (cycle.pm, cycle.bm, cycle.role, cycle.u, cycle.a) == ("claude-sonnet-4.5", "claude-sonnet-4.5", 2, 4, 61)
    assert cycle.tcost == pytest.approx(0.3095, abs=1e-4)
    # Its last edit writes a usage guide after the last `npm run build`: nothing verified after it. The
    # person stopped one request (cancelReason user_cancelled, at 14:19:10 UTC).
    assert (cycle.tver, cycle.tabort) == (0, 1)
    assert Path("C:/Users/70912/Documents/Cline/MCP/安装和使用指南.md") in [
        f for e in session.events if e.kind is Kind.EDIT for f in e.files
    ]  # a Windows path stays whole, not joined to the working folder


@pytest.mark.parametrize(
    ("extension", "harness"),
    [
        ("saoudrizwan.claude-dev", "cline"),
        ("rooveterinaryinc.roo-cline", "roo-code"),
        ("kilocode.kilo-code", "kilo-code"),
        ("a-copy-of-tasks", "cline"),
    ],
)
def test_the_extension_folder_names_the_harness(tmp_path: Path, extension: str, harness: str) -> None:
    assert session_of(task(tmp_path, {"ui_messages.json": GMFSTU}, extension)).harness == harness


# Crafted rows below follow the shapes of Cline's and Roo's source (docs/agents/cline.md, roo-code.md).
T0 = 1_760_000_000_000
MODEL = {"providerId": "anthropic", "modelId": "claude-sonnet-4-5", "mode": "act"}


def say(ts: int, say_type: str, text: Any = "", **extra: Any) -> dict[str, Any]:
    return {"ts": T0 + ts, "type": "say", "say": say_type, "text": text, "modelInfo": MODEL, **extra}


def ask(ts: int, ask_type: str, text: Any = "", **extra: Any) -> dict[str, Any]:
    return {"ts": T0 + ts, "type": "ask", "ask": ask_type, "text": text, **extra}


def request(ts: int, text: str = "", cost: Any = 0.01, **extra: Any) -> dict[str, Any]:
    info = {"request": text, "tokensIn": 10, "tokensOut": 5, "cacheReads": 0, "cacheWrites": 0, **extra}
    if cost is not None:
        info["cost"] = cost
    return say(ts, "api_req_started", json.dumps(info))


def edit(ts: int, path: str, kind: str = "ask") -> dict[str, Any]:
    row = ask if kind == "ask" else say
    return row(ts, "tool", json.dumps({"tool": "editedExistingFile", "path": path, "diff": "-a\n+b"}))


def write_rows(tmp_path: Path, rows: list[Any], extension: str = "saoudrizwan.claude-dev") -> Path:
    return task(tmp_path, {"ui_messages.json": json.dumps(rows)}, extension)


def test_a_turned_down_edit_is_rejected_and_a_failed_one_failed(tmp_path: Path) -> None:
    rows = [
        say(0, "text", "fix it"),
        request(1_000),
        edit(2_000, "a.py"),
        request(3_000, "[replace_in_file for 'a.py'] Result:\n\nThe user denied this operation."),
        say(4_000, "diff_error", "a.py"),
        request(5_000, "[replace_in_file for 'a.py'] Result:\n\nThe tool execution failed"),
        edit(6_000, "a.py", "say"),
        request(7_000, "[replace_in_file for 'a.py'] Result:\n\nThe content was saved"),
    ]
    session = session_of(write_rows(tmp_path, rows))
    edits = [(e.rejected, e.failed) for e in session.events if e.kind is Kind.EDIT]
    assert edits == [(True, False), (False, True), (False, False)]
    [cycle] = cycle_facts(session, ShipJudge(NOW))
    assert (cycle.tedits, cycle.teerr, cycle.tabort, cycle.a, cycle.u) == (3, 1, 1, 4, 1)


def test_a_command_after_the_last_edit_verifies_and_a_git_commit_ends_the_cycle(tmp_path: Path) -> None:
    rows = [
        say(0, "text", "add a test"),
        request(1_000),
        edit(2_000, "t.py", "say"),
        request(3_000),
        say(4_000, "command", "pytest -q"),
        ask(5_000, "command_output", "1 passed"),
        request(6_000),
        say(7_000, "command", "git commit -am 'Add a test'"),
        ask(8_000, "command_output", "[main 1a2b3c4] Add a test\n 1 file changed"),
        request(9_000),
        say(10_000, "user_feedback", "now the docs"),
        request(11_000),
    ]
    session = session_of(write_rows(tmp_path, rows))
    assert kinds(session)["commit"] == 1
    first, second = cycle_facts(session, ShipJudge(NOW))
    assert (first.tver, first.a, first.u, second.a, second.u) == (1, 4, 1, 1, 1)


def test_a_cancelled_request_is_an_intervention_and_latency_runs_to_the_first_answer(tmp_path: Path) -> None:
    rows = [say(0, "text", "go"), request(1_000, cancelReason="user_cancelled"), say(3_500, "text", "partial")]
    session = session_of(write_rows(tmp_path, rows))
    assert kinds(session)["abort"] == 1
    assert steps(session)[0].latency == 2.5


def test_roo_tasks_take_model_and_mode_from_the_api_history_when_requests_hold_no_text(tmp_path: Path) -> None:
    """Roo 3.5x writes api_req_started as {apiProtocol, tokens, cost} only; its API history keeps a ts per turn."""
    rows = [
        {"ts": T0, "type": "say", "say": "text", "text": "plan the change"},
        {"ts": T0 + 1_000, "type": "say", "say": "api_req_started",
         "text": json.dumps({"apiProtocol": "anthropic", "tokensIn": 5, "tokensOut": 7, "cost": 0.2})},
        {"ts": T0 + 5_000, "type": "say", "say": "user_feedback", "text": "do it"},
        {"ts": T0 + 6_000, "type": "say", "say": "api_req_started",
         "text": json.dumps({"apiProtocol": "openai", "tokensIn": 50, "tokensOut": 7, "cacheReads": 40})},
    ]  # fmt: skip

    def turn(ts: int, slug: str) -> dict[str, Any]:
        details = f"<environment_details>\n# Current Mode\n<slug>{slug}</slug>\n<name>x</name>\n<model>gpt-5</model>\n"
        return {"role": "user", "ts": T0 + ts, "content": [{"type": "text", "text": details}]}

    history = [turn(900, "architect"), {"role": "assistant", "content": "ok"}, turn(5_900, "code")]
    path = task(
        tmp_path,
        {"ui_messages.json": json.dumps(rows), "api_conversation_history.json": json.dumps(history)},
        "rooveterinaryinc.roo-cline",
    )
    session = session_of(path)
    assert [(s.phase, s.model, s.provider, s.cost) for s in steps(session)] == [
        ("plan", "gpt-5", "openai", 0.2),
        ("build", "gpt-5", "openai", None),
    ]
    tokens = steps(session)[1].tokens
    assert tokens is not None and tokens.input == 50  # an OpenAI-style count holds the cached tokens within


def test_a_streamed_row_counts_once_in_its_last_state(tmp_path: Path) -> None:
    rows = [say(0, "text", "go"), request(1_000, cost=None), request(1_000, cost=0.5)]
    session = session_of(write_rows(tmp_path, rows))
    assert [s.cost for s in steps(session)] == [0.5]


def bad_rows_report(tmp_path: Path, rows_text: str) -> tuple[list[Session], ReadReport]:
    report = ReadReport()
    path = task(tmp_path, {"ui_messages.json": rows_text})
    with reporting_to(report, "cline"):
        sessions = cline.parse(path)
    return sessions, report


@pytest.mark.parametrize(
    "bad",
    [
        '"not a row"',
        '{"ts": "yesterday", "type": "say", "say": "api_req_started", "text": "{}"}',
        '{"ts": 1760000001500, "type": 7, "say": "api_req_started"}',
        '{"ts": 1760000001500, "type": "say", "say": "api_req_started", "text": ["list"]}',
        '{"ts": 1e400, "type": "say", "say": "api_req_started", "text": "{}"}',
    ],
)
def test_a_bad_row_costs_that_row_only(tmp_path: Path, bad: str) -> None:
    rows = [json.dumps(r) for r in (say(0, "text", "go"), request(1_000), request(2_000))]
    sessions, report = bad_rows_report(tmp_path, "[" + ",".join([rows[0], bad, *rows[1:]]) + "]")
    [session] = sessions
    assert len(steps(session)) == 2
    assert [number for _, number in report.skipped_lines] == [2]


def test_wrong_types_inside_a_request_are_not_counts(tmp_path: Path) -> None:
    rows = [say(0, "text", "go"), request(1_000, cost="lots", tokensIn="12k"), request(2_000, cost=-1)]
    session = session_of(write_rows(tmp_path, rows))
    assert [(s.cost, s.tokens) for s in steps(session)] == [(None, None), (None, steps(session)[1].tokens)]


def test_a_file_cut_short_keeps_the_rows_before_the_cut(tmp_path: Path) -> None:
    text = GMFSTU.read_text()
    cut = text[: len(text) // 2]
    sessions, report = bad_rows_report(tmp_path, cut)
    [session] = sessions
    whole = json.loads(text)
    kept = len(json.loads(cut[: cut.rindex('},{"ts"') + 1] + "]"))  # the rows wholly before the cut
    assert 0 < len(steps(session)) == sum(1 for r in whole[:kept] if r.get("say") == "api_req_started")
    assert list(report.skipped_lines.values()) == [("cline", json_file.CUT_SHORT)]


def test_a_deeply_nested_row_and_a_non_array_are_passed_over(tmp_path: Path) -> None:
    deep = "[" * 200 + "]" * 200
    rows = [json.dumps(say(0, "text", "go")), deep, json.dumps(request(1_000))]
    sessions, report = bad_rows_report(tmp_path, "[" + ",".join(rows) + "]")
    assert len(steps(sessions[0])) == 1
    assert list(report.skipped_lines.values()) == [("cline", TOO_DEEP)]
    other = tmp_path / "other"
    _, report = bad_rows_report(other, '{"rows": []}')
    assert list(report.skipped_files.values()) == [("cline", json_file.NOT_AN_ARRAY)]
    assert NOT_AN_OBJECT  # a row that is not an object: see test_a_bad_row_costs_that_row_only


def test_a_file_over_the_size_cap_is_skipped_unread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(json_file, "MAX_BYTES", 1000)
    sessions, report = bad_rows_report(tmp_path, json.dumps([say(0, "text", "x" * 2000), request(1)]))
    assert sessions == []
    assert list(report.skipped_files.values()) == [("cline", TOO_LARGE)]


def test_a_file_of_too_many_values_is_skipped_before_it_is_decoded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(json_file, "MAX_VALUES", 1000)
    sessions, report = bad_rows_report(tmp_path, "[" + ",".join(["{}"] * 2000) + "]")
    assert sessions == []
    assert list(report.skipped_files.values()) == [("cline", FILE_TOO_MANY_VALUES)]


def test_the_scan_reads_an_extension_folder_named_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PRAGMATIKOS_RECORDER_CONFIG", str(tmp_path / "config"))
    path = task(tmp_path, {"ui_messages.json": GMFSTU}, "kilocode.kilo-code")
    extension = path.parent.parent.parent
    assert cli.main(["scan", "--harness", "cline", "--cline-dir", str(extension), "--aider-root", str(tmp_path)]) == 0
    header, row = capsys.readouterr().out.splitlines()
    assert dict(zip(header.split(), row.split(), strict=True))["harness"] == "kilo-code"
    roots = Roots(tmp_path / "c", tmp_path / "x", tmp_path, cline=(extension,))
    assert len(scan_logs(("cline",), roots, now=NOW, progress=False).cycles) == 1


def test_a_crafted_file_near_the_size_cap_is_weighed_and_skipped_in_bounded_memory(tmp_path: Path) -> None:
    """`[{},{},…]`: 3 bytes of text and ~70 bytes of Python per value; 120 MB of it would take gigabytes."""
    path = task(tmp_path, {"ui_messages.json": ""})
    path.write_bytes(b"[" + b",".join([b"{}"] * 40_000_000) + b"]")
    extension = path.parent.parent.parent
    done, peak, took = run_and_tell_peak(["scan", "--harness", "cline", "--cline-dir", str(extension)], tmp_path)
    assert f"  cline: 1 {FILE_TOO_MANY_VALUES}" in done.stderr.splitlines()
    # The interpreter (~40 MB), the file held (120 MB) and one copy while it is weighed.
    assert peak < (40 + 2 * 120 + 40) << 10, f"peak RSS {peak >> 10} MB"
    assert took < TIME_BOUND_S, f"took {took:.1f} s"
