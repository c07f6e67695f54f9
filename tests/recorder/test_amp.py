"""Amp threads: one real thread (tests/data/amp/SOURCE.md), then crafted documents in its shape.

Hand counts on the real thread were made with jq (`.messages | length` = 24, `[.messages[] |
select(.role == "assistant")] | length` = 12, `[.. | .name? // empty]` for the tool uses: 1 skill,
6 shell_command, 3 apply_patch, 1 Task) and by reading the 12 `usage` objects: outputTokens add up to
117+142+112+119+112+128+149+139+143+150+111+115 = 1537.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from pragmatikos_recorder import amp, cli, json_file
from pragmatikos_recorder.cycles import cycle_facts
from pragmatikos_recorder.git_ship import ShipJudge
from pragmatikos_recorder.jsonl import FILE_TOO_MANY_VALUES, NOT_AN_OBJECT, NOT_JSON, ReadReport, reporting_to
from pragmatikos_recorder.scan import Roots, scan_logs
from pragmatikos_recorder.session import Event, Kind, Session, Tokens

from tests.data.paths import DATA_DIR
from tests.recorder.conftest import NOW
from tests.recorder.test_memory_bound import TIME_BOUND_S, run_and_tell_peak

THREAD = DATA_DIR / "amp" / "T-019fa4db-29cf-70c9-8d9b-81524df70e52.json"
WORKDIR = Path("/tmp/amp-elicit")  # noqa: S108 (the working folder the real thread names)


def session_of(path: Path) -> Session:
    reading = amp.read(path)
    assert reading.skipped is None
    [session] = reading.sessions
    return session


def steps(session: Session) -> list[Event]:
    return [e for e in session.events if e.kind is Kind.STEP]


def kinds(session: Session) -> Counter[str]:
    return Counter(e.kind.value for e in session.events)


def write(tmp_path: Path, thread: Any, name: str = "T-1.json") -> Path:
    folder = tmp_path / "threads"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(thread if isinstance(thread, str) else json.dumps(thread))
    return folder / name


def real() -> dict[str, Any]:
    thread: dict[str, Any] = json.loads(THREAD.read_text())
    return thread


def test_the_real_thread_counts_as_counted_by_hand() -> None:
    session = session_of(THREAD)
    assert (session.harness, session.hversion, session.cwd) == (
        "amp",
        "0.0.1785170481-ga5b614",
        WORKDIR,
    )
    counted = kinds(session)
    assert (counted["prompt"], counted["step"], counted["edit"], counted["command"]) == (1, 12, 3, 6)
    assert {(s.model, s.provider, s.phase) for s in steps(session)} == {("gpt-5.6-sol", "openai", "build")}
    assert sum(s.tokens.output for s in steps(session) if s.tokens) == 1537
    # Message 2: inputTokens 0, cacheCreation 16954, cacheRead 0: every input token counted once.
    assert steps(session)[0].tokens == Tokens(input=16954, output=117, cache_read=0, cache_write=16954)
    edits = [e.files for e in session.events if e.kind is Kind.EDIT]
    assert edits == [(WORKDIR / "notes.md",)] * 2 + [(WORKDIR / "count.sh",)]
    [cycle] = cycle_facts(session, ShipJudge(NOW))
    # The prompt was sent at 18:34:15.723 and answered at 18:34:20.295; tool results carry no time.
    assert (cycle.u, cycle.a, cycle.tedits, cycle.teerr, cycle.latmed) == (1, 12, 3, 0, 4.57)
    # After the last edit (count.sh) only `bash count.sh` ran: not a test, build or check.
    assert (cycle.tver, cycle.tabort, cycle.role) == (0, 0, 2)


def test_a_thread_export_folder_and_the_data_folder_are_both_found(tmp_path: Path) -> None:
    exports = tmp_path / "exports"
    exports.mkdir()
    shutil.copy(THREAD, exports / THREAD.name)
    data = write(tmp_path / "data", real())
    (data.parent.parent / "secrets.json").write_text("{}")  # never looked at
    assert amp.find_logs((exports, tmp_path / "data")) == [exports / THREAD.name, data]


def usage(model: str, ts: str, fresh: Any = 10, output: Any = 5, reads: Any = 0, writes: Any = 0) -> dict[str, Any]:
    return {"model": model, "timestamp": ts, "inputTokens": fresh, "outputTokens": output,
            "cacheReadInputTokens": reads, "cacheCreationInputTokens": writes}  # fmt: skip


def prompt(text: str, sent: int) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "meta": {"sentAt": sent}}


def assistant(number: int, ts: str, *blocks: dict[str, Any], **extra: Any) -> dict[str, Any]:
    used = extra.pop("usage", usage("claude-sonnet-4-5", ts))
    return {"role": "assistant", "messageId": number, "content": list(blocks), "usage": used, **extra}


def tool_use(tool_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": arguments}


def tool_result(tool_id: str, status: str = "done", result: Any = None) -> dict[str, Any]:
    return {
        "role": "user",
        "content": [{"type": "tool_result", "toolUseID": tool_id, "run": {"status": status, "result": result}}],
    }


T0 = 1_760_000_000_000  # 2025-10-09T08:53:20Z


def crafted() -> dict[str, Any]:
    """A 2025-style thread (edit_file, Bash), crafted in the shape of the real one and of ccusage's reader."""
    return {
        "id": "T-crafted",
        "env": {"initial": {"trees": [{"uri": "file:///work/app"}]}},
        "messages": [
            prompt("fix the bug", T0),
            assistant(2, "2025-10-09T08:53:23Z", tool_use("a", "edit_file", path="app.py", old_str="x", new_str="y")),
            tool_result("a", "error", {"message": "old_str not found"}),
            assistant(4, "2025-10-09T08:53:25Z", tool_use("b", "edit_file", path="app.py", old_str="a", new_str="b")),
            tool_result("b", "rejected-by-user"),
            assistant(6, "2025-10-09T08:53:27Z", tool_use("c", "create_file", path="/work/app/t.py", content="")),
            tool_result("c"),
            assistant(8, "2025-10-09T08:53:29Z", tool_use("d", "Bash", cmd="pytest -q")),
            tool_result("d", result={"output": "1 passed", "exitCode": 0}),
            assistant(10, "2025-10-09T08:53:31Z", tool_use("e", "Bash", cmd="git commit -am fix")),
            tool_result("e", result={"output": "[main 1a2b3c4] fix", "exitCode": 0}),
            assistant(12, "2025-10-09T08:53:33Z", {"type": "text", "text": "Done."}),
            prompt("and the docs", T0 + 60_000),
            assistant(14, "2025-10-09T08:54:22Z", {"type": "text", "text": "Which docs?"}),
        ],
    }


def test_failed_turned_down_and_committed_calls_in_a_crafted_thread(tmp_path: Path) -> None:
    session = session_of(write(tmp_path, crafted()))
    edits = [(e.files, e.failed, e.rejected) for e in session.events if e.kind is Kind.EDIT]
    assert edits == [
        ((Path("/work/app/app.py"),), True, False),
        ((Path("/work/app/app.py"),), False, True),
        ((Path("/work/app/t.py"),), False, False),
    ]
    first, second = cycle_facts(session, ShipJudge(NOW))
    assert (first.u, first.a, first.tedits, first.teerr, first.tver, first.tabort) == (1, 6, 3, 1, 1, 1)
    assert (second.u, second.a, second.latmed) == (1, 1, 2.0)  # sent 08:54:20, answered 08:54:22


def test_the_usage_ledger_is_preferred_with_cache_counts_from_its_message(tmp_path: Path) -> None:
    thread = crafted()
    thread["messages"][1]["usage"] = usage("claude-sonnet-4-5", "2025-10-09T08:53:23Z", 99, 99, reads=300, writes=40)
    thread["usageLedger"] = {"events": [
        {"id": "e1", "timestamp": "2025-10-09T08:53:23Z", "model": "claude-opus-4-5",
         "tokens": {"input": 7, "output": 3}, "credits": 1.5, "toMessageId": 2},
    ]}  # fmt: skip
    first = steps(session_of(write(tmp_path, thread)))[0]
    assert (first.model, first.tokens) == (
        "claude-opus-4-5",
        Tokens(input=347, output=3, cache_read=300, cache_write=40),
    )


@pytest.mark.parametrize(
    "bad", ['"a string"', "7", '{"role": "system", "content": []}', '{"role": "user", "content": "hi"}']
)
def test_a_bad_message_costs_that_message_only(tmp_path: Path, bad: str) -> None:
    text = THREAD.read_text().replace('"messages": [\n', '"messages": [\n' + bad + ",\n", 1)
    report = ReadReport()
    with reporting_to(report, "amp"):
        session = session_of(write(tmp_path, text))
    assert len(steps(session)) == 12
    assert [number for _, number in report.skipped_lines] == [1]
    assert next(iter(report.skipped_lines.values()))[1] in (NOT_AN_OBJECT, amp.BAD_MESSAGE)


def test_wrong_types_in_usage_are_not_counts_and_the_model_carries_on(tmp_path: Path) -> None:
    thread = crafted()
    thread["messages"][3]["usage"] = usage(7, "yesterday", fresh="12k")  # type: ignore[arg-type]
    thread["messages"][5]["usage"] = usage("claude-sonnet-4-5", "2025-10-09T08:53:27Z", output=1e400)
    thread["messages"][7]["content"] = [{"type": "tool_use", "id": 5, "name": ["Bash"], "input": "pytest"}]
    session = session_of(write(tmp_path, thread))
    assert [(s.model, s.tokens is None) for s in steps(session)][1:3] == [("claude-sonnet-4-5", True)] * 2
    assert kinds(session)["command"] == 1  # the malformed Bash call is no command


def test_a_thread_cut_short_is_skipped_saying_why_and_a_non_thread_too(tmp_path: Path) -> None:
    text = THREAD.read_text()
    report = ReadReport()
    with reporting_to(report, "amp"):
        assert amp.read(write(tmp_path, text[: len(text) // 2])).sessions == []
        reading = amp.read(write(tmp_path, [1, 2], "T-2.json"))
    assert list(report.skipped_files.values()) == [("amp", NOT_JSON)]
    assert reading.skipped is not None and reading.skipped.reason == amp.NOT_A_THREAD


def test_a_thread_without_usage_is_skipped_saying_it_has_no_model(tmp_path: Path) -> None:
    thread = crafted()
    for message in thread["messages"]:
        message.pop("usage", None)
    reading = amp.read(write(tmp_path, thread))
    assert reading.skipped is not None and reading.skipped.reason == amp.NO_MODEL


def test_a_thread_over_the_value_cap_is_skipped_before_it_is_decoded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(json_file, "MAX_VALUES", 200)  # the real thread makes about 900 values
    report = ReadReport()
    with reporting_to(report, "amp"):
        assert amp.read(write(tmp_path, THREAD.read_text())).sessions == []
    assert list(report.skipped_files.values()) == [("amp", FILE_TOO_MANY_VALUES)]


def test_the_scan_reads_an_amp_folder_named_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PRAGMATIKOS_RECORDER_CONFIG", str(tmp_path / "config"))
    write(tmp_path / "amp", crafted())
    argv = ["scan", "--harness", "amp", "--amp-dir", str(tmp_path / "amp"), "--aider-root", str(tmp_path)]
    assert cli.main(argv) == 0
    header, *rows = capsys.readouterr().out.splitlines()
    assert len(rows) == 2
    assert {dict(zip(header.split(), row.split(), strict=True))["harness"] for row in rows} == {"amp"}
    roots = Roots(tmp_path / "c", tmp_path / "x", tmp_path, amp=(tmp_path / "amp",))
    assert len(scan_logs(("amp",), roots, now=NOW, progress=False).cycles) == 2


def test_a_crafted_thread_near_the_size_cap_is_weighed_and_skipped_in_bounded_memory(tmp_path: Path) -> None:
    """`{"messages": [{},{},…]}`: 3 bytes of text and ~70 bytes of Python per value, weighed before decoding."""
    path = write(tmp_path / "amp", "")
    path.write_bytes(b'{"messages": [' + b",".join([b"{}"] * 20_000_000) + b"]}")
    done, peak, took = run_and_tell_peak(["scan", "--harness", "amp", "--amp-dir", str(tmp_path / "amp")], tmp_path)
    assert f"  amp: 1 {FILE_TOO_MANY_VALUES}" in done.stderr.splitlines()
    # The interpreter (~40 MB), the file held (60 MB) and its copies while it is weighed.
    assert peak < (40 + 4 * 60 + 40) << 10, f"peak RSS {peak >> 10} MB"
    assert took < TIME_BOUND_S, f"took {took:.1f} s"
