"""Finding the logs of each harness and turning them into cycles."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Final

from pragmatikos_recorder import aider, amp, claude_code, cline, codex, copilot_cli, gemini_cli, goose, opencode
from pragmatikos_recorder.cycles import Cycle, cycle_facts
from pragmatikos_recorder.git_ship import ShipJudge, only_under
from pragmatikos_recorder.jsonl import ReadReport, reporting_to, skip_file
from pragmatikos_recorder.progress import Progress
from pragmatikos_recorder.session import Session
from pragmatikos_recorder.skips import Reading

HARNESSES: Final = ("claude-code", "codex", "aider", "opencode", "gemini-cli", "copilot-cli", "cline", "goose", "amp")


@dataclass(frozen=True, slots=True)
class Roots:
    """Where each harness keeps its logs (aider: the folder searched for history files).

    They also bound what git may read: a repository (or a path a log names) outside all three is
    not looked up. By default the aider root is the home folder, so that is every repository in it;
    there, unlike under a root the person named, only histories in repositories where they
    committed are read (`aider.yours`).
    """

    claude: Path
    codex: Path
    aider: Path
    aider_named: bool = True
    # The agents read beside the first three; None: not looked for.
    opencode: Path | None = None
    gemini: Path | None = None
    copilot: Path | None = None
    cline: tuple[Path, ...] = ()  # extension folders (Cline, Roo Code, Kilo Code) holding tasks/
    goose: tuple[Path, ...] = ()  # folders holding Goose's sessions/ (or sessions.db)
    amp: tuple[Path, ...] = ()  # folders holding Amp's threads/ (or thread exports)

    @classmethod
    def defaults(cls) -> Roots:
        return cls(
            claude_code.default_root(),
            codex.default_root(),
            aider.default_root(),
            aider_named=False,
            opencode=opencode.default_root(),
            gemini=gemini_cli.default_root(),
            copilot=copilot_cli.default_root(),
            cline=cline.default_roots(),
            goose=goose.default_roots(),
            amp=amp.default_roots(),
        )

    def all(self) -> tuple[Path, ...]:
        """Every root set: git reads repositories under these only."""
        more = (self.opencode, self.gemini, self.copilot)
        named = (self.claude, self.codex, self.aider, *(root for root in more if root is not None))
        return (*named, *self.cline, *self.goose, *self.amp)


Parser = Callable[[Path], list[Session]]


def find(harness: str, roots: Roots) -> tuple[list[Path], Parser]:
    if harness == "opencode":
        paths = opencode.find_logs(roots.opencode) if roots.opencode else []
        stored = opencode.index_subagents(paths)
        return paths, lambda path: _sessions(opencode.read(path, stored))
    if harness == "copilot-cli":
        paths = copilot_cli.find_logs(roots.copilot) if roots.copilot else []
        return paths, lambda path: _sessions(copilot_cli.read(path))
    if harness == "gemini-cli":
        paths = gemini_cli.find_logs(roots.gemini) if roots.gemini else []
        return paths, lambda path: _sessions(gemini_cli.read(path))
    if harness == "claude-code":
        seen = claude_code.Seen()  # shared by the scan's files: resumed sessions repeat older ones
        return claude_code.find_logs(roots.claude), lambda path: claude_code.parse(path, seen)
    if harness == "codex":
        paths = codex.find_logs(roots.codex)
        subagents = codex.index_subagents(paths)
        return paths, lambda path: _sessions(codex.read(path, subagents))
    if harness == "cline":
        return cline.find_logs(roots.cline), lambda path: _sessions(cline.read(path))
    if harness == "goose":
        return goose.find_logs(roots.goose), lambda path: _sessions(goose.read(path))
    if harness == "amp":
        return amp.find_logs(roots.amp), lambda path: _sessions(amp.read(path))
    commits = aider.CommitTimes()  # shared by the scan's histories: one `git log` per repository
    histories = aider.find_logs(roots.aider)
    if not roots.aider_named:
        histories = aider.yours(histories)
    return histories, lambda path: _sessions(aider.read(path, commits))


def _sessions(reading: Reading) -> list[Session]:
    """A reader's sessions; a file it left out is told in the scan's summary, with why."""
    if reading.skipped is not None:
        skip_file(reading.skipped.path, reading.skipped.reason)
    return reading.sessions


def _last_time(session: Session) -> datetime | None:
    times = [e.ts for e in session.events if e.ts is not None]
    return max(times) if times else None


READER_FAILED: Final = "its reader stopped on it"
UNLISTED: Final = "its log folder could not be listed"


@dataclass(frozen=True, slots=True)
class Scanned:
    """A scan's cycles, what it read and passed over, and the files that gave no cycle, per harness."""

    cycles: list[Cycle]
    report: ReadReport
    without_cycles: Counter[str]


def scan_logs(
    harnesses: tuple[str, ...],
    roots: Roots,
    *,
    since_days: int | None = None,
    now: datetime | None = None,
    progress: bool = True,
) -> Scanned:
    """Every harness's logs under `roots` as cycles; git reads only repositories under `roots`."""
    now = now or datetime.now(UTC)
    oldest = now - timedelta(days=since_days) if since_days is not None else None
    report = ReadReport()
    without_cycles: Counter[str] = Counter()
    cycles: list[Cycle] = []
    with only_under(roots.all()):
        found: list[tuple[str, Path, Parser]] = []
        for harness in harnesses:
            with reporting_to(report, harness):
                found.extend((harness, path, parser) for path, parser in _paths(harness, roots, report))
        bar = Progress(len(found), "reading logs") if progress else None
        judge = ShipJudge(now)
        for harness, path, parser in found:
            with reporting_to(report, harness):
                got = _cycles_of(path, parser, judge, oldest, report, harness)
            cycles.extend(got)
            if not got and path in report.read and path not in report.skipped_files:
                without_cycles[harness] += 1
            if bar:
                bar.advance()
        if bar:
            bar.close()
    return Scanned(cycles, report, without_cycles)


def _cycles_of(
    path: Path, parser: Parser, judge: ShipJudge, oldest: datetime | None, report: ReadReport, harness: str
) -> list[Cycle]:
    """One file's cycles. A file its reader cannot get through costs that file only, never the scan."""
    try:
        cycles = []
        for session in parser(path):
            last = _last_time(session)
            if oldest is not None and (last is None or last < oldest):
                continue
            cycles.extend(cycle_facts(session, judge))
        return cycles
    except Exception:  # the last guard: whatever a crafted log provokes, the scan goes on
        report.skipped_files[path] = (harness, READER_FAILED)
        return []


def _paths(harness: str, roots: Roots, report: ReadReport) -> list[tuple[Path, Parser]]:
    try:
        paths, parser = find(harness, roots)
    except Exception:  # a log folder that cannot be listed costs that harness, not the scan
        report.skipped_files[Path(harness)] = (harness, UNLISTED)
        return []
    return [(path, parser) for path in paths]
