"""The recorder sends nowhere it was not told to: no built-in address."""

import pytest
from pragmatikos_recorder import cli


def test_it_refuses_to_send_without_an_address(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("PRAGMATIKOS_URL", raising=False)

    code = cli.main(["retract", "--yes"])  # asks for the address before reading any identity

    assert code == 2
    assert "--url" in capsys.readouterr().err
