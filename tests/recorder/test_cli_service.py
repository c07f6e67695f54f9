"""What the recorder says to a person, against the running service: true help, a dry run the preview accepts,
this install's counts, one-line errors naming the address to use, and a way to start again after a retraction."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from pragmatikos_recorder import cli

from tests.recorder.conftest import World
from tests.recorder.test_end_to_end import log_options

pytestmark = pytest.mark.django_db(transaction=True)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def post(url: str, body: Any) -> tuple[int, Any]:
    data = json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"}, method="POST")  # noqa: S310
    with urllib.request.urlopen(req, timeout=30) as response:  # noqa: S310 -- the test's own live server
        return response.status, json.loads(response.read())


def install_of(world: World) -> str:
    return str(json.loads((world.config / "install.json").read_text())["install"])


@pytest.fixture
def no_configured_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PRAGMATIKOS_URL", raising=False)


def test_its_help_promises_no_address_it_does_not_have(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("submit", "retract", "status"):
        with pytest.raises(SystemExit):
            cli.main([command, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert "public service" not in text
        assert "default $PRAGMATIKOS_URL" in text
    with pytest.raises(SystemExit):
        cli.main(["submit", "--help"])
    assert "there is no built-in address" in " ".join(capsys.readouterr().out.split())


def test_it_says_where_to_send_when_no_address_is_given(
    world: World, no_configured_url: None, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "submit", *log_options(world))

    assert code == 2
    assert "--url https://HOST" in err and "no built-in address" in err
    assert len(err.strip().splitlines()) == 1


def test_its_dry_run_is_a_body_the_preview_accepts(
    world: World, live_server: Any, no_configured_url: None, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "submit", "--dry-run", *log_options(world))
    body = json.loads(out)

    status, answer = post(f"{live_server.url}/api/v1/contributions/preview", body)

    assert code == 0
    assert (status, answer["accepted"], answer["skipped"]) == (200, 11, 0)
    assert body["install"] != install_of(world)  # a stand-in, never the install's own id
    assert "random stand-in" in err
    _, again, _ = run(capsys, "submit", "--dry-run", *log_options(world))
    assert json.loads(again)["install"] != body["install"]  # one per run: pasted bodies never share an install


def test_its_status_without_an_address_says_what_would_be_sent(
    world: World, no_configured_url: None, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "status", "--harness", "aider", *log_options(world))

    assert code == 0, err
    assert "aider: 1 log file\n" in out  # one history, and "file", not "files"
    assert "would send: 3 cycles (aider 3)" in out
    assert "service: not asked" in out
    assert err == ""


def test_its_status_shows_what_the_service_holds_of_this_install(
    world: World,
    live_server: Any,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    host = str(live_server.url)
    assert run(capsys, "submit", "--url", host, *log_options(world))[0] == 0  # the host alone is enough

    code, out, _ = run(capsys, "status", "--url", host, *log_options(world))
    assert code == 0
    assert f"this install at {host}: 11 cycles stored, 8 judged, 0 pending" in out
    assert f"the pool at {host}: 11 cycles, 8 judged, 1 contributor\n" in out

    monkeypatch.setenv("PRAGMATIKOS_RECORDER_CONFIG", str(tmp_path / "another-install"))
    code, out, _ = run(capsys, "status", "--url", f"{host}/api/v1/contributions", *log_options(world))
    assert f"this install at {host}: 0 cycles stored, 0 judged, 0 pending" in out
    assert f"the pool at {host}: 11 cycles" in out


def test_it_says_in_one_line_that_nothing_listens_at_the_address(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    for command in (["submit", *log_options(world)], ["status", *log_options(world)], ["retract", "--yes"]):
        code, _, err = run(capsys, *command, "--url", "http://127.0.0.1:9")

        assert code == 1
        assert err.splitlines()[-1] == (  # after the scan's summary: the one line of the error, no trace
            "pragmatikos-record: could not connect to http://127.0.0.1:9/ — is the service running?"
            " use --url with its address"
        )
        assert "urlopen" not in err and "Errno" not in err


def test_it_names_the_address_to_use_when_given_a_pages_address(
    world: World, live_server: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    host = str(live_server.url)

    code, _, err = run(capsys, "submit", "--url", f"{host}/contribute/", *log_options(world))

    assert code == 1
    error = [line for line in err.splitlines() if line.startswith("pragmatikos-record:")]
    assert len(error) == 1 and error == err.splitlines()[-1:]
    assert f"use the service's host ({host}) or {host}/api/v1/contributions" in err
    assert "not JSON" not in err


def test_it_says_nothing_was_retracted_when_the_answer_is_no(
    world: World, live_server: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("builtins.input", lambda prompt: "n")

    code, out, _ = run(capsys, "retract", "--url", str(live_server.url))

    assert (code, out) == (1, "Nothing retracted.\n")


def test_it_starts_again_with_a_new_install_after_a_retraction(
    world: World, live_server: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"{live_server.url}/api/v1/contributions"
    run(capsys, "submit", "--url", url, "--harness", "codex", *log_options(world))
    first = install_of(world)

    code, out, _ = run(capsys, "submit", "--url", url, "--new-install", *log_options(world))
    assert code == 1
    assert "holds 3 cycles of this install" in out and "pragmatikos-record retract" in out
    assert install_of(world) == first  # refused while its cycles are stored: they would count twice

    run(capsys, "retract", "--yes", "--url", url)
    code, out, _ = run(capsys, "submit", "--url", url, *log_options(world))
    assert code == 1
    assert "pragmatikos-record submit --new-install" in out

    code, out, _ = run(capsys, "submit", "--url", url, "--new-install", *log_options(world))
    assert code == 0, out
    assert "accepted 11: inserted 11" in out
    assert install_of(world) != first
    assert "11 cycles stored" in run(capsys, "status", "--url", url, *log_options(world))[1]


def test_it_counts_in_words_that_agree_with_the_number(
    world: World, live_server: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    url = str(live_server.url)
    gemini = ["--harness", "gemini-cli", "--gemini-dir", str(world.roots.gemini)]  # one chat, one cycle

    _, out, err = run(capsys, "submit", "--url", url, *gemini)
    assert "accepted 1:" in out
    assert err.startswith("1 cycle (gemini-cli 1)\n")

    _, out, _ = run(capsys, "status", "--url", url, *gemini)
    assert "gemini-cli: 1 log file\n" in out
    assert "would send: 1 cycle (gemini-cli 1)\n" in out
    assert f"this install at {url}: 1 cycle stored" in out
    assert f"the pool at {url}: 1 cycle, 0 judged, 1 contributor\n" in out

    _, out, _ = run(capsys, "retract", "--yes", "--url", url)
    assert out.startswith("deleted 1 cycle;")
