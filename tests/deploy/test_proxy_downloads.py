"""The downloads through the real proxy: deploy/Caddyfile under Debian's caddy, in front of gunicorn as
deployed (1 worker of 4 threads) with EXPORTS_SERVED_BY_PROXY=1, all on loopback.

The export is a file of this test's own, written where the worker would (about 11 MB of gzip, more
than the kernel's buffers between a reader, Caddy and the app hold), for a snapshot published here.
Every client loop is bounded in count and time (tests/caddy.py).
"""

import gzip
import os
import secrets
import ssl
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from leaderboard.recompute import publish
from tests.caddy import (
    Caddy,
    LocalhostHTTPS,
    SlowReaders,
    held_uploads,
    percentile,
    probe,
    start_caddy,
    stop_caddy,
    wait_for_tls,
)
from tests.cycles.stored import make_contributor, make_cycles
from tests.pipeline.workers import deployed_gunicorn

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker]

PAGES = ["/", "/methodology/", "/api/v1/stats"]
DOWNLOADS = [
    ("/data/cycles.csv", {}),
    ("/data/cycles.csv", {"Accept-Encoding": "gzip"}),
    ("/data/cycles.csv.gz", {}),
]


@dataclass
class Site:
    caddy: Caddy
    tls: ssl.SSLContext
    export_dir: Path

    def get(self, path: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
        connection = LocalhostHTTPS("127.0.0.1", self.caddy.https_port, timeout=60, context=self.tls)
        try:
            connection.request("GET", path, headers={"Host": "localhost", **(headers or {})})
            response = connection.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        finally:
            connection.close()


@pytest.fixture(scope="module")
def site(django_db_setup: None, django_db_blocker: pytest.FixtureRequest) -> Iterator[Site]:
    with django_db_blocker.unblock(), tempfile.TemporaryDirectory() as name:  # type: ignore[attr-defined]
        folder = Path(name)
        export_dir = folder / "exports"
        with deployed_gunicorn(
            WEB_WORKERS="1",
            WEB_THREADS="4",
            BEHIND_TLS_PROXY="1",
            ALLOWED_HOSTS="localhost",
            EXPORT_DIR=str(export_dir),
            EXPORTS_SERVED_BY_PROXY="1",
        ) as (app_port, _):
            caddy = start_caddy(folder, app_port, export_dir)
            try:
                yield Site(caddy, wait_for_tls(caddy), export_dir)
            finally:
                stop_caddy(caddy)


def large_export(site: Site) -> Path:
    """A published snapshot and an export file of it, of rows that hardly compress."""
    make_cycles(make_contributor(), count=20, seed=5)
    snapshot = publish()
    assert snapshot is not None
    site.export_dir.mkdir(parents=True, exist_ok=True)
    path = site.export_dir / f"cycles-snapshot-{snapshot.id}-upto-c1-r0.csv.gz"
    rows = b"".join(secrets.token_hex(40).encode() + b"\n" for _ in range(250_000))
    path.write_bytes(gzip.compress(b"contributor\n" + rows, compresslevel=1))
    stamp = time.time_ns()
    os.utime(path, ns=(stamp, stamp))
    deadline = time.monotonic() + 30
    while (answer := site.get("/data/cycles.csv.gz", {"Range": "bytes=0-0"}))[0] != 206:  # the app sees it
        assert time.monotonic() < deadline, answer
        time.sleep(0.2)
    return path


def test_each_download_keeps_its_contract_through_the_proxy(site: Site) -> None:
    path = large_export(site)
    packed = path.read_bytes()
    status, headers, body = site.get("/data/cycles.csv.gz")
    assert status == 200 and body == packed
    assert headers["content-type"] == "application/gzip" and int(headers["content-length"]) == len(packed)
    assert headers["etag"].startswith('"cycles-') and headers["cache-control"] == "no-cache"
    assert headers["content-disposition"].endswith('.csv.gz"') and "x-snapshot" in headers and "x-as-of" in headers
    assert not [name for name in headers if name.startswith("x-accel")]
    etag = headers["etag"]

    status, ranged, body = site.get("/data/cycles.csv.gz", {"Range": "bytes=100-199", "If-Range": etag})
    assert (status, body, ranged["content-range"]) == (206, packed[100:200], f"bytes 100-199/{len(packed)}")
    assert site.get("/data/cycles.csv.gz", {"Range": "bytes=100-199", "If-Range": '"other"'})[2] == packed
    assert site.get("/data/cycles.csv.gz", {"If-None-Match": etag})[0] == 304
    assert site.get("/data/cycles.csv.gz", {"Range": f"bytes={len(packed)}-"})[0] == 416

    status, encoded, body = site.get("/data/cycles.csv", {"Accept-Encoding": "gzip"})
    assert (status, encoded["content-encoding"], body) == (200, "gzip", packed)
    assert encoded["content-type"] == "text/csv; charset=utf-8" and encoded["vary"] == "Accept-Encoding"
    status, plain, body = site.get("/data/cycles.csv")
    assert status == 200 and body == gzip.decompress(packed)
    assert "content-encoding" not in plain and plain["accept-ranges"] == "none"
    assert len({etag, encoded["etag"], plain["etag"]}) == 3

    # The copies the proxy sends are reachable only through the app's answer.
    copies = sorted(p.name for p in (site.export_dir / "served").iterdir())
    assert len(copies) == 2
    for name in copies:
        assert site.get(f"/served/{name}")[0] == 404


def test_fifty_slow_readers_of_each_download_leave_the_pages_answering(site: Site) -> None:
    large_export(site)
    for path, headers in DOWNLOADS:  # the plain CSV is unpacked by the first download of an export, once
        assert site.get(path, headers)[0] == 200
    probe(site.caddy.https_port, site.tls, PAGES, 2)
    normal = percentile(probe(site.caddy.https_port, site.tls, PAGES, 5), 0.99)
    for path, headers in DOWNLOADS:
        with SlowReaders(site.caddy.https_port, site.tls, path, headers=headers) as readers:
            assert readers.connected == 50
            time.sleep(2)  # the buffers between the readers and the app fill
            # A first request here has taken 2-3 s now and then on a loaded 2-core machine; an app thread
            # held per reader times every request out (10 s), which the next 6 s show.
            probe(site.caddy.https_port, site.tls, PAGES, 1)
            timings = probe(site.caddy.https_port, site.tls, PAGES, 6)
        p99 = percentile(timings, 0.99)
        print(f"{path} {headers}: page p99 {p99 * 1000:.0f} ms with 50 slow readers, {normal * 1000:.0f} ms alone")
        # Three times normal, or half a second on this shared machine; with an app thread per reader, 10 s.
        assert p99 <= max(3 * normal, 0.5), (path, headers, timings)


def test_twelve_held_uploads_of_64_mib_bound_caddys_memory_and_leave_the_pages_answering(site: Site) -> None:
    probe(site.caddy.https_port, site.tls, PAGES, 2)
    normal = percentile(probe(site.caddy.https_port, site.tls, PAGES, 3), 0.99)
    before = site.caddy.rss_bytes()
    held = held_uploads(site.caddy.https_port, site.tls, count=12, size=64 * 1024 * 1024)
    try:
        time.sleep(1)
        during = site.caddy.rss_bytes()
        timings = probe(site.caddy.https_port, site.tls, PAGES, 4)
    finally:
        for upload in held:
            upload.close()
    p99 = percentile(timings, 0.99)
    print(f"caddy RSS {before / 1e6:.0f} MB before, {during / 1e6:.0f} MB with 12 held uploads of 64 MiB")
    print(f"page p99 {p99 * 1000:.0f} ms with them, {normal * 1000:.0f} ms alone")
    # 4 MiB buffered per upload (max_buffer_size); whole, they took 2.3 GB.
    assert during - before < 400e6, (before, during)
    assert p99 <= max(3 * normal, 0.5), timings


def test_twelve_held_uploads_just_over_the_proxys_buffer_leave_the_pages_answering(site: Site) -> None:
    """The rest of each body streams to the app as it arrives: two per process are read
    (INGEST_STREAMED_BODIES), the others refused unread. With a thread waiting on each, pages timed out."""
    probe(site.caddy.https_port, site.tls, PAGES, 2)
    normal = percentile(probe(site.caddy.https_port, site.tls, PAGES, 3), 0.99)
    held = held_uploads(site.caddy.https_port, site.tls, count=12, size=6 * 1024 * 1024)
    try:
        time.sleep(1)
        timings = probe(site.caddy.https_port, site.tls, PAGES, 4)
    finally:
        for upload in held:
            upload.close()
    p99 = percentile(timings, 0.99)
    print(f"page p99 {p99 * 1000:.0f} ms with 12 held uploads of 6 MiB, {normal * 1000:.0f} ms alone")
    assert p99 <= max(3 * normal, 0.5), timings
