from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from ingest.models import Contributor, Cycle, Receipt

CONTRIBUTE = "/api/v1/contributions"
PREVIEW = "/api/v1/contributions/preview"
RETRACT = "/api/v1/contributions/retract"
STATS = "/api/v1/stats"


class Api:
    """Posts bodies the way a client does: raw JSON bytes with content-type application/json."""

    def __init__(self, client: Client) -> None:
        self.client = client

    def post(self, path: str, body: Any, **extra: Any) -> Any:
        data = body if isinstance(body, (bytes, str)) else json.dumps(body)
        return self.client.post(path, data=data, content_type="application/json", **extra)

    def contribute(self, body: Any, **extra: Any) -> Any:
        return self.post(CONTRIBUTE, body, **extra)

    def preview(self, body: Any, **extra: Any) -> Any:
        return self.post(PREVIEW, body, **extra)

    def retract(self, install: str, **extra: Any) -> Any:
        return self.post(RETRACT, {"install": install}, **extra)


@pytest.fixture
def api(client: Client) -> Api:
    return Api(client)


def stored_counts() -> tuple[int, int, int]:
    """(contributors, cycles, receipts): a rejected request must leave all three as they were."""
    return Contributor.objects.count(), Cycle.objects.count(), Receipt.objects.count()
