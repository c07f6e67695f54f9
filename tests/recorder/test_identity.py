from __future__ import annotations

import stat
import uuid
from pathlib import Path

from pragmatikos_recorder.config import load_identity, replace_identity
from pragmatikos_recorder.envelope import envelope


def test_it_creates_the_install_id_once_readable_only_by_the_user(tmp_path: Path) -> None:
    first = load_identity(tmp_path / "config")
    again = load_identity(tmp_path / "config")
    assert first == again
    assert uuid.UUID(first.install).version == 4
    assert len(first.secret) == 32
    assert stat.S_IMODE(first.path.stat().st_mode) == 0o600
    assert load_identity(tmp_path / "elsewhere").install != first.install


def test_it_puts_exactly_the_six_envelope_keys_in_a_request(tmp_path: Path) -> None:
    body = envelope([], load_identity(tmp_path).install)
    assert list(body) == ["schema", "extractor", "install", "generated", "cols", "rows"]
    assert body["schema"] == 3 and len(body["cols"]) == 26
    assert body["generated"].endswith("Z")


def test_it_replaces_the_install_id_and_secret_readable_only_by_the_user(tmp_path: Path) -> None:
    old = load_identity(tmp_path)

    new = replace_identity(tmp_path)

    assert (new.install, new.secret) != (old.install, old.secret)
    assert load_identity(tmp_path) == new
    assert stat.S_IMODE(new.path.stat().st_mode) == 0o600
    assert [path.name for path in tmp_path.iterdir()] == ["install.json"]
