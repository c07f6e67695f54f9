"""Tokens x prices from genai-prices' maintained list, at the price of the day the step ran."""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache

from genai_prices import Usage, calc_price

from pragmatikos_recorder.session import Tokens


@lru_cache(maxsize=4096)
def _price(model: str, provider: str, tokens: Tokens, day: str | None) -> float | None:
    usage = Usage(
        input_tokens=tokens.input,
        output_tokens=tokens.output,
        cache_read_tokens=tokens.cache_read,
        cache_write_tokens=tokens.cache_write,
    )
    when = datetime.fromisoformat(day) if day else None
    for provider_id in (provider, None):
        try:
            return float(calc_price(usage, model, provider_id=provider_id, genai_request_timestamp=when).total_price)
        except LookupError:
            continue
        except ValueError:  # counts the price list cannot take (e.g. cache reads above the input)
            return None
    return None


def price(model: str, provider: str, tokens: Tokens, when: datetime | None) -> float | None:
    """Dollars for `tokens` of `model`, or None when the price list does not know the model."""
    if not model:
        return None
    return _price(model, provider, tokens, when.isoformat() if when else None)
