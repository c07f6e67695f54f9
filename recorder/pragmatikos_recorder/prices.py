"""Tokens x prices from genai-prices' maintained list, at the price of the day the step ran.

A model is looked up by the id the log spells, then by its canonical name: the list knows
`claude-sonnet-4-5` and `gpt-5.1-codex`, not every dated or gateway spelling of them. Cache
writes kept for an hour are priced at the list's own 1-hour rate (2x base input for Anthropic,
against 1.25x for 5-minute writes).
"""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache

from genai_prices import Usage, calc_price

from pragmatikos_recorder.canonical import canonical_model
from pragmatikos_recorder.session import Tokens


def _usage(tokens: Tokens) -> Usage:
    return Usage(
        input_tokens=tokens.input,
        output_tokens=tokens.output,
        cache_read_tokens=tokens.cache_read,
        cache_write_tokens=tokens.cache_write,
        # genai-prices prices this part of cache_write_tokens apart; the rest stays at the 5-minute rate.
        cache_write_1h_tokens=min(tokens.cache_write_1h, tokens.cache_write),
    )


@lru_cache(maxsize=4096)
def _price(model: str, provider: str, tokens: Tokens, day: str | None) -> float | None:
    usage = _usage(tokens)
    when = datetime.fromisoformat(day) if day else None
    names = dict.fromkeys((model, canonical_model(model)))
    for name in names:
        for provider_id in (provider, None):
            try:
                return float(calc_price(usage, name, provider_id=provider_id, genai_request_timestamp=when).total_price)
            except LookupError:
                continue
            except ValueError:  # counts the price list cannot take (e.g. cache reads above the input)
                return None
    return None


def price(model: str, provider: str, tokens: Tokens, when: datetime | None) -> float | None:
    """Dollars for `tokens` of `model`, or None when the price list knows neither its id nor its canonical name."""
    if not model:
        return None
    return _price(model, provider, tokens, when.isoformat() if when else None)
