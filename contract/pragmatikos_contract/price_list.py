"""Reading genai-prices' model list the one way both the service and the recorder read it.

Pure and import-free: a match clause is read through its attributes, so this package needs no
genai-prices of its own.
"""

from typing import Any


def clause_names(clause: Any) -> list[str]:
    """The exact names and prefixes a match clause of the price list names, through its or/and."""
    for attribute in ("equals", "starts_with"):
        if isinstance(getattr(clause, attribute, None), str):
            return [getattr(clause, attribute)]
    for attribute in ("or_", "and_"):
        if isinstance(getattr(clause, attribute, None), list):
            return [name for inner in getattr(clause, attribute) for name in clause_names(inner)]
    return []
