import pytest
from pragmatikos_recorder.canonical import canonical_model, provider_of

from tests.model_names import SHARED_CASES


@pytest.mark.parametrize(("raw", "canonical"), SHARED_CASES)
def test_it_canonicalises_model_ids_by_the_shared_rule(raw: str, canonical: str) -> None:
    assert canonical_model(raw) == canonical


def test_it_takes_the_provider_from_the_id_or_the_family() -> None:
    assert provider_of("anthropic/claude-sonnet-4-20250514") == "anthropic"
    assert provider_of("openrouter/anthropic/claude-opus-4.7") == "openrouter"
    assert provider_of("o3-mini") == "openai"
    assert provider_of("gemini-2.5-pro") == "google"
    assert provider_of("mystery-model") == "unknown"
    assert provider_of("gpt-5-codex", default="azure") == "azure"


@pytest.mark.parametrize(("raw", "canonical"), SHARED_CASES)
def test_a_canonical_name_is_its_own_canonical_name(raw: str, canonical: str) -> None:
    # The service and the lab canonicalise names the recorder already canonicalised: nothing may move twice.
    assert canonical_model(canonical) == canonical
