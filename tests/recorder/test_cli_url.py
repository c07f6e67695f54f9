"""The recorder sends nowhere it was not told to: no built-in address."""

import pytest
from pragmatikos_recorder import cli, client


def test_it_refuses_to_send_without_an_address(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("PRAGMATIKOS_URL", raising=False)

    code = cli.main(["retract", "--yes"])  # asks for the address before reading any identity

    assert code == 2
    assert "--url" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("given", "contributions"),
    [
        ("https://pragmatikos.example", "https://pragmatikos.example/api/v1/contributions"),
        ("https://pragmatikos.example/", "https://pragmatikos.example/api/v1/contributions"),
        ("https://pragmatikos.example/api/v1/contributions/", "https://pragmatikos.example/api/v1/contributions"),
        ("https://pragmatikos.example/v1/contribute", "https://pragmatikos.example/api/v1/contributions"),
        ("https://example.org/board/api/v1/contributions", "https://example.org/board/api/v1/contributions"),
        ("https://pragmatikos.example/contribute/", "https://pragmatikos.example/contribute"),  # used as given
    ],
)
def test_it_takes_the_host_or_an_address_of_the_api(given: str, contributions: str) -> None:
    url = client.contribution_url(given)

    assert url == contributions
    base = contributions.removesuffix("/api/v1/contributions").removesuffix("/contribute")
    assert client.counts_url(url) == base + "/api/v1/contributions/counts"
    assert client.stats_url(url) == base + "/api/v1/stats"
