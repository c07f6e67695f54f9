import pytest
from pragmatikos_recorder.canonical import canonical_model, provider_of


@pytest.mark.parametrize(
    ("raw", "canonical"),
    [
        ("claude-opus-4-5-20251101", "claude-opus-4.5"),
        ("claude-sonnet-4-20250514", "claude-sonnet-4"),
        ("anthropic/claude-opus-4-5", "claude-opus-4.5"),
        ("openrouter/anthropic/claude-opus-4.7", "claude-opus-4.7"),
        ("claude-sonnet-4@20250514", "claude-sonnet-4"),
        ("claude-3-5-haiku-20241022", "claude-3.5-haiku"),
        ("Claude-Haiku-4-5-20251001", "claude-haiku-4.5"),
        ("gpt-4o-2024-08-06", "gpt-4o"),
        ("gpt-5-codex", "gpt-5-codex"),
        ("gpt-4.1-mini", "gpt-4.1-mini"),
        ("qwen3:32b", "qwen3:32b"),
        ("o3-mini", "o3-mini"),
    ],
)
def test_it_canonicalises_model_ids_like_the_plugin(raw: str, canonical: str) -> None:
    assert canonical_model(raw) == canonical


def test_it_takes_the_provider_from_the_id_or_the_family() -> None:
    assert provider_of("anthropic/claude-sonnet-4-20250514") == "anthropic"
    assert provider_of("openrouter/anthropic/claude-opus-4.7") == "openrouter"
    assert provider_of("o3-mini") == "openai"
    assert provider_of("gemini-2.5-pro") == "google"
    assert provider_of("mystery-model") == "unknown"
    assert provider_of("gpt-5-codex", default="azure") == "azure"
