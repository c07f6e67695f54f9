"""EXPORTS_SERVED_BY_PROXY=1: the app decides every answer and names the file the proxy sends
(tests/deploy/test_proxy_downloads.py sends them through the real Caddy)."""

import gzip
import os
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from ingest.models import Contributor
from leaderboard import served_exports
from leaderboard.models import Snapshot
from tests.pages.test_downloads import exported


@pytest.fixture(autouse=True)
def _proxy_in_front(settings: Any) -> None:
    settings.EXPORTS_SERVED_BY_PROXY = True


def served(path: str) -> Path:
    assert path.startswith(f"/{served_exports.SERVED}/")
    return served_exports.served_dir() / path.rsplit("/", 1)[1]


def test_it_names_a_link_to_the_checked_file_and_the_range_it_grants(demo_snapshot: Snapshot, client: Client) -> None:
    export = exported(demo_snapshot)
    whole = client.get("/data/cycles.csv.gz")
    assert whole.status_code == 200 and whole.content == b""
    assert os.path.samestat(served(whole["X-Accel-Redirect"]).stat(), export.path.stat())
    assert whole["ETag"] == export.etag and whole["Content-Type"] == "application/gzip"
    assert whole["X-Accel-Range"] == "" and f"snapshot-{demo_snapshot.id}-" in whole["Content-Disposition"]

    ranged = client.get("/data/cycles.csv.gz", HTTP_RANGE="bytes=-10", HTTP_IF_RANGE=export.etag)
    assert ranged["X-Accel-Range"] == f"bytes={export.size - 10}-{export.size - 1}"
    assert client.get("/data/cycles.csv.gz", HTTP_RANGE="bytes=0-9", HTTP_IF_RANGE='"x"')["X-Accel-Range"] == ""
    assert client.get("/data/cycles.csv.gz", HTTP_IF_NONE_MATCH=export.etag).status_code == 304
    refused = client.get("/data/cycles.csv.gz", HTTP_RANGE=f"bytes={export.size}-")
    assert refused.status_code == 416 and "X-Accel-Redirect" not in refused

    encoded = client.get("/data/cycles.csv", HTTP_ACCEPT_ENCODING="gzip")
    assert (encoded["X-Accel-Redirect"], encoded["Content-Encoding"]) == (whole["X-Accel-Redirect"], "gzip")


def test_it_unpacks_the_plain_csv_once_to_a_file(demo_snapshot: Snapshot, client: Client) -> None:
    export = exported(demo_snapshot)
    plain = client.get("/data/cycles.csv")
    assert plain.status_code == 200 and not plain.has_header("Content-Encoding")
    unpacked = served(plain["X-Accel-Redirect"])
    assert unpacked.read_bytes() == gzip.decompress(export.path.read_bytes())
    made = unpacked.stat().st_mtime_ns
    assert client.get("/data/cycles.csv")["X-Accel-Redirect"] == plain["X-Accel-Redirect"]
    assert unpacked.stat().st_mtime_ns == made


def test_a_retraction_since_the_export_names_no_file(demo_snapshot: Snapshot, client: Client) -> None:
    exported(demo_snapshot)
    Contributor.objects.filter(number=1).update(retracted_at=timezone.now(), retraction_order=1)
    for path in ("/data/cycles.csv.gz", "/data/cycles.csv"):
        refused = client.get(path)
        assert refused.status_code == 503 and "X-Accel-Redirect" not in refused


def test_copies_of_a_replaced_export_are_deleted_after_the_grace(
    demo_snapshot: Snapshot, client: Client, settings: Any
) -> None:
    exported(demo_snapshot)
    old = served(client.get("/data/cycles.csv")["X-Accel-Redirect"])
    Contributor.objects.filter(number=1).update(retracted_at=timezone.now(), retraction_order=1)
    Contributor.objects.filter(number=1).get().cycles.all().delete()
    served_exports.REPLACED_GRACE_SECONDS, grace = 0, served_exports.REPLACED_GRACE_SECONDS
    try:
        exported(demo_snapshot)  # written again without them
        new = served(client.get("/data/cycles.csv")["X-Accel-Redirect"])
    finally:
        served_exports.REPLACED_GRACE_SECONDS = grace
    assert new != old and new.exists() and not old.exists()
