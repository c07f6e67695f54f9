"""A free loopback port for a server a test (or a benchmark) starts of its own."""

import socket


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now (the caller's server takes it next)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
