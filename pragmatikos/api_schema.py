"""The OpenAPI schema names each endpoint once, by its canonical path (no trailing slash).

The API's routes accept an optional trailing slash (`/?$`), which drf-spectacular writes as a
trailing "/"; the contract's paths have none.
"""

from typing import Any


def canonical_paths(endpoints: list[tuple[str, str, str, Any]], **kwargs: Any) -> list[tuple[str, str, str, Any]]:
    """drf-spectacular preprocessing hook: drop the trailing slash an optional-slash route was given."""
    return [
        (path.rstrip("/") if regex.endswith("/?$") else path, regex, method, callback)
        for path, regex, method, callback in endpoints
    ]
