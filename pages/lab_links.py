"""Whether the lab has runs of a field model or pairing, so its page links to the lab only then.

The lab sits above this app: it registers the answer when it starts (lab.apps) and retires this
app's pages whenever its runs or aliases change. Without it, no page links to the lab.
"""

from collections.abc import Callable

_finder: Callable[[str, str], bool] | None = None


def register(finder: Callable[[str, str], bool]) -> None:
    global _finder
    _finder = finder


def in_the_lab(view: str, label: str) -> bool:
    return _finder is not None and _finder(view, label)
