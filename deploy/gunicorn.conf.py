"""Gunicorn in production: `gunicorn -c deploy/gunicorn.conf.py pragmatikos.wsgi`.

Threaded workers (gthread): a request waiting on the database or a slow reader holds one
thread, not a whole process. Slow clients are kept off the app altogether by the proxy in
front (deploy/Caddyfile), which hands over complete requests only.

No log line carries a client address: the access log format leaves the address out and
the error log's one address-bearing message (an unparseable request) is redacted.
"""

import contextlib
import ctypes
import ctypes.util
import logging
import os
import re
import sys

from gunicorn import glogging

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
worker_class = "gthread"
workers = int(os.environ.get("WEB_WORKERS", "2"))
threads = int(os.environ.get("WEB_THREADS", "8"))
timeout = 120
graceful_timeout = 30
keepalive = 5

# At most two malloc arenas per process (glibc makes up to eight per core, one for each contending thread):
# the memory a large body's parse frees, spread over many arenas, is seldom whole pages and is never given
# back. Set here, in the master before it forks, so every worker inherits it; elsewhere than glibc, nothing.
M_ARENA_MAX = -8  # mallopt's parameter number (malloc.h)
MALLOC_ARENAS = int(os.environ.get("MALLOC_ARENA_MAX", "2"))
with contextlib.suppress(OSError, AttributeError):
    ctypes.CDLL(ctypes.util.find_library("c")).mallopt(M_ARENA_MAX, MALLOC_ARENAS)

accesslog = "-"
errorlog = "-"
# Time, request line, status, bytes, milliseconds: no %(h)s, no forwarded-for header, no user agent.
access_log_format = '%(t)s "%(r)s" %(s)s %(b)s %(M)sms'

ADDRESS = re.compile(r"\bip=\S+|\b\d{1,3}(?:\.\d{1,3}){3}\b")


class RedactAddresses(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if ADDRESS.search(message):
            record.msg, record.args = ADDRESS.sub("[address]", message), ()
        return True


class AddressFreeLogger(glogging.Logger):  # type: ignore[misc]  # gunicorn has no types
    def setup(self, cfg):  # type: ignore[no-untyped-def]
        super().setup(cfg)
        self.error_log.addFilter(RedactAddresses())
        self.access_log.addFilter(RedactAddresses())


logger_class = AddressFreeLogger


def post_worker_init(worker):  # type: ignore[no-untyped-def]
    # A day window computed on demand holds the GIL in long stretches; a page thread of the same process takes
    # it back after each cache read within 1 ms instead of Python's default 5.
    sys.setswitchinterval(0.001)
