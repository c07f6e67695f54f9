"""akitaonrails/llm-coding-benchmark, read from its own run folders.

A run lives in `results*/<slug>/`: `result.json` (with a `phases` list, or the last phase's
facts beside `phase*-result.json` / `phaseN.result.json` files), or only phase files, or an
`orchestration_log.jsonl` (manual orchestration). Time, tokens, cost and day come from those
files. The rubric grades, and which model planned and which built, are published only in the
authors' written reports: they come from `grades.jsonl` in the same folder, one line per run
folder (derived from the reports; see lab/data/SOURCE.md).

Tokens in are input + cache reads + cache writes (everything the model read); tokens out are
output tokens. Before the runner fix of 2026-08-01, v1 opencode runs recorded only each
phase's last step (the source's own caveat).
"""

import re
from pathlib import Path
from typing import Any

from lab.importers.common import Fields, LabInputError, ParsedSource, RunRecord, json_lines, published_source, read_json

GRADES_FILE = "grades.jsonl"
SCORED_SCALES = {"v1_0_100": "v1", "v1_0_100_informal": "v1", "v2_0_100": "v2"}
TASKS = {
    "v1": "rails-rubyllm-chat-v1",
    "v2": "rails-rubyllm-chat-v2",
}
_PHASE_FILE = re.compile(r"^phase(\d+)[-.]result\.json$")

SOURCE = published_source("akita")


def _phase_files(folder: Path) -> list[Path]:
    found = [(int(m.group(1)), p) for p in folder.iterdir() if (m := _PHASE_FILE.match(p.name))]
    return [p for _, p in sorted(found)]


def _tokens(where: str, tokens: object) -> tuple[int | None, int | None]:
    if not isinstance(tokens, dict):
        return None, None
    fields = Fields(where, tokens, prefix="tokens.")
    cache = fields.nested("cache")
    read_parts = [fields.count("input")]
    read_parts += [cache.count(k, name="tokens.cache") for k in ("read", "write")]
    known = [p for p in read_parts if p is not None]
    return (sum(known) if known else None), fields.count("output")


def _sum(values: list[Any]) -> Any:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def _from_phases(where: str, phases: list[dict[str, Any]]) -> dict[str, Any]:
    tokens = [_tokens(where, p.get("tokens")) for p in phases]
    phase_fields = [Fields(where, p) for p in phases]
    return {
        "seconds": _sum([f.number("elapsed_seconds") for f in phase_fields]),
        "tokens_in": _sum([t[0] for t in tokens]),
        "tokens_out": _sum([t[1] for t in tokens]),
        "cost_usd": _sum([f.number("cost_usd") for f in phase_fields]),
        "day": phase_fields[0].day("started_at") if phases else None,
        "phases": len(phases),
    }


def _reported(cost: float | None) -> float | None:
    """Subscription harnesses record a cost of 0: that is not metered, not free."""
    return cost if cost else None


def _from_phase_files(paths: list[Path]) -> dict[str, Any]:
    phases: list[dict[str, Any]] = []
    for path in paths:
        phase = read_json(path)
        if not isinstance(phase, dict):
            raise LabInputError(str(path), "a phase file must hold one JSON object")
        # A later phase that started before the one it follows is left over from an earlier attempt.
        started, before = str(phase.get("started_at") or ""), str(phases[-1].get("started_at") or "") if phases else ""
        if started and before and started < before:
            continue
        phases.append(phase)
    facts = _from_phases(str(paths[0]), phases)
    facts["cost_usd"] = _reported(facts["cost_usd"])
    return facts


def _claude_code(where: str, result: dict[str, Any]) -> dict[str, Any]:
    fields = Fields(where, result)
    usage = fields.nested("usage_total")
    read = [usage.count(k) for k in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")]
    return {
        "seconds": fields.number("elapsed_seconds"),
        "tokens_in": _sum(read),
        "tokens_out": usage.count("output_tokens"),
        "cost_usd": _reported(fields.number("total_cost_usd")),
        "day": fields.day("started_at"),
        "phases": 1,
    }


def _orchestration(path: Path) -> dict[str, Any]:
    steps = list(json_lines(path))
    facts = [
        (
            Fields(where, step).number("elapsed_s"),
            *_tokens(where, _as_phase_tokens(step.get("executor_tokens"))),
            Fields(where, step).number("executor_cost_usd"),
        )
        for where, step in steps
    ]
    first = steps[0] if steps else (str(path), {})
    return {
        "seconds": _sum([f[0] for f in facts]),
        "tokens_in": _sum([f[1] for f in facts]),
        "tokens_out": _sum([f[2] for f in facts]),
        "cost_usd": _reported(_sum([f[3] for f in facts])),
        "day": Fields(*first).day("started_at"),
        "phases": len(steps),
    }


def _as_phase_tokens(tokens: object) -> object:
    """The orchestration log's executor_tokens in the phase files' shape."""
    if not isinstance(tokens, dict):
        return None
    return {
        "input": tokens.get("input"),
        "output": tokens.get("output"),
        "cache": {"read": tokens.get("cache_read"), "write": tokens.get("cache_write")},
    }


def run_facts(folder: Path) -> dict[str, Any]:
    """Seconds, tokens, cost and day of one run folder, from whichever files it has."""
    result_path = folder / "result.json"
    if result_path.exists():
        result = read_json(result_path)
        where = str(result_path)
        if not isinstance(result, dict):
            raise LabInputError(where, "result.json must hold one JSON object")
        phases = [p for p in result.get("phases") or [] if isinstance(p, dict)]
        phase_files = _phase_files(folder)
        # A resumed run's result.json may list only the phases of its last attempt: the phase files hold all.
        if phases and len(phases) >= len(phase_files):
            facts = _from_phases(where, phases)
            total = Fields(where, result).number("elapsed_seconds_total")
            facts["seconds"] = total if total is not None else facts["seconds"]
            cost = Fields(where, result).number("cost_usd_total")
            facts["cost_usd"] = _reported(cost if cost is not None else facts["cost_usd"])
            return facts
        if "usage_total" in result:
            return _claude_code(where, result)
        if phases:
            facts = _from_phase_files(phase_files)
            # The authors' corrected total (from cumulative costs) over the sum of phase costs, where given.
            cost = Fields(where, result).number("cost_usd_total")
            facts["cost_usd"] = _reported(cost if cost is not None else facts["cost_usd"])
            return facts
    phase_files = _phase_files(folder)
    if phase_files:
        return _from_phase_files(phase_files)
    log = folder / "orchestration_log.jsonl"
    if log.exists():
        return _orchestration(log)
    raise LabInputError(str(folder), "no result.json, phase result files or orchestration_log.jsonl")


def parse(path: Path, source: str | None = None) -> ParsedSource:
    if not path.is_dir():
        raise LabInputError(str(path), "the akita format reads the benchmark's folder (holding results*/)")
    grades_path = path / GRADES_FILE
    if not grades_path.exists():
        raise LabInputError(str(grades_path), "missing: the grades from the authors' reports, one line per run")
    graded: dict[str, tuple[str, dict[str, Any]]] = {}
    for where, line in json_lines(grades_path):
        fields = Fields(where, line)
        folder = fields.text("folder", required=True)
        slug = fields.text("slug", required=True)
        if not folder.startswith("results") or "/" in folder or "/" in slug or slug.startswith("."):
            raise LabInputError(where, f"not a run folder: {folder}/{slug}")
        key = f"{folder}/{slug}"
        if key in graded:
            raise LabInputError(where, f"{key} is listed twice")
        graded[key] = (where, line)
    on_disk = {f"{d.parent.name}/{d.name}" for d in path.glob("results*/*") if d.is_dir()}
    unlisted = sorted(on_disk - graded.keys())
    if unlisted:
        raise LabInputError(str(path / unlisted[0]), f"run folder has no line in {GRADES_FILE}")
    runs = []
    for key, (where, line) in graded.items():
        run_folder = path / key
        if not run_folder.is_dir():
            raise LabInputError(where, f"no run folder {key}")
        runs.append(_run(key, where, line, run_facts(run_folder)))
    return ParsedSource(source=SOURCE.named(source), runs=runs)


def _run(key: str, where: str, line: dict[str, Any], facts: dict[str, Any]) -> RunRecord:
    fields = Fields(where, line)
    scale = fields.text("rubric_scale")
    version = SCORED_SCALES.get(scale) or ("v2" if scale.startswith("v2") or key.startswith("results-v2/") else "v1")
    score = fields.number("rubric_score")
    if score is not None and score > 100:
        raise LabInputError(where, f"rubric_score must be at most 100, not {score:g}")
    graded = scale in SCORED_SCALES and score is not None
    variant = fields.text("variant")
    planner = fields.model("planner_model")
    builder = fields.model("executor_model")
    paired = bool(planner and builder) and variant != "solo"
    extras = {
        "variant": variant,
        "label": fields.text("label", length=200),
        "rubric_scale": scale,
        "score_source": line.get("score_source"),
        "phases": facts["phases"],
    }
    contributed = line.get("delegation_executor_contributed")
    if paired and contributed in ("yes", "no"):
        extras["builder_contributed"] = contributed == "yes"
    return RunRecord(
        key=key,
        task=TASKS[version],
        model=fields.model("model", required=True),
        planner=planner if paired else "",
        builder=builder if paired else "",
        harness=fields.harness(),
        effort=fields.effort(),
        grade=score if graded else None,
        grade_max=100.0 if graded else None,
        seconds=facts["seconds"],
        tokens_in=facts["tokens_in"],
        tokens_out=facts["tokens_out"],
        cost_usd=facts["cost_usd"],
        day=facts["day"],
        extras=extras,
    )
