"""A crafted log costs bounded memory: lines are weighed before json.loads, files by the values they add up to.

`[{},{},…]` is 3 bytes of text and about 70 bytes of Python per dict: a 198 MB file of three such lines
once took minutes and gigabytes. The real lines come from the real rollout (tests/data/codex-rollout-rtchess)
and the real Claude Code and Codex samples in tests/data. aider histories are text, bounded by their lines.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from pragmatikos_recorder import aider, jsonl
from pragmatikos_recorder.jsonl import (
    FILE_TOO_MANY_VALUES,
    MAX_DEPTH,
    MAX_LINE_BYTES,
    MAX_LINE_VALUES,
    NOT_JSON,
    TOO_DEEP,
    TOO_MANY_VALUES,
    weigh,
)
from pragmatikos_recorder.skips import Reading, Skipped

from tests.data.paths import DATA_DIR
from tests.recorder.test_crafted_logs import as_text, codex_home, real_lines, scan_codex

PEAK_RSS_BOUND_KB = 300 << 10  # the interpreter ~40 MB, one 64 MiB line read (twice while read), its weighing
TIME_BOUND_S = 60.0  # about 3 s on an idle laptop; the unweighed reader took 74 s (277 s on a busy test box)


def nodes_and_empty_containers(value: Any) -> tuple[int, int]:
    """How many values json.loads made (the line itself included), and how many of them are empty containers."""
    stack, nodes, empty = [value], 0, 0
    while stack:
        item = stack.pop()
        nodes += 1
        children = list(item.values()) if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is not None:
            empty += not children
            stack.extend(children)
    return nodes, empty


def real_sample_lines() -> list[bytes]:
    paths = sorted((DATA_DIR / "claude-code").rglob("*.jsonl")) + sorted((DATA_DIR / "codex").glob("*.jsonl"))
    return [line for path in paths for line in path.read_bytes().splitlines() if line.strip()]


def test_every_real_line_is_weighed_exactly_and_parsed() -> None:
    lines = real_sample_lines()
    assert len(lines) > 200
    for line in lines:
        values, why = weigh(line)
        assert why is None
        nodes, empty = nodes_and_empty_containers(json.loads(line))
        # A comma before each value but the first of a container, a bracket opening each container: the
        # count is the values but the line itself, plus one for each empty container (a bracket, no value).
        if values > MAX_DEPTH:  # below that the count is the quick one, strings' contents included
            assert values == nodes - 1 + empty


@pytest.mark.parametrize(
    "value",
    [
        ["[{,", 'a "quoted" [', "\\", "\\\\[", '\\"{'] * 40,  # brackets, commas, quotes and escapes in strings
        {"patch": ["{" * 300, "]" * 300], "n": [1, 2.5, None, True, {}, []]},
        [[[]]] * 200,
    ],
)
def test_brackets_and_escapes_inside_strings_are_not_counted(value: Any) -> None:
    line = json.dumps(value).encode()
    nodes, empty = nodes_and_empty_containers(value)
    assert weigh(line) == (nodes - 1 + empty, None)


def test_nesting_is_refused_before_parsing_past_the_depth_limit() -> None:
    assert weigh(b"[" * MAX_DEPTH + b"]" * MAX_DEPTH)[1] is None
    assert weigh(b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1))[1] == TOO_DEEP
    assert weigh(b'{"a":' * (MAX_DEPTH + 1) + b"1" + b"}" * (MAX_DEPTH + 1))[1] == TOO_DEEP
    # Deep only inside a string: a value like any other.
    assert weigh(json.dumps(["[" * 100_000]).encode())[1] is None
    # Cut short while being written: left open.
    assert weigh(b'{"a": [' + b"1," * 200)[1] == NOT_JSON


def dicts(count: int) -> str:
    return "[" + ",".join(["{}"] * count) + "]"


def test_a_line_of_too_many_values_costs_that_line_only(tmp_path: Path) -> None:
    lines: list[Any] = real_lines()
    lines.insert(8, dicts(MAX_LINE_VALUES))  # just over: the outer list's bracket makes one more
    lines.insert(9, json.dumps(["ab"] * (2 * MAX_LINE_VALUES + 1)))  # strings: over by their quotes alone
    lines.insert(10, json.dumps({"payload": ["ab"] * MAX_LINE_VALUES}))  # over once the strings are counted
    scanned = scan_codex(codex_home(tmp_path, as_text(lines)))
    [cycle] = scanned.cycles
    assert (cycle.u, cycle.a, cycle.latmed) == (1, 2, 6.02)  # as the real rollout: see test_crafted_logs
    assert scanned.report.lines_skipped() == Counter({("codex", TOO_MANY_VALUES): 3})


def test_a_line_whose_strings_hold_many_brackets_is_read(tmp_path: Path) -> None:
    lines = real_lines()
    # Line 8's reasoning text as a 1.2 MB block of code-like text: one string, a handful of values.
    lines[7]["payload"]["text"] = "{[,]}" * 250_000
    scanned = scan_codex(codex_home(tmp_path, as_text(lines)))
    [cycle] = scanned.cycles
    assert (cycle.u, cycle.a, cycle.latmed) == (1, 2, 6.02)
    assert scanned.report.lines_skipped() == Counter()


def test_a_file_whose_lines_add_up_to_too_many_values_is_read_no_further(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = real_lines()
    first_ten = sum(weigh(json.dumps(line).encode())[0] for line in lines[:10])
    monkeypatch.setattr(jsonl, "MAX_FILE_VALUES", first_ten)  # the bound is met by line 10; line 11 passes it
    scanned = scan_codex(codex_home(tmp_path, as_text(lines)))
    assert scanned.report.files_skipped() == Counter({("codex", FILE_TOO_MANY_VALUES): 1})
    assert scanned.report.files_read() == Counter()


def crafted_claude_home(base: Path) -> Path:
    """Three lines just under the line cap, each one array of `{}`: 192 MiB, 67 million dicts if parsed."""
    project = base / "claude" / "projects" / "-crafted"
    project.mkdir(parents=True)
    count = (MAX_LINE_BYTES - 3) // 3
    line = b"[" + b"{}," * (count - 1) + b"{}]\n"
    assert MAX_LINE_BYTES - 3 <= len(line) <= MAX_LINE_BYTES
    with (project / "5b1f0c9e-0000-4000-8000-000000000000.jsonl").open("wb") as handle:
        for _ in range(3):
            handle.write(line)
    return base / "claude"


# VmHWM, not getrusage's ru_maxrss: that keeps the peak of the process forked from, pytest's own.
SCAN_AND_TELL_PEAK = (
    "import sys\n"
    "from pathlib import Path\n"
    "from pragmatikos_recorder.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "status = Path('/proc/self/status').read_text().splitlines()\n"
    "[peak] = [line.split()[1] for line in status if line.startswith('VmHWM:')]\n"
    "print('peak-rss-kb', peak, file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def test_the_crafted_file_is_scanned_in_bounded_memory_and_time(tmp_path: Path) -> None:
    claude = crafted_claude_home(tmp_path)
    done, peak, took = run_and_tell_peak(["scan", "--harness", "claude-code", "--claude-dir", str(claude)], tmp_path)
    assert f"  claude-code: 3 {TOO_MANY_VALUES}" in done.stderr.splitlines()
    assert peak < PEAK_RSS_BOUND_KB, f"peak RSS {peak >> 10} MB"
    assert took < TIME_BOUND_S, f"took {took:.1f} s"


def run_and_tell_peak(argv: list[str], config: Path) -> tuple[subprocess.CompletedProcess[str], int, float]:
    """`pragmatikos-record ARGV` in a process of its own: its result, peak RSS in KB and seconds taken."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "PRAGMATIKOS_RECORDER_CONFIG": str(config)}
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", SCAN_AND_TELL_PEAK, *argv],
        env=env, capture_output=True, text=True, timeout=4 * TIME_BOUND_S, check=False,
    )  # fmt: skip
    took = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    [peak] = [int(line.split()[1]) for line in done.stderr.splitlines() if line.startswith("peak-rss-kb ")]
    return done, peak, took


def test_an_aider_history_of_millions_of_short_lines_is_scanned_in_bounded_memory(tmp_path: Path) -> None:
    repo = tmp_path / "aider" / "repo"
    repo.mkdir(parents=True)
    # 60 MB of 2-byte lines: ~200 bytes of Python each once kept, 4 GB before the line bound.
    (repo / aider.HISTORY_NAME).write_bytes(b"# aider chat started at 2025-03-01 10:00:00\n" + b"ab\n" * 20_000_000)
    done, peak, took = run_and_tell_peak(
        ["scan", "--harness", "aider", "--aider-root", str(tmp_path / "aider")], tmp_path
    )
    assert f"  aider: 1 {aider.TOO_MANY_LINES}" in done.stderr.splitlines()
    assert peak < PEAK_RSS_BOUND_KB, f"peak RSS {peak >> 10} MB"
    assert took < TIME_BOUND_S, f"took {took:.1f} s"


def test_a_history_is_read_up_to_the_line_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    history = tmp_path / aider.HISTORY_NAME
    history.write_bytes((DATA_DIR / "aider" / "kevinmatz-AiderExperiments.md").read_bytes())
    lines = len(history.read_bytes().splitlines())
    monkeypatch.setattr(aider, "MAX_HISTORY_LINES", lines)
    assert aider.read(history).skipped is None
    monkeypatch.setattr(aider, "MAX_HISTORY_LINES", lines - 1)
    assert aider.read(history) == Reading(skipped=Skipped(history, aider.TOO_MANY_LINES))
