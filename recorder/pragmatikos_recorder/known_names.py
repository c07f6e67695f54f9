"""Model and provider names the world knows, from genai-prices' maintained list (no network).

A name is known when it is exactly a model id of the list, or one of the names or prefixes the
list matches a model by, both in the shared canonical form (`claude-opus-4-5-20251101` and
`claude-opus-4.5` are one name). Exact, not the list's own prefix matching: `claude-opus-4-5-acme`
starts like a model but names a private deployment. The service's public labels read the same
list the same way (`leaderboard/known_models.py`).
"""

from __future__ import annotations

from functools import cache

from genai_prices import data_snapshot
from pragmatikos_contract.names import canonical_model
from pragmatikos_contract.price_list import clause_names


@cache
def listed_models() -> frozenset[str]:
    providers = data_snapshot.get_snapshot().providers
    return frozenset(
        canonical_model(name) for provider in providers for model in provider.models for name in (
            model.id, *clause_names(model.match)
        )
    )  # fmt: skip


@cache
def listed_providers() -> frozenset[str]:
    return frozenset(provider.id.lower() for provider in data_snapshot.get_snapshot().providers)
