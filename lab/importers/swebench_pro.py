"""SWE-Bench Pro task × model results (SWE-agent 1.1.0, October 2025), as JSON Lines.

One line per task and model: whether the patch resolved the task, and, where the trajectory
was analysed, cost, steps, edits and tokens. The grade is 1 for resolved, else 0. Tokens out
are the recounted output tokens (the reported counts undercount); seconds are tool-execution
time only, the one time the trajectories record.
"""

from pathlib import Path

from lab.importers.common import Fields, LabInputError, ParsedSource, RunRecord, json_lines, published_source

SOURCE = published_source("swebench-pro")


def parse(path: Path, source: str | None = None) -> ParsedSource:
    runs = []
    seen: set[str] = set()
    for where, row in json_lines(path):
        fields = Fields(where, row)
        task = fields.text("instance_id", required=True, length=300)
        model = fields.model("model", required=True)
        key = f"{task}:{model}"
        if key in seen:
            raise LabInputError(where, f"{task} with {model} is listed twice")
        seen.add(key)
        resolved = row.get("resolved")
        if not isinstance(resolved, bool):
            raise LabInputError(where, f"resolved must be true or false, not {resolved!r}")
        stats = row.get("has_trajectory_stats") is True
        runs.append(
            RunRecord(
                key=key,
                task=task,
                model=model,
                harness=fields.harness(),
                effort=fields.effort(),
                grade=1.0 if resolved else 0.0,
                grade_max=1.0,
                resolved=resolved,
                seconds=fields.number("tool_time_seconds") if stats else None,
                tokens_in=fields.count("tokens_sent") if stats else None,
                tokens_out=fields.count("output_tokens_recounted") if stats else None,
                cost_usd=fields.number("cost_usd") if stats else None,
                day=fields.day("day"),
                extras={
                    "task_repo": row.get("task_repo"),
                    "submitted": row.get("submitted"),
                    "steps": row.get("steps"),
                    "edits": row.get("edits"),
                },
            )
        )
    return ParsedSource(source=SOURCE.named(source), runs=runs)
