"""CONTRIBUTING's set-up commands work: the hook configuration it installs is valid and runs the locked tools."""

import subprocess
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def test_the_hook_configuration_is_valid() -> None:
    result = subprocess.run(
        [str(BIN / "pre-commit"), "validate-config", ".pre-commit-config.yaml"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_hook_runs_a_tool_the_lock_installs() -> None:
    config = yaml.safe_load((REPO / ".pre-commit-config.yaml").read_text())
    entries = [hook["entry"].split()[0] for repo in config["repos"] for hook in repo["hooks"]]
    assert entries
    for entry in entries:
        assert entry.startswith(".venv/bin/"), entry
        assert (BIN / Path(entry).name).exists(), entry


def test_contributing_names_the_commands_it_asks_for() -> None:
    text = (REPO / "CONTRIBUTING.md").read_text()
    assert ".venv/bin/pre-commit install" in text
    assert "make test" in text
