"""Redis servers of a test's own: settings that point the cache at one, and a redis-server that a test
starts, can hang (SIGSTOP: it keeps its port open and answers nothing) and stops. The one way the tests start
a Redis of their own (`with OwnRedis() as server`, or a fixture around it); the machine's own Redis is never
touched."""

import shutil
import signal
import subprocess
import time
from types import TracebackType
from typing import Any

import pytest
import redis
from django.conf import settings

from tests.ports import free_port


def redis_cache(port: int) -> dict[str, Any]:
    """CACHES pointing the default cache at this loopback port, with the settings' backend (its timeouts are
    settings.REDIS_TIMEOUT)."""
    return {
        "default": {"BACKEND": "core.redis_cache.FactoryRedisCache", "LOCATION": f"redis://127.0.0.1:{port}/0"},
        "process": settings.PROCESS_CACHE,
    }


class OwnRedis:
    """A redis-server on a free loopback port, nothing saved; skips the test when none is installed."""

    def __init__(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.skip("redis-server is not installed")
        self.port = free_port()
        options = ["--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        self.process = subprocess.Popen(
            [binary, *options, "--daemonize", "no"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        probe = redis.Redis(port=self.port, socket_timeout=1)
        deadline = time.monotonic() + 10
        while True:
            try:
                probe.ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    self.close()
                    raise
                time.sleep(0.05)
        probe.close()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def __enter__(self) -> "OwnRedis":
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def hang(self) -> None:
        """Stop the server without closing its port: connections are accepted, nothing is answered."""
        self.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        self.process.send_signal(signal.SIGCONT)

    def close(self) -> None:
        if self.process.poll() is None:
            self.resume()
            self.process.terminate()
            self.process.wait(timeout=10)
