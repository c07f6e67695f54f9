"""The recorder against the running service: scan the fixtures, submit, see the cycles counted and ranked."""

from __future__ import annotations

import csv
import io
import json
import urllib.request
from collections import Counter
from typing import Any

import pytest
from pragmatikos_recorder import cli

from leaderboard.cycles_file import write_cycles_export
from leaderboard.recompute import publish
from tests.recorder.conftest import World

pytestmark = pytest.mark.django_db(transaction=True)


def get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as response:  # noqa: S310 -- the test's own live server
        return response.read()


def get_json(url: str) -> Any:
    return json.loads(get(url))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = cli.main(list(argv))
    return code, capsys.readouterr().out


def log_options(world: World) -> list[str]:
    roots = world.roots
    return ["--claude-dir", str(roots.claude), "--codex-dir", str(roots.codex), "--aider-root", str(roots.aider)]


def labels(view: dict[str, Any]) -> set[str]:
    return {g["label"] for g in view["groups"]} | {g["label"] for g in view["provisional"]}


def test_it_puts_the_users_cycles_into_the_service_and_its_rankings(
    world: World, live_server: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    site = str(live_server.url)
    url = f"{site}/api/v1/contributions"

    code, out = run(capsys, "submit", "--url", url, *log_options(world))
    assert code == 0, out
    assert "accepted 11: inserted 11, updated 0, unchanged 0, skipped 0" in out

    stats = get_json(f"{site}/api/v1/stats")
    # Judged: a > 0, tedits > 0, tpaths = 1. Not judged: Claude Code's plan-only cycle and its session outside
    # any repository, aider's session that edited nothing.
    assert (stats["cycles"], stats["judged"], stats["contributors"]) == (11, 8, 1)

    code, out = run(capsys, "submit", "--url", url, *log_options(world))
    assert "accepted 11: inserted 0, updated 0, unchanged 11, skipped 0" in out

    snapshot = publish(force=True)
    assert snapshot is not None
    # The worker writes the snapshot's cycles.csv; none runs in this test, so write it here.
    assert write_cycles_export(snapshot_id=snapshot.id) is not None
    views = get_json(f"{site}/api/v1/pool.json")["views"]
    assert {
        "claude-opus-4.5 → claude-sonnet-4.5",
        "gpt-5 → gpt-5-codex",
        "claude-sonnet-4 → claude-3.5-haiku",
    } <= labels(views["modelCombo"])
    assert {"claude-sonnet-4.5", "gpt-5-codex", "claude-sonnet-4"} <= labels(views["model"])
    exported = list(csv.DictReader(io.StringIO(get(f"{site}/data/cycles.csv").decode())))
    assert Counter(row["harness"] for row in exported) == {"claude-code": 5, "codex": 3, "aider": 3}
    assert {row["harness_version"] for row in exported} == {"2.0.30", "2.0.31", "0.46.0", "0.66.0", "0.86.1"}

    code, out = run(capsys, "status", "--url", url, *log_options(world))
    assert code == 0
    assert "11 cycles, 8 judged, 1 contributor\n" in out
    assert "claude-code: 3 log files" in out

    code, out = run(capsys, "retract", "--yes", "--url", url)
    assert code == 0
    assert out.startswith("deleted 11 cycles; this install's later contributions will be refused")
    assert get_json(f"{site}/api/v1/stats")["cycles"] == 0
    code, out = run(capsys, "submit", "--url", url, *log_options(world))
    assert code == 1
    assert out.startswith("refused:")


def test_it_previews_without_sending_and_hides_the_install_id(
    world: World, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PRAGMATIKOS_URL", "http://127.0.0.1:9/nothing-listens-here")
    code, out = run(capsys, "submit", "--dry-run", *log_options(world))
    assert code == 0
    body = json.loads(out)
    assert len(body["rows"]) == 11
    assert body["install"] != json.loads((world.config / "install.json").read_text())["install"]  # a stand-in
    code, out = run(capsys, "submit", "--dry-run", "--show-install", "--harness", "codex", *log_options(world))
    body = json.loads(out)
    assert len(body["rows"]) == 3
    assert body["install"] == json.loads((world.config / "install.json").read_text())["install"]


def test_it_shows_the_25_fields_of_each_cycle_and_nothing_else(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = run(capsys, "scan", "--harness", "aider", *log_options(world))
    assert code == 0
    header, *lines = out.strip().splitlines()
    assert header.split() == [
        "day", "model", "prov", "role", "pm", "pp", "bm", "bp", "u", "a", "tedits", "tpaths", "teerr", "tcost",
        "tship", "thrs", "tver", "tabort", "latmed", "tshipe", "variant", "pv", "bv", "harness", "hversion",
    ]  # fmt: skip
    assert [line.split()[:2] for line in lines] == [
        ["2025-03-12", "claude-sonnet-4"],
        ["2025-03-12", "claude-sonnet-4"],
        ["2025-03-13", "o3-mini"],
    ]
    assert all(len(line.split()) == 25 for line in lines)
