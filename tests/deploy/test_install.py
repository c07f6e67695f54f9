"""The server as the image installs it: deploy/wheels.sh builds the wheels from uv.lock, deploy/install.sh
puts them into a fresh virtualenv (the Dockerfile runs the same two), and the service runs from it
outside the checkout. The first run downloads the locked wheels (about 100 MB); later ones come from
pip's cache."""

import http.client
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.pipeline.workers import REPO, child_database_env, gunicorn_from


def script_env(uv_dir: Path) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items() if name not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{uv_dir}:{env.get('PATH', '/usr/bin:/bin')}"
    return env


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The virtualenv deploy/install.sh made from deploy/wheels.sh's wheels: made once per session, since
    pytest-django runs this module's transactional test apart from the other."""
    uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    if uv is None:
        pytest.skip("uv is not installed (make installs it into .venv)")
    folder = tmp_path_factory.mktemp("install")
    env = script_env(Path(uv).parent)
    for command in (
        ["deploy/wheels.sh", str(folder / "wheels")],
        ["deploy/install.sh", str(folder / "wheels"), str(folder / "venv")],
    ):
        done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, timeout=900, check=False)
        assert done.returncode == 0, done.stderr.decode(errors="replace")[-3000:]
    return folder / "venv"


def outside_env(folder: Path) -> dict[str, str]:
    """The deployed environment over the test database, with nothing of the checkout on the path."""
    env = child_database_env()
    env.pop("VIRTUAL_ENV", None)
    env.update(PYTHONPATH="", DJANGO_SETTINGS_MODULE="pragmatikos.settings", STATIC_ROOT=str(folder / "static"))
    return env


def run_in(venv: Path, folder: Path, *command: str) -> str:
    done = subprocess.run(
        [str(venv / "bin" / command[0]), *command[1:]],
        cwd=folder,
        env=outside_env(folder),
        capture_output=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, (command, done.stdout.decode()[-2000:], done.stderr.decode()[-3000:])
    return done.stdout.decode()


def test_the_server_gets_the_service_and_the_contract_and_never_the_recorder(installed: Path, tmp_path: Path) -> None:
    where = run_in(
        installed,
        tmp_path,
        "python",
        "-c",
        "import pragmatikos, pragmatikos_contract; print(pragmatikos.__file__, pragmatikos_contract.__file__)",
    )
    assert all(path.startswith(str(installed)) for path in where.split()), where
    names = run_in(installed, tmp_path, "python", "-m", "pip", "list", "--format", "freeze")
    installed_names = {line.split("==")[0].lower() for line in names.splitlines()}
    assert {"pragmatikos", "pragmatikos-contract", "django", "gunicorn", "celery"} <= installed_names
    assert "pragmatikos-recorder" not in installed_names
    assert "pytest" not in installed_names and "ruff" not in installed_names  # the dev group stays out
    # Every dependency at the version and hash the lock names.
    requirements = (installed.parent / "wheels" / "requirements.txt").read_text()
    pins = [line for line in requirements.splitlines() if line and not line.startswith((" ", "#"))]
    assert pins and all("==" in pin for pin in pins)
    assert requirements.count("--hash=sha256:") >= len(pins)


@pytest.mark.django_db(transaction=True)
def test_the_installed_service_migrates_collects_and_serves_outside_the_checkout(
    installed: Path, tmp_path: Path
) -> None:
    run_in(installed, tmp_path, "django-admin", "migrate", "--check")  # every migration ships in the wheel
    run_in(installed, tmp_path, "django-admin", "collectstatic", "--no-input", "-v", "0")
    assert (tmp_path / "static" / "pragmatikos.css").is_file()

    env = {**outside_env(tmp_path), "ALLOWED_HOSTS": "localhost"}
    with gunicorn_from(str(installed / "bin" / "python"), tmp_path, env) as (port, log):
        answers = {}
        for path in ("/healthz", "/", "/data/", "/static/pragmatikos.css"):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            connection.request("GET", path, headers={"Host": "localhost"})
            response = connection.getresponse()
            answers[path] = (response.status, response.read())
            connection.close()
    assert {path: status for path, (status, _) in answers.items()} == dict.fromkeys(answers, 200), log.read_text()
    assert b"<html" in answers["/"][1]  # the templates come from the installed package
