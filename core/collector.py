"""Python's cycle collector, paused while a large request is parsed and checked."""

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic garbage collection inside the block.

    Parsing JSON and checking its rows make hundreds of thousands of lists and tuples that form no
    cycle, and each few hundred of them starts a collection that walks them all again: for a
    100,000-row contribution that was about a quarter of the time to parse and check it. Reference
    counting still frees everything as usual. The pause is process-wide, so another thread's cycles
    wait until the block ends (a few seconds at most); a collector already off stays off.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
