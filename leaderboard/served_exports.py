"""The files a proxy in front sends for the cycles downloads (EXPORTS_SERVED_BY_PROXY=1).

The web process authorises a download (which export, whether a retraction since refuses it, the
conditional and range answers) and names a file for the proxy to send (deploy/Caddyfile's
X-Accel-Redirect route), so no app thread waits on a slow reader. It names a copy under
EXPORT_DIR/served/, never the worker's file itself:

- the gzip file is a hard link to the very file the web process opened and checked (made by name,
  then compared with the open file): a rewrite of the same name or a prune between the check and
  the proxy's read cannot swap the bytes sent for others (in that race there is no link, and the
  web process sends the file itself);
- the unpacked CSV is that file unpacked once (the first download of a new export unpacks it, to a
  temporary name, then renames it), so a plain download is a file too, with a length.

Each copy's name is the export's ETag, so it names those very bytes. Copies of replaced exports are
deleted when a new copy is made, once a minute old (a download just redirected to one still finds it;
one already being sent keeps its open file, POSIX). The proxy needs EXPORT_DIR read-only.
"""

import gzip
import os
import shutil
import time
import uuid
from pathlib import Path
from typing import IO

from leaderboard import cycles_file

SERVED = "served"
# A copy of a replaced export is kept this long, so a redirect made just before the swap still finds it.
REPLACED_GRACE_SECONDS = 60
_TEMP_PREFIX = ".unpacking-"


def served_dir() -> Path:
    return cycles_file.export_dir() / SERVED


def _key(export: cycles_file.Export) -> str:
    return export.etag.strip('"')


def packed_copy(export: cycles_file.Export, handle: IO[bytes]) -> str | None:
    """The proxy's path of a hard link to the opened export file (made once); None when its name no
    longer holds that file (pruned or written again since it was opened)."""
    name = f"{_key(export)}.csv.gz"
    target = served_dir() / name
    if not target.exists():
        served_dir().mkdir(parents=True, exist_ok=True)
        prune_replaced(keep=_key(export))
        try:
            os.link(export.path, target)
        except FileExistsError:
            pass  # another request linked it first
        except FileNotFoundError:
            return None
    if not os.path.samestat(target.stat(), os.fstat(handle.fileno())):
        target.unlink(missing_ok=True)
        return None
    return f"/{SERVED}/{name}"


def unpacked_copy(export: cycles_file.Export, handle: IO[bytes]) -> str:
    """The proxy's path of the opened export unpacked (made once, whole or not at all)."""
    name = f"{_key(export)}.csv"
    target = served_dir() / name
    if not target.exists():
        served_dir().mkdir(parents=True, exist_ok=True)
        prune_replaced(keep=_key(export))
        temp = served_dir() / f"{_TEMP_PREFIX}{uuid.uuid4().hex}.tmp"
        try:
            handle.seek(0)
            with gzip.GzipFile(fileobj=handle, mode="rb") as packed, temp.open("wb") as unpacked:
                shutil.copyfileobj(packed, unpacked, 1 << 20)
            os.replace(temp, target)
        except BaseException:
            temp.unlink(missing_ok=True)
            raise
    return f"/{SERVED}/{name}"


def prune_replaced(*, keep: str) -> None:
    """Delete the copies of other exports (and dead temporary files) older than the grace period."""
    stale_before = time.time() - REPLACED_GRACE_SECONDS
    for entry in os.scandir(served_dir()):
        if entry.name.startswith(keep + "."):
            continue
        try:
            if entry.stat().st_ctime < stale_before:
                os.unlink(entry.path)
        except FileNotFoundError:
            continue  # another process deleted it first
