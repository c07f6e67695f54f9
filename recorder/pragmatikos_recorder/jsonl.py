"""Reading an agent's JSON Lines log as it is on disk, perhaps still being written."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def json_objects(path: Path) -> Iterator[dict[str, Any]]:
    """Each line that is one JSON object; an unreadable file is empty, other lines are passed over."""
    try:
        handle = path.open(encoding="utf-8", errors="replace")
    except OSError:
        return
    with handle:
        for line in handle:
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:  # blank, or cut short while the agent was writing
                continue
            if isinstance(entry, dict):
                yield entry
