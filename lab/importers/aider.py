"""aider's benchmark runs: its leaderboard YAML as published (`aider/website/_data/*.yml`) or the
JSON Lines copy of those rows.

Each row is one aggregate run of aider with one model (or, with `edit_format: architect`, an
architect model planning and an editor model building) over one exercise set: 225 polyglot
exercises, 133 Python (Exercism) exercises, or 89 refactoring exercises. The grade is
`pass_rate_2`, the percent of exercises passed within two tries. Model names come from the
`--model` / `--editor-model` of the row's command where it names one, else from the row's label.
"""

import re
import shlex
from pathlib import Path
from typing import Any

import yaml

from lab.importers import common
from lab.importers.common import Fields, LabInputError, ParsedSource, RunRecord, json_lines, published_source

SOURCE = published_source("aider")
_LABEL_EFFORT = re.compile(r"\((minimal|low|medium|high|xhigh|max)\)")


def _task(row: dict[str, Any], file_name: str) -> str:
    benchmark = row.get("benchmark")
    if isinstance(benchmark, str) and benchmark:
        return benchmark
    cases = row.get("test_cases")
    if "refactor" in file_name:
        return "refactor_89"
    if "polyglot" in file_name or (isinstance(cases, int) and cases >= 200):
        return "polyglot_225"
    return "exercism_python_133"


def _flag(command: str, flag: str) -> str:
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    for i, word in enumerate(words):
        if word == flag and i + 1 < len(words):
            return words[i + 1]
        if word.startswith(flag + "="):
            return word.split("=", 1)[1]
    return ""


def row_to_run(where: str, row: dict[str, Any], file_name: str) -> RunRecord:
    fields = Fields(where, row)
    dirname = fields.text("dirname", required=True, length=300)
    label = fields.text("model", required=True, length=300)
    command = fields.text("command", length=1000)
    pass_rate = fields.number("pass_rate_2")
    if pass_rate is not None and pass_rate > 100:
        raise LabInputError(where, f"pass_rate_2 must be at most 100, not {pass_rate:g}")
    cases = fields.count("test_cases")
    per_case = fields.number("seconds_per_case")
    cost = fields.number("total_cost")
    architect = row.get("edit_format") == "architect"
    # The label of a pairing names both ("QwQ + Haiku"); the command names the architect.
    main = _flag(command, "--model") or label.split(" + ")[0]
    model = common.model_name(where, "model", _LABEL_EFFORT.sub("", main), required=True)
    editor = fields.model("editor_model") if architect else ""
    effort = row.get("reasoning_effort")
    if not effort:
        found = _LABEL_EFFORT.search(label)
        effort = found.group(1) if found else ""
    prompt_tokens = fields.count("prompt_tokens")
    completion_tokens = fields.count("completion_tokens")
    return RunRecord(
        key=dirname,
        task=_task(row, file_name),
        model=model,
        planner=model if architect and editor else "",
        builder=editor if architect else "",
        harness="aider",
        effort=common.text(where, "reasoning_effort", str(effort), length=common.EFFORT_LENGTH),
        grade=pass_rate,
        grade_max=100.0 if pass_rate is not None else None,
        seconds=per_case * cases if per_case is not None and cases is not None else None,
        tokens_in=prompt_tokens,
        tokens_out=completion_tokens,
        cost_usd=cost if cost else None,
        day=fields.day("date"),
        extras={
            "label": label,
            "edit_format": str(row.get("edit_format") or ""),
            "test_cases": cases,
            "seconds_per_case": per_case,
            "pass_rate_1": fields.number("pass_rate_1"),
            "versions": str(row.get("versions") or ""),
            "file": row.get("source_file") or file_name,
        },
    )


def _yaml_rows(path: Path) -> list[tuple[str, dict[str, Any]]]:
    """(where, row) for each entry of one leaderboard YAML file, where naming the entry's line."""
    try:
        source = path.read_text(encoding="utf-8")
    except OSError as error:
        raise LabInputError(str(path), f"cannot read it ({error.strerror})") from error
    try:
        nodes = yaml.compose(source, Loader=yaml.SafeLoader)
        rows = yaml.safe_load(source)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        raise LabInputError(where, f"not YAML ({getattr(error, 'problem', None) or error})") from error
    if rows is None:
        return []
    if not isinstance(rows, list) or not isinstance(nodes, yaml.SequenceNode):
        raise LabInputError(f"{path}:1", "a leaderboard file is a list of runs")
    found = []
    for node, row in zip(nodes.value, rows, strict=True):
        where = f"{path}:{node.start_mark.line + 1}"
        if not isinstance(row, dict):
            raise LabInputError(where, "each entry must be a mapping")
        found.append((where, row))
    return found


def parse(path: Path, source: str | None = None) -> ParsedSource:
    if path.is_dir():
        files = sorted(path.glob("*.yml")) + sorted(path.glob("*.yaml"))
        if not files:
            raise LabInputError(str(path), "no *.yml files in this folder")
        rows = [(where, row, f.name) for f in files for where, row in _yaml_rows(f)]
    elif path.suffix in (".yml", ".yaml"):
        rows = [(where, row, path.name) for where, row in _yaml_rows(path)]
    else:
        rows = [(where, row, path.name) for where, row in json_lines(path)]
    runs: dict[str, RunRecord] = {}
    for where, row, file_name in rows:
        run = row_to_run(where, row, file_name)
        # aider lists some runs in more than one file: one run, kept once.
        runs.setdefault(run.key, run)
    return ParsedSource(source=SOURCE.named(source), runs=list(runs.values()))
