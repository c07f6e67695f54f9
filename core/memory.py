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


# mallopt's parameter number for the mmap threshold (glibc's malloc.h).
_M_MMAP_THRESHOLD = -3
# Blocks of this size or more are mapped on their own and unmapped when freed.
LARGE_BLOCK = 1 << 20


def map_large_blocks() -> bool:
    """Serve every block of LARGE_BLOCK bytes or more from its own mapping, given back the moment it is freed.

    glibc starts large blocks that way, but raises its threshold to the size of each such block freed (up to
    32 MB): after the first large array is freed, arrays up to that size come from its arenas, and stay there
    once freed, one arena per thread. A recompute at ten million cycles then held ~400 MB of freed arrays on top
    of what it used (bench/recompute.py: its peak went from 1,926 to 1,531 MB with the threshold fixed, at the
    same speed). True when set; nothing elsewhere than glibc.
    """
    if _LIBC is None:
        return False
    return bool(_LIBC.mallopt(_M_MMAP_THRESHOLD, LARGE_BLOCK))
