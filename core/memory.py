"""Giving freed memory back to the system, so a process's size follows what it holds rather than its peak."""

from __future__ import annotations

import ctypes
import ctypes.util
import threading


def _glibc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name)
    except OSError:
        return None
    return libc if hasattr(libc, "malloc_trim") else None


_LIBC = _glibc()
_trimming = threading.Lock()


def return_freed_memory() -> bool:
    """Hand the pages malloc holds free back to the system (glibc's malloc_trim; nothing elsewhere).

    Python frees a parsed body's objects at once, but glibc keeps the freed pages of its arenas for
    reuse: a process that once parsed a large body stays that large. One trim at a time: they would
    only wait on each other's arena locks. True when a trim ran.
    """
    if _LIBC is None or not _trimming.acquire(blocking=False):
        return False
    try:
        _LIBC.malloc_trim(0)
    finally:
        _trimming.release()
    return True
