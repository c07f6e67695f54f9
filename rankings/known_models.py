"""Known model names, from a maintained price list (genai-prices), for the public-label rule.

The list ships inside the package (no network). A name is known when it is exactly a model's id or
one of the names or prefixes the list matches that model by, both in the shared canonical form
(`pragmatikos_contract.names`: claude-opus-4-7-20260101 and claude-opus-4.7 are the same name).
Exact rather than the package's own prefix matching: `claude-opus-4-7-alice` matches a prefix,
but is no model anyone sells.
"""

from functools import cache
from typing import Any

from genai_prices import data_snapshot
from pragmatikos_contract.names import canonical_model


def _clause_names(clause: Any) -> list[str]:
    """The exact names and prefixes a match clause of the price list names, through its or/and."""
    for attribute in ("equals", "starts_with"):
        if isinstance(getattr(clause, attribute, None), str):
            return [getattr(clause, attribute)]
    for attribute in ("or_", "and_"):
        if isinstance(getattr(clause, attribute, None), list):
            return [name for inner in getattr(clause, attribute) for name in _clause_names(inner)]
    return []


@cache
def known_models() -> frozenset[str]:
    names: set[str] = set()
    for provider in data_snapshot.get_snapshot().providers:
        for model in provider.models:
            for name in (model.id, *_clause_names(model.match)):
                names.add(canonical_model(name))
    return frozenset(names)


def is_known_model(name: str) -> bool:
    """Whether the price list names this model (in any of its spellings)."""
    return canonical_model(name) in known_models()
