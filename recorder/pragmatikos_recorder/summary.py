"""What a scan read, passed over and withheld, told to the person running it.

Counts and harness names only: no path, prompt or project name. The one exception is the model
and provider names withheld from the rows, shown so that the person sees on their own machine
what is kept back (they are never sent).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from pragmatikos_recorder.envelope import COLUMNS, Rows
from pragmatikos_recorder.scan import Scanned
from pragmatikos_recorder.words import count


@dataclass(frozen=True, slots=True)
class ScanSummary:
    cycles: Counter[str] = field(default_factory=Counter)  # rows that would be sent, per harness
    files_read: Counter[str] = field(default_factory=Counter)
    # Read, but no cycle in them (no model step, a subagent's own file...).
    files_without_cycles: Counter[str] = field(default_factory=Counter)
    files_skipped: Counter[tuple[str, str]] = field(default_factory=Counter)  # (harness, why)
    lines_skipped: Counter[tuple[str, str]] = field(default_factory=Counter)  # (harness, why)
    cycles_withheld: int = 0
    # Model and provider names not sent (the row withheld, or its planner or builder left empty).
    names_withheld: frozenset[str] = field(default_factory=frozenset)

    def lines(self) -> list[str]:
        text = count(sum(self.cycles.values()), "cycle") + _parts(self.cycles)
        if self.cycles_withheld:
            text += f"; {self.cycles_withheld} withheld because a model name could identify something"
        lines = [text]
        read = _parts(self.files_read)
        if self.files_without_cycles:
            read += f", of which without a cycle{_parts(self.files_without_cycles)}"
        lines.append(f"files read: {sum(self.files_read.values())}{read}")
        for title, counts in (("files skipped", self.files_skipped), ("lines skipped", self.lines_skipped)):
            if counts:
                lines.append(f"{title}: {sum(counts.values())}")
                lines.extend(f"  {harness}: {count} {why}" for (harness, why), count in sorted(counts.items()))
        if self.names_withheld:
            lines.append(
                "names not sent (unknown to the public lists, or shaped like a private value; "
                f"--allow-name NAME sends a public one): {', '.join(sorted(self.names_withheld))}"
            )
        return lines


def _parts(counts: Counter[str]) -> str:
    return f" ({', '.join(f'{key} {count}' for key, count in sorted(counts.items()))})" if counts else ""


def summarise(scanned: Scanned, built: Rows) -> ScanSummary:
    report = scanned.report
    return ScanSummary(
        cycles=Counter(str(row[COLUMNS.index("harness")]) for row in built.rows),
        files_read=report.files_read(),
        files_without_cycles=scanned.without_cycles,
        files_skipped=report.files_skipped(),
        lines_skipped=report.lines_skipped(),
        cycles_withheld=built.withheld,
        names_withheld=built.withheld_names,
    )
