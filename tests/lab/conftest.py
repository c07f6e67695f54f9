"""Lab tests read the data shipped in lab/data (never ../shared): a clone has only the repository."""

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lab import importers
from lab.downloads import forget_local_downloads
from lab.services import import_source

DATA = Path(__file__).resolve().parents[2] / "lab" / "data"
AKITA = DATA / "akita"
AIDER = DATA / "aider_runs.jsonl"
SWEBENCH_PRO = DATA / "swebench_pro_runs.jsonl"
FIXTURES = Path(__file__).resolve().parent / "fixtures"

SHIPPED = ((AKITA, "akita"), (AIDER, "aider"), (SWEBENCH_PRO, "swebench-pro"))


def run_line(**overrides: Any) -> dict[str, Any]:
    """One valid line of the open runs format."""
    line: dict[str, Any] = {
        "task": "t1",
        "model": "claude-opus-4.8",
        "grade": 1,
        "grade_max": 1,
        "seconds": 10.0,
        "tokens_in": 1000,
        "tokens_out": 100,
        "cost_usd": 0.5,
        "harness": "opencode",
        "day": "2026-11-01",
    }
    line.update(overrides)
    return line


@pytest.fixture
def runs_file(tmp_path: Path) -> Callable[..., Path]:
    def write(lines: list[dict[str, Any] | str], name: str = "mylab.jsonl") -> Path:
        path = tmp_path / name
        path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines))
        return path

    return write


@pytest.fixture
def shipped(db: None) -> None:
    """The three shipped sources, imported."""
    for path, fmt in SHIPPED:
        import_source(parsed=importers.parse(path, fmt))


@pytest.fixture(autouse=True)
def _cold_process_memo() -> Any:
    """Each test starts without the lab's download copies (the root conftest forgets the process's page copies)."""

    forget_local_downloads()
    yield
    forget_local_downloads()


@pytest.fixture
def demo_document(demo_snapshot: Any) -> dict[str, Any]:
    """A published demo field ranking (the leaderboard's own generator), as its document."""
    return dict(demo_snapshot.document)
