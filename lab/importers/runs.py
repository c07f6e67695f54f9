"""The open runs format: one JSON object per line, one run per object, that any lab can export.

    {"task", "model", "grade", "grade_max", "seconds", "tokens_in", "tokens_out", "cost_usd",
     "harness", "day"}  plus optional "planner", "builder", "effort"

`task`, `model` and `harness` are strings (task and model required); `grade` and `grade_max` are
numbers or null (a grade needs its grade_max, and is at most it); seconds, tokens and cost are
non-negative numbers or null; `day` is YYYY-MM-DD or null. A pairing names both planner and
builder. Other keys are kept as the run's extras. A run's identity is its content, so importing
the same file twice stores each run once.
"""

import hashlib
import json
from pathlib import Path

from lab.importers.common import KEY_LENGTH, Fields, LabInputError, ParsedSource, RunRecord, SourceInfo, json_lines

FIELDS = ("task", "model", "grade", "grade_max", "seconds", "tokens_in", "tokens_out", "cost_usd", "harness", "day")
OPTIONAL = ("planner", "builder", "effort")
# Keys of our own export that are not part of a run (the export names its source on every line).
IGNORED = ("source",)


def parse(path: Path, source: str | None = None) -> ParsedSource:
    name = source or path.stem.replace("_", "-").lower()
    runs = []
    seen: dict[str, int] = {}
    for where, row in json_lines(path):
        missing = [f for f in FIELDS if f not in row]
        if missing:
            raise LabInputError(where, f"missing {', '.join(missing)}")
        fields = Fields(where, row)
        grade = fields.number("grade", minimum=None)
        grade_max = fields.number("grade_max")
        if grade is not None:
            if grade_max is None or grade_max <= 0:
                raise LabInputError(where, "a grade needs a positive grade_max")
            if not 0 <= grade <= grade_max:
                raise LabInputError(where, f"grade must be between 0 and grade_max ({grade_max:g}), not {grade:g}")
        planner = fields.model("planner")
        builder = fields.model("builder")
        if bool(planner) != bool(builder):
            raise LabInputError(where, "a pairing names both planner and builder")
        digest = hashlib.sha256(json.dumps(row, sort_keys=True).encode()).hexdigest()[:20]
        seen[digest] = seen.get(digest, 0) + 1
        key = digest if seen[digest] == 1 else f"{digest}#{seen[digest]}"
        extras = {k: v for k, v in row.items() if k not in FIELDS + OPTIONAL + IGNORED}
        runs.append(
            RunRecord(
                key=key,
                task=fields.text("task", required=True, length=KEY_LENGTH),
                model=fields.model("model", required=True),
                planner=planner,
                builder=builder,
                harness=fields.text("harness"),
                effort=fields.effort(),
                grade=grade,
                grade_max=grade_max if grade is not None else None,
                seconds=fields.number("seconds"),
                tokens_in=fields.count("tokens_in"),
                tokens_out=fields.count("tokens_out"),
                cost_usd=fields.number("cost_usd"),
                day=fields.day("day"),
                extras=extras,
            )
        )
    if not runs:
        raise LabInputError(str(path), "no runs in this file")
    info = SourceInfo(
        name=name, title=name, origin=path.name, commit="", grade_words="as the lab grades its tasks", caveats=""
    )
    return ParsedSource(source=info, runs=runs)
