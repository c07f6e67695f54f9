"""The service's contribution API over HTTP (standard library only)."""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any, Final

from pragmatikos_recorder import __version__

CONTRIBUTIONS_PATH: Final = "/api/v1/contributions"
BATCH_ROWS: Final = 5000  # well under the service's caps per request (100,000 rows, 64 MiB)


class NoServiceUrl(ValueError):
    """Neither --url nor PRAGMATIKOS_URL says where to send."""


def contribution_url(option: str | None) -> str:
    """The contribution endpoint: --url, else PRAGMATIKOS_URL. No default: cycles go only where the user says,
    as the service's Contribute page gives the address."""
    url = option or os.environ.get("PRAGMATIKOS_URL")
    if not url:
        raise NoServiceUrl(
            "say where to send: --url https://HOST/api/v1/contributions, or set PRAGMATIKOS_URL "
            "(the service's Contribute page gives its address)"
        )
    return url.rstrip("/")


def stats_url(url: str) -> str:
    base = url[: -len(CONTRIBUTIONS_PATH)] if url.endswith(CONTRIBUTIONS_PATH) else url.rsplit("/", 1)[0]
    return base + "/api/v1/stats"


@dataclass(frozen=True, slots=True)
class Answer:
    status: int
    body: dict[str, Any]
    retry_after: str | None = None


def request(url: str, body: Any | None = None, timeout: float = 60) -> Answer:
    data = None if body is None else json.dumps(body).encode()
    headers = {"User-Agent": f"pragmatikos-recorder/{__version__}", "Accept": "application/json"}
    if data is not None:
        headers["Content-Type"] = "application/json"
    req = urllib.request.Request(url, data=data, headers=headers, method="GET" if data is None else "POST")  # noqa: S310
    try:
        with urllib.request.urlopen(req, timeout=timeout) as response:  # noqa: S310 -- http(s) URL given by the user
            return Answer(response.status, _json(response.read()))
    except urllib.error.HTTPError as error:
        return Answer(error.code, _json(error.read()), error.headers.get("Retry-After"))


def _json(raw: bytes) -> dict[str, Any]:
    try:
        parsed = json.loads(raw or b"{}")
    except json.JSONDecodeError:
        return {"error": "the service answered with something that is not JSON"}
    return parsed if isinstance(parsed, dict) else {"error": "unexpected answer"}
