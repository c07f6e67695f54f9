from __future__ import annotations

import io

import pytest
from pragmatikos_recorder.cli import _report
from pragmatikos_recorder.client import Answer, stats_url
from pragmatikos_recorder.progress import Progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_it_draws_progress_only_on_a_terminal() -> None:
    terminal, piped = Terminal(), io.StringIO()
    for stream in (terminal, piped):
        bar = Progress(4, "reading logs", stream=stream, width=8)
        for _ in range(4):
            bar.advance()
        bar.close()
    assert terminal.getvalue().endswith("\rreading logs [########] 4/4\n")
    assert piped.getvalue() == ""


def test_it_prints_the_services_answer_with_the_rows_it_skipped(capsys: pytest.CaptureFixture[str]) -> None:
    body = {
        "accepted": 3, "inserted": 2, "updated": 0, "unchanged": 0, "skipped": 1, "snapshot": 7,
        "errors": [{"row": 1, "col": "model", "message": "must be a lowercase model or provider token"}],
    }  # fmt: skip
    assert _report(Answer(202, body)) is True
    assert capsys.readouterr().out.splitlines() == [
        "accepted 3: inserted 2, updated 0, unchanged 0, skipped 1",
        "  row 1, column model: must be a lowercase model or provider token",
    ]
    assert _report(Answer(429, {"error": "Too many requests."}, retry_after="30")) is False
    assert "try again in 30 seconds" in capsys.readouterr().out


def test_it_finds_the_stats_beside_the_contribution_endpoint() -> None:
    assert stats_url("https://example.org/api/v1/contributions") == "https://example.org/api/v1/stats"
