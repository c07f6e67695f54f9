"""The service's published pool document, fetched with one GET and kept with its ETag.

The report's only network call: `GET <host>/api/v1/pool.json`, with `If-None-Match` when a copy is kept, so an
unchanged ranking costs the service a 304. Nothing of the person's is sent: no body, no query, no install id.
The copy lives in the recorder's cache folder, one file per pool address.
"""

from __future__ import annotations

import hashlib
import json
import os
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from platformdirs import user_cache_path

from pragmatikos_recorder import __version__
from pragmatikos_recorder.client import CONTRIBUTIONS_PATH
from pragmatikos_recorder.config import APP_NAME

POOL_PATH: Final = "/api/v1/pool.json"


class PoolUnavailable(OSError):
    """The pool document could not be fetched and no copy is kept."""


def cache_dir() -> Path:
    override = os.environ.get("PRAGMATIKOS_RECORDER_CACHE")
    return Path(override) if override else user_cache_path(APP_NAME, appauthor=False)


def pool_url(url: str) -> str:
    """The pool document's address on the service that `url` (the contribution URL, or the host) names."""
    url = url.rstrip("/")
    if url.endswith(CONTRIBUTIONS_PATH):
        url = url[: -len(CONTRIBUTIONS_PATH)]
    elif url.endswith("/v1/contribute"):
        url = url[: -len("/v1/contribute")]
    return url + POOL_PATH


@dataclass(frozen=True, slots=True)
class Fetched:
    document: dict[str, Any]
    url: str
    how: str  # "fetched", "not modified" (the kept copy, confirmed) or "kept copy" (the service unreachable)


def _cache_file(url: str, directory: Path) -> Path:
    return directory / f"pool-{hashlib.sha256(url.encode()).hexdigest()[:16]}.json"


def _kept(path: Path) -> dict[str, Any] | None:
    try:
        kept = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return kept if isinstance(kept, dict) and isinstance(kept.get("document"), dict) else None


def fetch_pool(url: str, directory: Path | None = None, timeout: float = 60) -> Fetched:
    """The pool document at `url` (pool_url's), from the service or, when it answers 304, from the kept copy."""
    path = _cache_file(url, directory or cache_dir())
    kept = _kept(path)
    headers = {"User-Agent": f"pragmatikos-recorder/{__version__}", "Accept": "application/json"}
    if kept and kept.get("etag"):
        headers["If-None-Match"] = str(kept["etag"])
    req = urllib.request.Request(url, headers=headers, method="GET")  # noqa: S310 -- the user's http(s) URL
    try:
        with urllib.request.urlopen(req, timeout=timeout) as response:  # noqa: S310
            document = json.loads(response.read())
            etag = response.headers.get("ETag")
    except urllib.error.HTTPError as error:
        if error.code == 304 and kept:
            return Fetched(kept["document"], url, "not modified")
        raise PoolUnavailable(f"the service answered {error.code} for {url}") from error
    except (OSError, ValueError) as error:
        if kept:
            return Fetched(kept["document"], url, "kept copy")
        raise PoolUnavailable(f"{url}: not reachable ({error.__class__.__name__})") from error
    if not isinstance(document, dict):
        raise PoolUnavailable(f"{url}: not a pool document")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"url": url, "etag": etag, "document": document}), encoding="utf-8")
    return Fetched(document, url, "fetched")
