"""Known model names, from a maintained price list (genai-prices), for the public-label rule.

The list ships inside the package (no network). A name is known when it is exactly a model's id or
one of the names or prefixes the list matches that model by, both in the shared canonical form
(`pragmatikos_contract.names`: claude-opus-4-7-20260101 and claude-opus-4.7 are the same name).
Exact rather than the package's own prefix matching: `claude-opus-4-7-alice` matches a prefix,
but is no model anyone sells.
"""

from functools import cache

from pragmatikos_contract.names import canonical_model
from pragmatikos_contract.price_list import clause_names


@cache
def known_models() -> frozenset[str]:
    # The price list is read on first use, not at import: it and its package take a fifth of a second to load.
    from genai_prices import data_snapshot

    names: set[str] = set()
    for provider in data_snapshot.get_snapshot().providers:
        for model in provider.models:
            for name in (model.id, *clause_names(model.match)):
                names.add(canonical_model(name))
    return frozenset(names)


def is_known_model(name: str) -> bool:
    """Whether the price list names this model (in any of its spellings)."""
    return canonical_model(name) in known_models()


def is_known_canonical_model(name: str) -> bool:
    """Whether the price list names this model exactly as written: the public-label rule's check, on stored names
    that are canonical already, so the name a page prints is the very name that was checked."""
    return name in known_models()
