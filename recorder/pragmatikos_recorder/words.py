"""Counts in words: "1 cycle", "2 cycles"."""

from __future__ import annotations


def count(number: int, one: str, many: str | None = None) -> str:
    """The number and the noun in the form it takes: count(1, "cycle") is "1 cycle", count(0, "cycle") "0 cycles"."""
    return f"{number} {one if number == 1 else (many or one + 's')}"
