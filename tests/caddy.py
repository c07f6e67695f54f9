"""The repository's deploy/Caddyfile under Debian's caddy on loopback, and clients that misbehave at it.

Shared by tests/deploy/ and bench/slow_readers.py (the benchmarks import the tests' helpers, never the reverse):
Caddy serves DOMAIN=localhost with a certificate of its own local authority, whose root the clients trust (it is
written under the run's own folder, never into the system's trust store). Every client loop here is bounded in
count and time.
"""

from __future__ import annotations

import http.client
import shutil
import socket
import ssl
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.ports import free_port

REPO = Path(__file__).resolve().parent.parent
CADDYFILE = REPO / "deploy" / "Caddyfile"


class LocalhostHTTPS(http.client.HTTPSConnection):
    """HTTPS to 127.0.0.1 naming `localhost` (SNI and certificate check), so nothing resolves the name."""

    def connect(self) -> None:
        raw = socket.create_connection(("127.0.0.1", self.port), self.timeout)
        self.sock = self._context.wrap_socket(raw, server_hostname="localhost")  # type: ignore[attr-defined]


@dataclass
class Caddy:
    process: subprocess.Popen[bytes]
    folder: Path
    https_port: int
    http_port: int
    root: Path

    def log_tail(self) -> str:
        return (self.folder / "caddy.log").read_text(errors="replace")[-3000:]

    def rss_bytes(self) -> int:
        """The caddy process's resident memory now."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        return 0


def start_caddy(folder: Path, upstream_port: int, export_dir: Path | None = None) -> Caddy:
    """caddy running deploy/Caddyfile in front of 127.0.0.1:upstream_port; the caller stops it."""
    binary = shutil.which("caddy")
    if binary is None:
        raise FileNotFoundError("caddy is not installed (apt-get install caddy)")
    https_port, http_port, admin_port = free_port(), free_port(), free_port()
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(folder),
        "XDG_DATA_HOME": str(folder / "data"),
        "XDG_CONFIG_HOME": str(folder / "config"),
        "DOMAIN": "localhost",
        "UPSTREAM": f"127.0.0.1:{upstream_port}",
        "BIND_ADDRESS": "127.0.0.1",
        "HTTP_PORT": str(http_port),
        "HTTPS_PORT": str(https_port),
        "CADDY_ADMIN": f"127.0.0.1:{admin_port}",
        "EXPORT_DIR": str(export_dir or folder / "exports"),
    }
    command = [binary, "run", "--config", str(CADDYFILE), "--adapter", "caddyfile"]
    with (folder / "caddy.log").open("wb") as log:
        process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    root = folder / "data" / "caddy" / "pki" / "authorities" / "local" / "root.crt"
    return Caddy(process, folder, https_port, http_port, root)


def wait_for_tls(caddy: Caddy, seconds: float = 30) -> ssl.SSLContext:
    """A client context trusting Caddy's local authority, once Caddy completes a handshake."""
    deadline = time.monotonic() + seconds
    while True:
        if caddy.process.poll() is not None:
            raise RuntimeError("caddy exited: " + caddy.log_tail())
        if caddy.root.exists():
            context = ssl.create_default_context(cafile=str(caddy.root))
            try:
                with socket.create_connection(("127.0.0.1", caddy.https_port), timeout=2) as raw:
                    context.wrap_socket(raw, server_hostname="localhost").close()
                return context
            except (OSError, ssl.SSLError):
                pass
        if time.monotonic() > deadline:
            raise RuntimeError("caddy did not complete a handshake: " + caddy.log_tail())
        time.sleep(0.2)


def stop_caddy(caddy: Caddy) -> None:
    caddy.process.terminate()
    try:
        caddy.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        caddy.process.kill()
        caddy.process.wait(timeout=10)


@dataclass
class SlowReaders:
    """`count` clients asking for `path` over TLS, then reading `rate` bytes a second, until stopped.
    Entering returns once each has been answered (`answered`), or after 20 s.

    Each has a small receive buffer, so the server's writes stall as soon as the kernel's buffers fill."""

    port: int
    tls: ssl.SSLContext
    path: str
    count: int = 50
    rate: int = 512
    headers: dict[str, str] = field(default_factory=dict)
    most_seconds: float = 120.0
    connected: int = 0
    answered: int = 0
    gave_up: int = 0  # connections that ended or timed out before their first bytes
    bytes_read: int = 0
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    threads: list[threading.Thread] = field(default_factory=list)

    def reader(self) -> None:
        extra = "".join(f"{name}: {value}\r\n" for name, value in self.headers.items())
        request = f"GET {self.path} HTTP/1.1\r\nHost: localhost\r\n{extra}\r\n".encode()
        ends = time.monotonic() + self.most_seconds
        first = True
        try:
            raw = socket.socket()
            raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            raw.settimeout(10)
            raw.connect(("127.0.0.1", self.port))
            with self.tls.wrap_socket(raw, server_hostname="localhost") as slow:
                slow.sendall(request)
                with self.lock:
                    self.connected += 1
                while time.monotonic() < ends and not self.stop.wait(1):
                    block = slow.recv(self.rate)
                    if not block:
                        break
                    with self.lock:
                        self.answered += first
                        self.bytes_read += len(block)
                    first = False
        except OSError:
            pass  # refused, reset or timed out: counted below if before the first bytes
        if first:
            with self.lock:
                self.gave_up += 1

    def __enter__(self) -> SlowReaders:
        self.threads = [threading.Thread(target=self.reader, daemon=True) for _ in range(self.count)]
        for thread in self.threads:
            thread.start()
        # Until each has its answer's first bytes (or gave up): the app has decided them all, only holding is left.
        deadline = time.monotonic() + 20
        while self.answered + self.gave_up < self.count and time.monotonic() < deadline:
            time.sleep(0.1)
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=15)


def probe(port: int, tls: ssl.SSLContext, paths: list[str], seconds: float, timeout: float = 10) -> list[float]:
    """Seconds per page request, one at a time on a fresh connection, for `seconds`; a timeout counts as `timeout`."""
    timings: list[float] = []
    ends = time.monotonic() + seconds
    index = 0
    while time.monotonic() < ends:
        path = paths[index % len(paths)]
        index += 1
        started = time.monotonic()
        connection = LocalhostHTTPS("127.0.0.1", port, timeout=timeout, context=tls)
        try:
            connection.request("GET", path, headers={"Host": "localhost"})
            response = connection.getresponse()
            response.read()
            ok = response.status == 200
        except (OSError, http.client.HTTPException):
            ok = False
        finally:
            connection.close()
        timings.append(time.monotonic() - started if ok else timeout)
    return timings


def percentile(timings: list[float], share: float) -> float:
    ordered = sorted(timings)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def held_uploads(
    port: int, tls: ssl.SSLContext, *, count: int, size: int, path: str = "/api/v1/contributions"
) -> list[socket.socket]:
    """`count` uploads announcing `size` bytes and sending all but the last (or until the proxy stops
    reading it for 5 s): open sockets the caller closes."""
    held: list[socket.socket] = []
    head = (
        f"POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {size}\r\n\r\n"
    ).encode()
    block = b" " * (1 << 20)
    for _ in range(count):
        raw = socket.create_connection(("127.0.0.1", port), timeout=5)
        upload = tls.wrap_socket(raw, server_hostname="localhost")
        held.append(upload)
        upload.sendall(head)
        left = size - 1
        try:
            while left:
                left -= upload.send(block[: min(left, len(block))])
        except TimeoutError:
            continue  # not read on: held all the same
        except OSError:
            continue  # answered and closed before the whole body (the app's own refusal)
    return held
