"""/data/cycles.csv is CSV any client reads; /data/cycles.csv.gz is the file as the worker wrote it.

Read through a live server by the clients a data user reaches for first: pandas.read_csv on the
URL, and the standard library's urllib (which, like curl without --compressed, asks for no encoding).
"""

import csv
import gzip
import io
import urllib.request
from typing import Any

import pandas as pd
import pytest
from django.test import Client

from ingest.models import Cycle
from leaderboard import cycles_file
from leaderboard.models import Snapshot
from pages.downloads import accepts_gzip
from tests.pages.test_downloads import body_of, exported


def fetched(url: str, headers: dict[str, str] | None = None) -> tuple[dict[str, str], bytes]:
    request = urllib.request.Request(url, headers=headers or {})  # noqa: S310 -- the test's own live server
    with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310
        return dict(response.headers.items()), response.read()


@pytest.fixture
def site(transactional_db: None, live_server: Any, demo_snapshot: Snapshot) -> str:
    exported(demo_snapshot)
    return str(live_server.url)


def test_pandas_reads_both_downloads_by_url(site: str) -> None:
    stored = Cycle.objects.count()
    plain = pd.read_csv(f"{site}/data/cycles.csv")
    packed = pd.read_csv(f"{site}/data/cycles.csv.gz")

    assert len(plain) == len(packed) == stored
    assert list(plain.columns) == list(cycles_file.CYCLE_COLUMNS)
    pd.testing.assert_frame_equal(plain, packed)


def test_the_standard_library_reads_cycles_csv_as_text_and_the_gz_as_gzip(site: str) -> None:
    headers, body = fetched(f"{site}/data/cycles.csv")
    assert headers["Content-Type"] == "text/csv; charset=utf-8"
    assert "Content-Encoding" not in headers
    rows = list(csv.DictReader(io.StringIO(body.decode())))
    assert len(rows) == Cycle.objects.count()

    headers, body = fetched(f"{site}/data/cycles.csv.gz")
    assert headers["Content-Type"] == "application/gzip"
    assert "Content-Encoding" not in headers
    assert list(csv.DictReader(io.StringIO(gzip.decompress(body).decode()))) == rows


def test_a_client_that_accepts_gzip_gets_the_files_bytes_encoded(demo_snapshot: Snapshot, client: Client) -> None:
    export = exported(demo_snapshot)
    encoded = client.get("/data/cycles.csv", HTTP_ACCEPT_ENCODING="br, gzip;q=0.8")
    plain = client.get("/data/cycles.csv")

    assert encoded["Content-Type"] == plain["Content-Type"] == "text/csv; charset=utf-8"
    assert encoded["Content-Encoding"] == "gzip"
    assert body_of(encoded) == export.path.read_bytes()
    assert int(encoded["Content-Length"]) == export.size
    assert not plain.has_header("Content-Encoding")
    assert body_of(plain) == gzip.decompress(export.path.read_bytes())
    assert encoded["Vary"] == plain["Vary"] == "Accept-Encoding"
    assert encoded["Content-Disposition"].endswith('.csv"') and plain["Content-Disposition"].endswith('.csv"')


def test_each_representation_has_its_own_etag(demo_snapshot: Snapshot, client: Client) -> None:
    exported(demo_snapshot)
    tags = {
        "gz": client.get("/data/cycles.csv.gz")["ETag"],
        "gzip": client.get("/data/cycles.csv", HTTP_ACCEPT_ENCODING="gzip")["ETag"],
        "identity": client.get("/data/cycles.csv")["ETag"],
    }
    assert len(set(tags.values())) == 3, tags
    assert client.get("/data/cycles.csv", HTTP_IF_NONE_MATCH=tags["identity"]).status_code == 304
    # Another representation's tag does not stand for this one.
    assert client.get("/data/cycles.csv", HTTP_IF_NONE_MATCH=tags["gzip"]).status_code == 200
    unchanged = client.get("/data/cycles.csv", HTTP_ACCEPT_ENCODING="gzip", HTTP_IF_NONE_MATCH=tags["gzip"])
    assert unchanged.status_code == 304 and unchanged["Vary"] == "Accept-Encoding"


def test_ranges_apply_to_the_gzip_bytes_and_the_unpacked_stream_is_sent_whole(
    demo_snapshot: Snapshot, client: Client
) -> None:
    export = exported(demo_snapshot)
    ranged = client.get("/data/cycles.csv", HTTP_ACCEPT_ENCODING="gzip", HTTP_RANGE="bytes=0-99")
    assert ranged.status_code == 206
    assert body_of(ranged) == export.path.read_bytes()[:100]

    whole = client.get("/data/cycles.csv", HTTP_RANGE="bytes=0-99")
    assert whole.status_code == 200
    assert whole["Accept-Ranges"] == "none"
    assert body_of(whole) == gzip.decompress(export.path.read_bytes())


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("gzip", True),
        ("gzip, deflate, br", True),
        ("br;q=1.0, gzip;q=0.5", True),
        ("GZIP", True),
        ("*", True),
        ("x-gzip", True),
        ("", False),
        ("identity", False),
        ("br", False),
        ("gzip;q=0", False),
        ("gzip;q=0.0, *", False),
        ("*;q=0", False),
        ("gzip;q=nonsense", False),
    ],
)
def test_it_reads_accept_encoding(header: str, expected: bool) -> None:
    assert accepts_gzip(header) is expected
