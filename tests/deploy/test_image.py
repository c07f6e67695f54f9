"""The Dockerfile, read (no Docker engine runs here): two stages, wheels from the lock, a user
without privileges, static files collected at build, a HEALTHCHECK on /healthz. Its install
steps are the scripts tests/deploy/test_install.py runs, so what that test starts is what the
image holds."""

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of each Dockerfile line, continuation lines joined, comments left out."""
    text = re.sub(r"\\\n\s*", " ", (REPO / "Dockerfile").read_text())
    found = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            found.append((word.upper(), rest.strip()))
    return found


def stages() -> list[list[tuple[str, str]]]:
    split: list[list[tuple[str, str]]] = []
    for instruction in instructions():
        if instruction[0] == "FROM":
            split.append([])
        split[-1].append(instruction)
    return split


def test_it_builds_the_wheels_from_the_lock_in_one_stage_and_installs_them_in_the_next() -> None:
    build, run = stages()
    assert build[0] == ("FROM", "python:3.11-slim AS wheels")
    assert ("RUN", "deploy/wheels.sh /wheels") in build
    assert run[0] == ("FROM", "python:3.11-slim")
    assert ("COPY", "--from=wheels /wheels /wheels") in run
    assert ("RUN", "/app/deploy/install.sh /wheels /venv && rm -rf /wheels") in run
    # Nothing is installed but from the wheels, and nothing in the final stage reaches an index.
    assert not any(word == "RUN" and "pip install" in rest for word, rest in run)
    assert "--frozen" in (REPO / "deploy" / "wheels.sh").read_text()
    assert "--require-hashes" in (REPO / "deploy" / "install.sh").read_text()


def test_it_runs_as_a_user_without_privileges_and_collects_static_files_at_build() -> None:
    _, run = stages()
    users = [rest for word, rest in run if word == "USER"]
    assert users == ["app"]
    user_index = run.index(("USER", "app"))
    collect = [i for i, (word, rest) in enumerate(run) if word == "RUN" and "collectstatic" in rest]
    assert collect and collect[0] < user_index
    assert any(word == "RUN" and "useradd --system" in rest for word, rest in run)


def test_its_health_check_asks_healthz_and_it_starts_gunicorn_as_deployed() -> None:
    _, run = stages()
    (health,) = [rest for word, rest in run if word == "HEALTHCHECK"]
    assert "http://127.0.0.1:8000/healthz" in health
    assert ("CMD", '["gunicorn", "-c", "deploy/gunicorn.conf.py", "pragmatikos.wsgi"]') in run
    assert ("EXPOSE", "8000") in run
