"""The repository ships the two contracts it implements (docs/spec/), and they stay the published ones.

Beside a checkout that has the shared specs (../shared/spec), a copy that differs fails here: a change of
contract is made on purpose, in both places, never found later by a client.
"""

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHIPPED = REPO / "docs" / "spec"
PUBLISHED = REPO.parent / "shared" / "spec"
SPECS = ("cycle-record.md", "scoring.md")


@pytest.mark.parametrize("name", SPECS)
def test_the_repository_ships_the_spec(name: str) -> None:
    text = (SHIPPED / name).read_text(encoding="utf-8")
    assert text.startswith("#"), name


@pytest.mark.parametrize("name", SPECS)
def test_the_shipped_spec_equals_the_published_one(name: str) -> None:
    published = PUBLISHED / name
    if not published.exists():
        pytest.skip("no ../shared/spec beside this checkout")
    shipped = (SHIPPED / name).read_bytes()
    assert shipped == published.read_bytes(), f"docs/spec/{name} differs from ../shared/spec/{name}"


def test_no_other_spec_is_shipped_without_its_check() -> None:
    assert sorted(path.name for path in SHIPPED.glob("*.md")) == sorted(SPECS)
