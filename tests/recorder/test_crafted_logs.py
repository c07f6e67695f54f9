"""Crafted or broken log lines and files cost that line or that file, never the scan.

The Codex lines start from a real rollout (tests/data/codex-rollout-rtchess, see its SOURCE.md): each case
replaces one of its lines by a crafted copy of itself. The Claude Code and aider cases add lines of the
fixtures' shapes to the fixture world.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pragmatikos_recorder import codex
from pragmatikos_recorder.jsonl import (
    LINE_TOO_LONG,
    MAX_LINE_BYTES,
    NOT_REGULAR,
    NUMBER_TOO_LONG,
    TOO_DEEP,
    UNREADABLE,
)
from pragmatikos_recorder.scan import Roots, Scanned, scan_logs
from pragmatikos_recorder.session import Kind, Tokens

from tests.data.paths import DATA_DIR
from tests.recorder.conftest import NOW, World

ROLLOUT = DATA_DIR / "codex-rollout-rtchess" / "rollout.jsonl"
ROLLOUT_NAME = "rollout-2025-11-22T21-45-35-019aad50-a7e6-7422-b7a8-0b384290624f.jsonl"
BAD_COUNT = "a token count that is not a whole number"


def real_lines() -> list[dict[str, Any]]:
    return [json.loads(line) for line in ROLLOUT.read_text().splitlines()]


def codex_home(tmp_path: Path, text: str) -> Roots:
    day = tmp_path / "codex" / "sessions" / "2025" / "11" / "22"
    day.mkdir(parents=True)
    (day / ROLLOUT_NAME).write_text(text)
    return Roots(claude=tmp_path / "claude", codex=tmp_path / "codex", aider=tmp_path / "aider")


def scan_codex(roots: Roots) -> Scanned:
    return scan_logs(("codex",), roots, now=NOW, progress=False)


def as_text(lines: list[Any]) -> str:
    return "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)


def test_the_real_rollout_reads_into_its_hand_counted_cycle(tmp_path: Path) -> None:
    scanned = scan_codex(codex_home(tmp_path, ROLLOUT.read_text()))
    [cycle] = scanned.cycles
    # Counted by hand from the 21 lines: one user_message (line 4); two steps, each a run of output items
    # after an input: reasoning + shell_command "ls" (lines 10-11, 20:48:46.593) and reasoning + "ls -la"
    # (lines 17-18, 20:48:48.949). Latencies 46.593 - 36.901 = 9.692 s and 48.949 - 46.593 = 2.356 s:
    # median 6.024. Active from 20:48:36.901 to 20:48:48.949: 12.048 s. The cwd (/Users/...) is outside the
    # scan's roots, so not looked up: no repository, tshipe 2.
    assert (cycle.model, cycle.prov, cycle.variant, cycle.hversion) == ("gpt-5.1-codex-max", "openai", "high", "0.60.1")
    assert (cycle.u, cycle.a, cycle.tedits, cycle.tver, cycle.tpaths, cycle.tshipe) == (1, 2, 0, 0, 0, 2)
    assert cycle.latmed == 6.02
    assert cycle.thrs == pytest.approx(12.048 / 3600, abs=1e-4)
    assert scanned.report.lines_skipped() == Counter()


def spent(path: Path) -> Tokens:
    """All tokens the rollout's token_count lines add up to."""
    [session] = codex.parse(path)
    events = [e.tokens for e in session.events if e.kind is Kind.TOKENS and e.tokens]
    return Tokens(*(sum(getattr(t, f) for t in events) for f in ("input", "output", "cache_read", "cache_write")))


# The totals of line 9 (3,559 in, 3,072 cached, 31 out) come again on line 14, those of line 16 (7,207,
# 6,144, 64) on line 21; so a skipped line 9 or 16 leaves the totals the rollout ends with unchanged.
REAL_TOTALS = Tokens(input=7207, output=64, cache_read=6144)


def usage_of(line: dict[str, Any]) -> dict[str, Any]:
    usage: dict[str, Any] = line["payload"]["info"]["total_token_usage"]
    return usage


def craft_count(number: int, value: Any) -> Callable[[list[Any]], None]:
    def change(lines: list[Any]) -> None:
        usage_of(lines[number - 1])["input_tokens"] = value

    return change


def craft_raw(number: int, rewrite: Callable[[str], str]) -> Callable[[list[Any]], None]:
    def change(lines: list[Any]) -> None:
        lines[number - 1] = rewrite(json.dumps(lines[number - 1]))

    return change


def craft_text(number: int, old: str, new: str) -> Callable[[list[Any]], None]:
    return craft_raw(number, lambda text: text.replace(old, new))


# Line 8 (agent_reasoning) with its text nested 100,000 lists deep.
DEEP = craft_text(8, '"**Inspecting repository**"', "[" * 100_000 + "]" * 100_000)
# Line 7's rate limit reset time (1763862524) as a 5,000-digit integer, past Python's int limit.
LONG_NUMBER = craft_text(7, "1763862524", "9" * 5000)


CRAFTED_LINES = {
    # case: (the change to the real lines, why the changed line is skipped)
    "token count 12k": (craft_count(16, "12k"), BAD_COUNT),
    "token count 1e400": (craft_text(16, '"input_tokens": 7207', '"input_tokens": 1e400'), BAD_COUNT),
    "token count lots": (craft_count(9, "lots"), BAD_COUNT),
    "token count NaN": (craft_text(9, '"input_tokens": 3559', '"input_tokens": NaN'), BAD_COUNT),
    "token count true": (craft_count(16, True), BAD_COUNT),
    "100k-deep nesting": (DEEP, TOO_DEEP),
    "5,000-digit integer": (LONG_NUMBER, NUMBER_TOO_LONG),
    "no payload object": (craft_text(15, '"payload": {', '"payload": ["x"], "was": {'), "no payload object"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(CRAFTED_LINES))
def test_a_crafted_line_costs_that_line_only(tmp_path: Path, case: str) -> None:
    change, why = CRAFTED_LINES[case]
    lines = real_lines()
    change(lines)
    roots = codex_home(tmp_path, as_text(lines))
    scanned = scan_codex(roots)
    [cycle] = scanned.cycles
    assert (cycle.u, cycle.a, cycle.latmed) == (1, 2, 6.02)  # as the real rollout: see the test above
    assert spent(next((roots.codex / "sessions").rglob("*.jsonl"))) == REAL_TOTALS
    assert scanned.report.lines_skipped() == Counter({("codex", why): 1})


def test_a_line_longer_than_the_cap_is_skipped_and_counted(tmp_path: Path) -> None:
    lines: list[Any] = real_lines()
    # After line 8, a line of the agent_reasoning shape whose text is just over the cap.
    text = json.dumps(lines[7]).replace("**Inspecting repository**", "x" * MAX_LINE_BYTES)
    lines.insert(8, text)
    scanned = scan_codex(codex_home(tmp_path, as_text(lines)))
    [cycle] = scanned.cycles
    assert (cycle.u, cycle.a, cycle.latmed) == (1, 2, 6.02)
    assert scanned.report.lines_skipped() == Counter({("codex", LINE_TOO_LONG): 1})


@pytest.mark.parametrize(
    "stamp",
    ["9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59-05:00", "0001-01-01T00:00:00+05:00"],
)
def test_a_time_no_log_can_hold_is_unknown_and_ends_nothing(tmp_path: Path, stamp: str) -> None:
    lines = real_lines()
    lines[15]["timestamp"] = stamp  # line 16, a token count at 20:48:48.947 between the two steps
    scanned = scan_codex(codex_home(tmp_path, as_text(lines)))
    [cycle] = scanned.cycles
    # Its time is unknown; the others still span 20:48:36.901 to 20:48:48.949.
    assert cycle.thrs == pytest.approx(12.048 / 3600, abs=1e-4)
    assert (cycle.a, cycle.latmed) == (2, 6.02)


def exit_code(lines: list[Any]) -> None:
    output = lines[11]["payload"]["output"]  # line 12, the output of `ls`: "Exit code: 0\n..."
    lines[11]["payload"]["output"] = output.replace("Exit code: 0", "Exit code: " + "7" * 5000)


def deep_arguments(lines: list[Any]) -> None:
    lines[10]["payload"]["arguments"] = "[" * 100_000 + "]" * 100_000  # line 11, the call of `ls`


def long_number_output(lines: list[Any]) -> None:
    lines[11]["payload"]["output"] = "9" * 5000  # line 12: an output that is one JSON number, too long


@pytest.mark.parametrize("change", [exit_code, deep_arguments, long_number_output])
def test_a_crafted_value_inside_a_tool_call_costs_nothing_but_that_value(
    tmp_path: Path, change: Callable[[list[Any]], None]
) -> None:
    lines = real_lines()
    change(lines)
    scanned = scan_codex(codex_home(tmp_path, as_text(lines)))
    [cycle] = scanned.cycles
    assert (cycle.u, cycle.a, cycle.latmed) == (1, 2, 6.02)
    assert scanned.report.lines_skipped() == Counter()
    assert scanned.report.files_skipped() == Counter()


def test_a_non_object_message_in_claude_code_costs_its_line(world: World) -> None:
    transcript = world.roots.claude / "projects" / "-repos-app" / "5b1f0c9e-2d4a-4c1e-9f3b-7a2e8d6c1b03.jsonl"
    last = json.loads(transcript.read_text().splitlines()[1])  # the prompt "Write a scratch note"
    odd = [last | {"uuid": "odd-1", "message": "hello"}, last | {"uuid": "odd-2", "message": ["a", "list"]}]
    with transcript.open("a") as handle:
        handle.write(as_text(odd))
    scanned = scan_logs(("claude-code",), world.roots, now=NOW, progress=False)
    assert len(scanned.cycles) == 5  # the fixture's five cycles (test_rows.CLAUDE_CODE), none lost
    assert scanned.report.lines_skipped() == Counter({("claude-code", "a message that is not an object"): 2})


def test_an_aider_session_started_at_no_real_time_costs_that_session(world: World) -> None:
    history = world.cli / ".aider.chat.history.md"
    extra = (
        "\n# aider chat started at 2025-13-45 99:99:99\n\n> Aider v0.86.1  \n"
        "> Main model: o3-mini with diff edit format, reasoning high  \n\n#### hello  \n\n"
        "> Tokens: 1.0k sent, 10 received. Cost: $0.01 message, $0.01 session.  \n"
        "\n# aider chat started at 2025-03-14 09:00:00\n\n> Aider v0.86.1  \n"
        "> Main model: o3-mini with diff edit format, reasoning high  \n\n#### hello  \n\n"
        "> Tokens: 1.0k sent, 10 received. Cost: $1.2.3 message, $1.2.3 session.  \n"
    )
    history.write_text(history.read_text() + extra)
    scanned = scan_logs(("aider",), world.roots, now=NOW, progress=False)
    # The fixture's three cycles; the month-13 session is passed over; the 14 March one has one step whose
    # cost "1.2.3" is no sum: not metered.
    assert [c.start.date().isoformat() for c in scanned.cycles] == [
        "2025-03-12",
        "2025-03-12",
        "2025-03-13",
        "2025-03-14",
    ]
    assert (scanned.cycles[-1].a, scanned.cycles[-1].tcost) == (1, 0.0)
    assert scanned.report.lines_skipped() == Counter({("aider", "a session start at no real time"): 1})


def run_cli_scan(roots: Roots, config: Path) -> subprocess.CompletedProcess[str]:
    """`pragmatikos-record scan` in a process of its own, so that a hang is a failed test, not a stuck run."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "PRAGMATIKOS_RECORDER_CONFIG": str(config)}
    argv = [
        "scan",
        "--claude-dir",
        str(roots.claude),
        "--codex-dir",
        str(roots.codex),
        "--aider-root",
        str(roots.aider),
    ]
    return subprocess.run(
        [sys.executable, "-c", "import sys; from pragmatikos_recorder.cli import main; sys.exit(main())", *argv],
        env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip


def test_files_that_are_no_logs_are_skipped_and_counted(tmp_path: Path) -> None:
    roots = codex_home(tmp_path, ROLLOUT.read_text())
    day = roots.codex / "sessions" / "2025" / "11" / "22"
    os.mkfifo(day / "rollout-2025-11-22T22-00-00-fifo.jsonl")  # opening it for reading would wait for ever
    (day / "rollout-2025-11-22T22-00-01-zero.jsonl").symlink_to("/dev/zero")  # endless zeros
    (day / "rollout-2025-11-22T22-00-02-gone.jsonl").symlink_to(day / "nothing-here")
    (day / "rollout-2025-11-22T22-00-03-dir.jsonl").mkdir()
    project = roots.claude / "projects" / "-x"
    project.mkdir(parents=True)
    (project / "dangling.jsonl").symlink_to(project / "nothing-here")  # Claude Code sorts its files by time
    os.mkfifo(project / "fifo.jsonl")
    roots.aider.mkdir()
    done = run_cli_scan(roots, tmp_path / "config")
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.strip().splitlines()) == 2  # the header and the real rollout's one cycle
    summary = done.stderr.splitlines()
    assert "files read: 1 (codex 1)" in summary
    assert "files skipped: 6" in summary
    assert f"  codex: 3 {NOT_REGULAR}" in summary  # the FIFO, the link to /dev/zero, the folder
    assert f"  codex: 1 {UNREADABLE}" in summary  # the dangling link
    assert f"  claude-code: 1 {NOT_REGULAR}" in summary
    assert f"  claude-code: 1 {UNREADABLE}" in summary
    assert str(tmp_path) not in done.stderr
