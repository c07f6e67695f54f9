"""End to end through the real proxy: the repository's own deploy/Caddyfile under Debian's caddy,
in front of gunicorn as deployed and a Celery worker, all on this machine's loopback.

Caddy serves DOMAIN=localhost with a certificate of its own local authority; the client trusts
that authority's root, which Caddy writes under its data directory here (never the system's trust
store). Its ports, listening address, admin endpoint and upstream come from the environment, as the
Caddyfile reads them. Redis is a redis-server of this test's own, so the throttle's counters for
127.0.0.1 start empty. Every loop is bounded in count and time.
"""

import http.client
import json
import shutil
import socket
import ssl
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis

from tests.caddy import LocalhostHTTPS, start_caddy, stop_caddy, wait_for_tls
from tests.cycles.wire import envelope
from tests.pipeline.workers import (
    deployed_gunicorn,
    reap,
    start_worker,
    stop,
    wait_for_line,
)
from tests.redis_servers import OwnRedis

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.worker]

ADDRESS_LIMIT = 3
SLOW_CLIENTS = 40


@dataclass
class Proxy:
    https_port: int
    http_port: int
    app_port: int
    redis_port: int
    tls: ssl.SSLContext

    def forget_counters(self) -> None:
        """The throttle's counters of this test's own Redis start empty (other tests sent requests too)."""
        redis.Redis(port=self.redis_port).flushdb()

    def request(
        self, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        connection = LocalhostHTTPS("127.0.0.1", self.https_port, timeout=30, context=self.tls)
        try:
            connection.request(method, path, body=body, headers={"Host": "localhost", **(headers or {})})
            response = connection.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        finally:
            connection.close()

    def slow_socket(self) -> socket.socket:
        raw = socket.create_connection(("127.0.0.1", self.https_port), timeout=10)
        return self.tls.wrap_socket(raw, server_hostname="localhost")


@pytest.fixture(scope="module")
def proxy(django_db_setup: None, django_db_blocker: pytest.FixtureRequest) -> Iterator[Proxy]:
    """One proxy, app and worker for the module (they take seconds to start), over the test database."""
    if shutil.which("caddy") is None:
        pytest.skip("caddy is not installed (apt-get install caddy; .ci/run does)")
    with (
        django_db_blocker.unblock(),  # type: ignore[attr-defined]
        OwnRedis() as redis_server,
        tempfile.TemporaryDirectory() as name,
    ):
        folder = Path(name)
        redis_url = redis_server.url
        worker = start_worker(("REDIS_URL", redis_url))
        try:
            wait_for_line(worker, b"ready", 60)
            with deployed_gunicorn(
                REDIS_URL=redis_url,
                WEB_WORKERS="1",
                WEB_THREADS="4",
                BEHIND_TLS_PROXY="1",
                ALLOWED_HOSTS="localhost",
                INGEST_RATE_PER_ADDRESS=f"{ADDRESS_LIMIT}/hour",
            ) as (app_port, _):
                caddy = start_caddy(folder, app_port)
                try:
                    tls = wait_for_tls(caddy)
                    yield Proxy(caddy.https_port, caddy.http_port, app_port, redis_server.port, tls)
                finally:
                    stop_caddy(caddy)
        finally:
            stop(worker)
            reap(worker)


def listening_addresses(port: int) -> set[str]:
    """The local addresses of the sockets listening on a TCP port (IPv4 and IPv6), from /proc/net."""
    found = set()
    for table, width in (("/proc/net/tcp", 8), ("/proc/net/tcp6", 32)):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            address, _, hex_port = fields[1].partition(":")
            if fields[3] == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
                if width == 8:
                    found.add(socket.inet_ntop(socket.AF_INET, bytes.fromhex(address)[::-1]))
                else:
                    words = [bytes.fromhex(address[i : i + 8])[::-1] for i in range(0, 32, 8)]
                    found.add(socket.inet_ntop(socket.AF_INET6, b"".join(words)))
    return found


def test_https_answers_and_sends_hsts(proxy: Proxy) -> None:
    status, headers, body = proxy.request("GET", "/")
    assert status == 200
    assert headers["strict-transport-security"] == "max-age=31536000"
    assert b"<html" in body
    status, _, body = proxy.request("GET", "/healthz")
    assert status == 200 and json.loads(body)["redis"] == "ok"


def test_plain_http_redirects_to_https(proxy: Proxy) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", proxy.http_port, timeout=10)
    connection.request("GET", "/data/?x=1", headers={"Host": f"localhost:{proxy.http_port}"})
    response = connection.getresponse()
    response.read()
    connection.close()
    assert response.status in (301, 308)
    # The same host and path over HTTPS. Caddy names no port for a site address that names none: in
    # production that is 443; here it listens elsewhere, so the redirect is checked and not followed.
    assert response.getheader("Location") == "https://localhost/data/?x=1"


def test_a_body_announced_over_the_cap_is_refused_with_413_before_it_is_sent(proxy: Proxy) -> None:
    # Answered from the headers alone: Caddy never buffers such a body, so the app is never handed a cut one (which
    # it refused while Caddy was still writing it, and Caddy then answered 502 or 413 by a race).
    with proxy.slow_socket() as tls:
        tls.sendall(
            b"POST /api/v1/contributions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
            b"Content-Length: 68000001\r\n\r\n"
        )
        answer = b""
        while b"\r\n" not in answer and (block := tls.recv(4096)):
            answer += block
    assert answer.split(b"\r\n", 1)[0] == b"HTTP/1.1 413 Request Entity Too Large", answer[:200]


def test_a_clients_own_x_forwarded_for_does_not_change_its_address(proxy: Proxy) -> None:
    proxy.forget_counters()
    statuses = []
    for n in range(ADDRESS_LIMIT + 1):
        body = json.dumps(envelope(1, install=str(uuid.uuid4()))).encode()
        status, _, _ = proxy.request(
            "POST",
            "/api/v1/contributions/preview",
            body=body,
            headers={"Content-Type": "application/json", "X-Forwarded-For": f"198.51.100.{n + 1}"},
        )
        statuses.append(status)
    # Each request named another address; Caddy put the peer's in its place, so all count as one.
    assert statuses == [200] * ADDRESS_LIMIT + [429], statuses


def trickle(
    connect: Callable[[], socket.socket], slow_body: bool, stop_event: threading.Event, connected: list[int]
) -> None:
    """One client sending a request a byte a second: its headers, or its body.

    The retraction form: the app reads its whole body (the CSRF check reads the form) before any
    throttle can answer, so a slow body that reached the app would hold one of its threads."""
    body = b"install=" + b"0" * 100
    head = (
        b"POST /contribute/retract/ HTTP/1.1\r\nHost: localhost\r\n"
        b"Content-Type: application/x-www-form-urlencoded\r\n"
        b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n"
    )
    start, rest = (head, body) if slow_body else (b"", head + body)
    try:
        with connect() as slow:
            slow.sendall(start)
            connected.append(1)
            for byte in rest[:120]:  # at most two minutes, and the test ends it sooner
                if stop_event.wait(1):
                    return
                slow.sendall(bytes([byte]))
    except OSError:
        return


@contextmanager
def slow_clients(connect: Callable[[], socket.socket]) -> Iterator[None]:
    """SLOW_CLIENTS clients trickling (half headers, half bodies), connected and a few bytes in."""
    stop_event = threading.Event()
    connected: list[int] = []
    clients = [
        threading.Thread(target=trickle, args=(connect, n % 2 == 0, stop_event, connected), daemon=True)
        for n in range(SLOW_CLIENTS)
    ]
    for client in clients:
        client.start()
    try:
        deadline = time.monotonic() + 20
        while len(connected) < SLOW_CLIENTS and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(connected) == SLOW_CLIENTS
        time.sleep(3)  # every slow client has sent some bytes; the app has 4 threads
        yield
    finally:
        stop_event.set()
        for client in clients:
            client.join(timeout=10)


def test_forty_clients_at_a_byte_a_second_do_not_keep_a_page_from_answering(proxy: Proxy) -> None:
    assert proxy.request("GET", "/api/v1/stats")[0] == 200
    timings = []
    with slow_clients(proxy.slow_socket):
        for _ in range(5):
            started = time.monotonic()
            status = proxy.request("GET", "/api/v1/stats")[0]
            timings.append((status, time.monotonic() - started))
    print("probe seconds through the proxy while 40 clients trickle:", [round(seconds, 3) for _, seconds in timings])
    assert [status for status, _ in timings] == [200] * 5
    assert max(seconds for _, seconds in timings) < 1, timings

    # The same clients straight at the app's own port hold its threads: the proxy is what keeps it answering.
    with slow_clients(lambda: socket.create_connection(("127.0.0.1", proxy.app_port), timeout=10)):
        direct = http.client.HTTPConnection("127.0.0.1", proxy.app_port, timeout=2)
        with pytest.raises(TimeoutError):
            direct.request("GET", "/api/v1/stats", headers={"Host": "localhost"})
            direct.getresponse()
        direct.close()


def test_a_contribution_through_the_proxy_is_ranked_by_the_worker(proxy: Proxy) -> None:
    proxy.forget_counters()
    body = json.dumps(envelope(12)).encode()
    status, _, answer = proxy.request("POST", "/api/v1/contributions", body, {"Content-Type": "application/json"})
    assert status == 202, answer
    deadline = time.monotonic() + 60
    snapshot = None
    while snapshot is None and time.monotonic() < deadline:
        time.sleep(0.5)
        snapshot = json.loads(proxy.request("GET", "/healthz")[2])["snapshot"]
    assert snapshot is not None, "the worker published no snapshot within 60 s"


def test_the_apps_port_listens_on_loopback_only(proxy: Proxy) -> None:
    assert listening_addresses(proxy.app_port) == {"127.0.0.1"}
    assert listening_addresses(proxy.https_port) == {"127.0.0.1"}
    assert listening_addresses(proxy.http_port) == {"127.0.0.1"}
