"""The published logs the recorder's tests read are kept as their SOURCE.md describes them."""

from __future__ import annotations

import hashlib

import pytest

from tests.data.paths import DATA_DIR


@pytest.mark.parametrize("folder", ["aider", "codex"])
def test_every_sample_is_listed_in_its_source_with_its_digest(folder: str) -> None:
    source = (DATA_DIR / folder / "SOURCE.md").read_text(encoding="utf-8")
    samples = sorted(p for p in (DATA_DIR / folder).iterdir() if p.name != "SOURCE.md")
    assert samples
    for sample in samples:
        digest = hashlib.sha256(sample.read_bytes()).hexdigest()
        assert f"{digest}  {sample.name}" in source, sample.name
        assert f"`{sample.name}`" in source, sample.name  # and its origin row
