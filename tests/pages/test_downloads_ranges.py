"""cycles.csv.gz served by byte ranges: 206, 416, If-Range and the ETag, as resumed downloads need."""

import gzip

import pytest
from django.test import Client

from leaderboard.models import Snapshot
from pages.downloads import Unsatisfiable, requested_range
from tests.pages.test_downloads import body_of, exported


def test_it_answers_304_to_the_files_etag(demo_snapshot: Snapshot, client: Client) -> None:
    export = exported(demo_snapshot)
    first = client.get("/data/cycles.csv.gz")
    assert first["ETag"] == export.etag
    assert first["Cache-Control"] == "no-cache"
    for offered in (export.etag, f'"other", W/{export.etag}'):
        again = client.get("/data/cycles.csv.gz", HTTP_IF_NONE_MATCH=offered)
        assert again.status_code == 304
        assert again.content == b""
        assert again["ETag"] == export.etag
        assert again["X-Snapshot"] == str(demo_snapshot.id)
    assert client.get("/data/cycles.csv.gz", HTTP_IF_NONE_MATCH='"other"').status_code == 200


def test_it_answers_a_range_with_206_and_exactly_those_bytes(demo_snapshot: Snapshot, client: Client) -> None:
    export = exported(demo_snapshot)
    whole = export.path.read_bytes()
    size = len(whole)
    for header, first, last in (
        ("bytes=0-99", 0, 99),
        ("bytes=100-", 100, size - 1),
        ("bytes=-50", size - 50, size - 1),
        (f"bytes=10-{size + 1000}", 10, size - 1),
        (f"bytes={size - 1}-{size - 1}", size - 1, size - 1),
    ):
        response = client.get("/data/cycles.csv.gz", HTTP_RANGE=header)
        assert response.status_code == 206, header
        assert response["Content-Range"] == f"bytes {first}-{last}/{size}", header
        assert int(response["Content-Length"]) == last - first + 1, header
        assert body_of(response) == whole[first : last + 1], header
        assert response["ETag"] == export.etag
    # A download resumed where it broke off comes out whole.
    head = body_of(client.get("/data/cycles.csv.gz", HTTP_RANGE="bytes=0-1000"))
    rest = body_of(client.get("/data/cycles.csv.gz", HTTP_RANGE="bytes=1001-", HTTP_IF_RANGE=export.etag))
    assert gzip.decompress(head + rest) == gzip.decompress(whole)


def test_it_answers_416_to_a_range_past_the_end(demo_snapshot: Snapshot, client: Client) -> None:
    export = exported(demo_snapshot)
    for header in (f"bytes={export.size}-", f"bytes={export.size + 5}-{export.size + 10}", "bytes=-0"):
        response = client.get("/data/cycles.csv.gz", HTTP_RANGE=header)
        assert response.status_code == 416, header
        assert response["Content-Range"] == f"bytes */{export.size}"
        assert response.content == b""


def test_it_sends_the_whole_file_for_ranges_it_does_not_serve(demo_snapshot: Snapshot, client: Client) -> None:
    export = exported(demo_snapshot)
    for headers in (
        {"HTTP_RANGE": "bytes=0-10,20-30"},  # several ranges
        {"HTTP_RANGE": "bytes=abc-"},
        {"HTTP_RANGE": "lines=1-2"},
        {"HTTP_RANGE": "bytes=0-10", "HTTP_IF_RANGE": '"an-older-file"'},
        {"HTTP_RANGE": "bytes=0-10", "HTTP_IF_RANGE": "Mon, 30 Nov 2026 00:00:00 GMT"},
        {"HTTP_RANGE": f"bytes={export.size}-", "HTTP_IF_RANGE": '"an-older-file"'},  # not 416: not this file
    ):
        response = client.get("/data/cycles.csv.gz", **headers)  # type: ignore[arg-type]
        assert response.status_code == 200, headers
        assert body_of(response) == export.path.read_bytes()


@pytest.mark.parametrize(
    ("header", "size", "expected"),
    [
        ("bytes=0-0", 10, (0, 0)),
        ("bytes=0-", 10, (0, 9)),
        ("bytes=5-100", 10, (5, 9)),
        ("bytes=-3", 10, (7, 9)),
        ("bytes=-30", 10, (0, 9)),
        (" bytes = 2 - 4 ", 10, (2, 4)),
        ("bytes=4-2", 10, None),
        ("bytes=1-2,4-5", 10, None),
        ("bytes=-", 10, None),
        ("bytes=", 10, None),
        ("bytes=+1-2", 10, None),
        ("bytes=١-٢", 10, None),
        ("items=0-1", 10, None),
        ("", 10, None),
    ],
)
def test_it_reads_one_byte_range(header: str, size: int, expected: tuple[int, int] | None) -> None:
    assert requested_range(header, size) == expected


@pytest.mark.parametrize(
    ("header", "size"), [("bytes=10-", 10), ("bytes=10-20", 10), ("bytes=-0", 10), ("bytes=0-", 0)]
)
def test_it_refuses_a_range_outside_the_file(header: str, size: int) -> None:
    with pytest.raises(Unsatisfiable):
        requested_range(header, size)
