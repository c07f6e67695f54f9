"""Finding the logs of each harness and turning them into cycles."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Final

from pragmatikos_recorder import aider, claude_code, codex
from pragmatikos_recorder.cycles import Cycle, cycle_facts
from pragmatikos_recorder.git_ship import ShipJudge
from pragmatikos_recorder.progress import Progress
from pragmatikos_recorder.session import Session

HARNESSES: Final = ("claude-code", "codex", "aider")


@dataclass(frozen=True, slots=True)
class Roots:
    """Where each harness keeps its logs (aider: the folder searched for history files)."""

    claude: Path
    codex: Path
    aider: Path

    @classmethod
    def defaults(cls) -> Roots:
        return cls(claude_code.default_root(), codex.default_root(), aider.default_root())


Parser = Callable[[Path], list[Session]]


def find(harness: str, roots: Roots) -> tuple[list[Path], Parser]:
    if harness == "claude-code":
        seen = claude_code.Seen()  # shared by the scan's files: resumed sessions repeat older ones
        return claude_code.find_logs(roots.claude), lambda path: claude_code.parse(path, seen)
    if harness == "codex":
        paths = codex.find_logs(roots.codex)
        subagents = codex.index_subagents(paths)
        return paths, lambda path: codex.parse(path, subagents)
    commits = aider.CommitTimes()  # shared by the scan's histories: one `git log` per repository
    return aider.find_logs(roots.aider), lambda path: aider.parse(path, commits)


def _last_time(session: Session) -> datetime | None:
    times = [e.ts for e in session.events if e.ts is not None]
    return max(times) if times else None


def scan(
    harnesses: tuple[str, ...],
    roots: Roots,
    *,
    since_days: int | None = None,
    now: datetime | None = None,
    progress: bool = True,
) -> list[Cycle]:
    now = now or datetime.now(UTC)
    oldest = now - timedelta(days=since_days) if since_days is not None else None
    found = [(path, parser) for harness in harnesses for path, parser in _paths(harness, roots)]
    bar = Progress(len(found), "reading logs") if progress else None
    judge = ShipJudge(now)
    cycles: list[Cycle] = []
    for path, parser in found:
        for session in parser(path):
            last = _last_time(session)
            if oldest is not None and (last is None or last < oldest):
                continue
            cycles.extend(cycle_facts(session, judge))
        if bar:
            bar.advance()
    if bar:
        bar.close()
    return cycles


def _paths(harness: str, roots: Roots) -> list[tuple[Path, Parser]]:
    paths, parser = find(harness, roots)
    return [(path, parser) for path in paths]
