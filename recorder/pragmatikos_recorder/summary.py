"""What a scan read, passed over and withheld, told to the person running it.

Counts and harness names only: no path, prompt or project name. The one exception is the model
and provider names withheld from the rows, shown so that the person sees on their own machine
what is kept back (they are never sent).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from pragmatikos_recorder.cycles import Cycle
from pragmatikos_recorder.envelope import COLUMNS
from pragmatikos_recorder.privacy import safe_token
from pragmatikos_recorder.scan import Scanned


@dataclass(frozen=True, slots=True)
class ScanSummary:
    cycles: Counter[str]  # rows that would be sent, per harness
    files_read: Counter[str]
    files_without_cycles: Counter[str]  # read, but no cycle in them (no model step, a subagent's own file...)
    files_skipped: Counter[tuple[str, str]]  # (harness, why)
    lines_skipped: Counter[tuple[str, str]]  # (harness, why)
    cycles_withheld: int = 0
    # The names that withheld those cycles, and how many each; filled by whatever privacy.py withholds.
    names_withheld: Counter[str] = field(default_factory=Counter)

    def lines(self) -> list[str]:
        text = f"{sum(self.cycles.values())} cycles" + _parts(self.cycles)
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
            names = ", ".join(f"{name} ({count})" for name, count in sorted(self.names_withheld.items()))
            lines.append(f"names withheld (shown here only, never sent): {names}")
        return lines


def _parts(counts: Counter[str]) -> str:
    return f" ({', '.join(f'{key} {count}' for key, count in sorted(counts.items()))})" if counts else ""


def withheld_names(cycles: list[Cycle]) -> Counter[str]:
    """The model (or, failing that, provider) name of each cycle whose row privacy.py withholds."""
    names: Counter[str] = Counter()
    for cycle in cycles:
        if not safe_token(cycle.model):
            names[cycle.model.strip() or "(none)"] += 1
        elif not safe_token(cycle.prov):
            names[cycle.prov.strip() or "(none)"] += 1
    return names


def summarise(scanned: Scanned, rows: list[list[object]], withheld: int) -> ScanSummary:
    report = scanned.report
    return ScanSummary(
        cycles=Counter(str(row[COLUMNS.index("harness")]) for row in rows),
        files_read=report.files_read(),
        files_without_cycles=scanned.without_cycles,
        files_skipped=report.files_skipped(),
        lines_skipped=report.lines_skipped(),
        cycles_withheld=withheld,
        names_withheld=withheld_names(scanned.cycles),
    )
