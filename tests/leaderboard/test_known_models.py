"""Known model names: the price list's names in the shared canonical form, matched exactly."""

import pytest
from pragmatikos_contract.names import canonical_model

from leaderboard.known_models import is_known_model, known_models
from tests.model_names import SHARED_CASES


@pytest.mark.parametrize(("raw", "canonical"), SHARED_CASES)
def test_a_spelling_is_known_exactly_when_its_canonical_name_is(raw: str, canonical: str) -> None:
    assert is_known_model(raw) == is_known_model(canonical)


def test_it_keeps_the_list_in_the_canonical_form() -> None:
    # A name stored another way could never be matched by what the recorder sends.
    assert all(canonical_model(name) == name for name in known_models())


@pytest.mark.parametrize(
    "spelling",
    [
        "claude-sonnet-4-5-20250929",  # Anthropic's dated id
        "us.anthropic.claude-sonnet-4-5-20250929-v1:0",  # Bedrock's cross-region id
        "claude-sonnet-4@20250514",  # Vertex
        "openai/gpt-5-1-codex-2025-11-13",
        "claude-3-5-sonnet",
    ],
)
def test_it_knows_a_sold_model_in_each_vendor_spelling(spelling: str) -> None:
    assert is_known_model(spelling)


@pytest.mark.parametrize("name", ["claude-opus-4-7-alice", "acme-gpt4-prod", "support-bot"])
def test_it_does_not_know_a_name_that_only_starts_like_a_model(name: str) -> None:
    assert not is_known_model(name)
