"""Readers of published lab data: each turns one file (or one benchmark folder) into a ParsedSource.

Pure modules: they read files and return plain records; storing them is lab.services' job. The package
picks the reader for a format, so the readers import common and common imports none of them.
"""

from collections.abc import Callable
from pathlib import Path

from lab.importers import aider, akita, runs, swebench_pro
from lab.importers.common import LabInputError, ParsedSource, RunRecord, SourceInfo

READERS: dict[str, Callable[[Path, str | None], ParsedSource]] = {
    "akita": akita.parse,
    "aider": aider.parse,
    "swebench-pro": swebench_pro.parse,
    "runs": runs.parse,
}
FORMATS = tuple(READERS)


def parse(path: Path, fmt: str, *, source: str | None = None) -> ParsedSource:
    """Read `path` in `fmt`; `source` renames the source (and is required for the open runs format)."""
    if fmt not in READERS:
        raise LabInputError(str(path), f"unknown format {fmt!r} (one of {', '.join(FORMATS)})")
    if not path.exists():
        raise LabInputError(str(path), "no such file or folder")
    return READERS[fmt](path, source)


__all__ = ["FORMATS", "LabInputError", "ParsedSource", "RunRecord", "SourceInfo", "parse"]
