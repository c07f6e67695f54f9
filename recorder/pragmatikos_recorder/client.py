"""The service's contribution API over HTTP (standard library only)."""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import urlsplit

from pragmatikos_recorder import __version__

API_PATH: Final = "/api/v1"
CONTRIBUTIONS_PATH: Final = API_PATH + "/contributions"
# The address the OpenCode plugin posts to: the same contract, so people give it here too.
PLUGIN_PATH: Final = "/v1/contribute"
BATCH_ROWS: Final = 5000  # well under the service's caps per request (100,000 rows, 64 MiB)


class NoServiceUrl(ValueError):
    """Neither --url nor PRAGMATIKOS_URL says where to send."""


class ServiceError(Exception):
    """The service could not be reached or did not answer as the API does; the message is one line saying what
    to do."""


def configured_url(option: str | None) -> str | None:
    """--url, else PRAGMATIKOS_URL; None when neither is given (there is no built-in address)."""
    return option or os.environ.get("PRAGMATIKOS_URL") or None


def contribution_url(option: str | None) -> str:
    """The contribution endpoint: --url, else PRAGMATIKOS_URL. No default: cycles go only where the user says,
    as the service's Contribute page gives the address. The host alone means its /api/v1/contributions."""
    url = configured_url(option)
    if not url:
        raise NoServiceUrl(
            "say where to send: --url https://HOST (or https://HOST/api/v1/contributions), or set PRAGMATIKOS_URL; "
            "there is no built-in address (the service's Contribute page gives its host)"
        )
    url = url.rstrip("/")
    root = _root(url)
    return url if root is None else root + CONTRIBUTIONS_PATH


def _root(url: str) -> str | None:
    """The service's root for an address that names it (the host, the contribution or the plugin's address);
    None for any other path, which is used as given."""
    parts = urlsplit(url)
    if parts.query or parts.fragment:
        return None
    path = parts.path.rstrip("/")
    for known in (CONTRIBUTIONS_PATH, PLUGIN_PATH, ""):
        if path.endswith(known) and (known or not path):
            return url[: len(url) - len(parts.path)] + path[: len(path) - len(known)]
    return None


def host_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _sibling(url: str, path: str) -> str:
    """Another API address beside a contribution URL (as contribution_url gives it)."""
    base = url[: -len(CONTRIBUTIONS_PATH)] if url.endswith(CONTRIBUTIONS_PATH) else url.rsplit("/", 1)[0]
    return base + API_PATH + path


def stats_url(url: str) -> str:
    return _sibling(url, "/stats")


def counts_url(url: str) -> str:
    """Where the service answers one install's counts."""
    return _sibling(url, "/contributions/counts")


def preview_url(url: str) -> str:
    return _sibling(url, "/contributions/preview")


def retract_url(url: str) -> str:
    return url + "/retract"


@dataclass(frozen=True, slots=True)
class Answer:
    status: int
    body: dict[str, Any]
    retry_after: str | None = None


def request(url: str, body: Any | None = None, timeout: float = 60) -> Answer:
    """One request; ServiceError when nothing answers or the answer is not the API's JSON."""
    data = None if body is None else json.dumps(body).encode()
    headers = {"User-Agent": f"pragmatikos-recorder/{__version__}", "Accept": "application/json"}
    if data is not None:
        headers["Content-Type"] = "application/json"
    req = urllib.request.Request(url, data=data, headers=headers, method="GET" if data is None else "POST")  # noqa: S310
    try:
        with urllib.request.urlopen(req, timeout=timeout) as response:  # noqa: S310 -- http(s) URL given by the user
            return Answer(response.status, _json(url, response.status, response.read()))
    except urllib.error.HTTPError as error:
        return Answer(error.code, _json(url, error.code, error.read()), error.headers.get("Retry-After"))
    except (urllib.error.URLError, TimeoutError, ConnectionError) as error:
        raise ServiceError(_unreachable(url, error)) from error


def _unreachable(url: str, error: Exception) -> str:
    reason = getattr(error, "reason", error)
    host = host_of(url)
    if isinstance(reason, ConnectionRefusedError):
        return f"could not connect to {host}/ — is the service running? use --url with its address"
    if isinstance(reason, TimeoutError):
        return f"{host}/ did not answer in time — try again later, or check --url"
    if isinstance(reason, str) and "unknown url type" in reason:
        return f"{url} is not a web address — use --url https://HOST"
    return f"could not reach {host}/ ({reason}) — check --url and your connection"


def _json(url: str, status: int, raw: bytes) -> dict[str, Any]:
    try:
        parsed = json.loads(raw or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError):
        parsed = None
    if not isinstance(parsed, dict):
        host = host_of(url)
        raise ServiceError(
            f"{url} answered (HTTP {status}) with something other than the API's JSON — is it a page's address? "
            f"use the service's host ({host}) or {host}{CONTRIBUTIONS_PATH}"
        )
    return parsed
