"""Gunicorn started with deploy/gunicorn.conf.py on a loopback port, over the test database.

What is checked here is the app server alone: its logs carry no client address, HSTS is
sent behind the TLS proxy, and threads keep serving while slow clients hold others. The
proxy in front (deploy/Caddyfile) runs in tests/deploy/test_proxy.py.
"""

import http.client
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.pipeline.workers import deployed_gunicorn

pytestmark = pytest.mark.django_db(transaction=True)

FORWARDED_ADDRESS = "203.0.113.9"


class Server:
    def __init__(self, port: int, log: Path) -> None:
        self.port = port
        self.log = log

    def get(self, path: str, headers: dict[str, str] | None = None, timeout: float = 10) -> http.client.HTTPResponse:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        connection.request("GET", path, headers={"Host": "localhost", **(headers or {})})
        response = connection.getresponse()
        response.read()
        connection.close()
        return response

    def text(self, path: str, headers: dict[str, str] | None = None) -> str:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        connection.request("GET", path, headers={"Host": "localhost", **(headers or {})})
        body = connection.getresponse().read().decode()
        connection.close()
        return body

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")


@pytest.fixture
def gunicorn() -> Iterator[Server]:
    # The Host of the probes is localhost: ALLOWED_HOSTS is narrowed to it.
    with deployed_gunicorn(WEB_WORKERS="1", WEB_THREADS="4", BEHIND_TLS_PROXY="1", ALLOWED_HOSTS="localhost") as (
        port,
        log,
    ):
        yield Server(port, log)


def test_it_logs_requests_without_the_client_address(gunicorn: Server) -> None:
    forwarded = {"X-Forwarded-For": FORWARDED_ADDRESS, "X-Forwarded-Proto": "https"}
    assert gunicorn.get("/api/v1/stats", forwarded).status == 200
    assert gunicorn.get("/no-such-page/", forwarded).status == 404
    # An unparseable request: gunicorn's error log names the peer of those.
    with socket.create_connection(("127.0.0.1", gunicorn.port)) as raw:
        raw.sendall(b"NOT HTTP AT ALL\r\n\r\n")
        raw.recv(1024)
    time.sleep(0.5)

    log = gunicorn.log_text()
    assert '"GET /api/v1/stats HTTP/1.1" 200' in log
    assert '"GET /no-such-page/ HTTP/1.1" 404' in log
    assert "Invalid request from [address]" in log
    assert "127.0.0.1" not in log.replace(f"127.0.0.1:{gunicorn.port}", "")  # the bind line names our own port
    assert FORWARDED_ADDRESS not in log


def test_it_sends_hsts_on_requests_the_tls_proxy_forwarded(gunicorn: Server) -> None:
    over_tls = gunicorn.get("/", {"X-Forwarded-Proto": "https"})
    plain = gunicorn.get("/")

    assert over_tls.status == 200
    assert over_tls.getheader("Strict-Transport-Security") == "max-age=31536000"
    assert plain.getheader("Strict-Transport-Security") is None
    assert "script-src 'self'" in (over_tls.getheader("Content-Security-Policy") or "")
    # The contribute page gives contributors the HTTPS address to send to.
    assert "<code>https://localhost/api/v1/contributions</code>" in gunicorn.text(
        "/contribute/", {"X-Forwarded-Proto": "https"}
    )


def trickle(port: int, head: bytes, payload: bytes, stop: threading.Event) -> None:
    """A client that sends `head` at once, then `payload` one byte a second."""
    with socket.create_connection(("127.0.0.1", port)) as slow:
        slow.sendall(head)
        for byte in payload:
            if stop.wait(1):
                return
            try:
                slow.sendall(bytes([byte]))
            except OSError:
                return


def test_it_keeps_serving_while_two_clients_trickle_a_byte_a_second(gunicorn: Server) -> None:
    assert gunicorn.get("/api/v1/stats").status == 200  # warm: the first request loads the app
    stop = threading.Event()
    headers = b"GET /api/v1/stats HTTP/1.1\r\nHost: localhost\r\nX-Padding: " + b"x" * 100 + b"\r\n\r\n"
    body = b'{"install": "' + b"0" * 200 + b'"}'
    body_headers = (
        b"POST /api/v1/contributions/preview HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
        b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n"
    )
    clients = [
        threading.Thread(target=trickle, args=(gunicorn.port, b"", headers, stop)),  # slow headers
        threading.Thread(target=trickle, args=(gunicorn.port, body_headers, body, stop)),  # slow body
    ]
    for client in clients:
        client.start()
    try:
        time.sleep(3)  # both slow clients are connected and being read
        served = []
        for _ in range(5):
            started = time.monotonic()
            served.append((gunicorn.get("/api/v1/stats", timeout=10).status, time.monotonic() - started))
    finally:
        stop.set()
        for client in clients:
            client.join()
    print("probe seconds while two clients trickle:", [round(seconds, 3) for _, seconds in served])
    assert [status for status, _ in served] == [200] * 5
    assert max(seconds for _, seconds in served) < 2, served
