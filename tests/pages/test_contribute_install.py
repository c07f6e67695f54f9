"""The contribute page's commands work when pasted: the recorder installs from a fresh clone, and the page
links where the code and the plugin live."""

import html
import os
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.test import Client, override_settings

from leaderboard.models import Snapshot
from pages.wording import PLUGIN_NPM_URL, PLUGIN_README_URL, RECORDER_INSTALL_COMMANDS

REPOSITORY = Path(__file__).resolve().parents[2]
SOURCE = "https://example.org/pragmatikos.git"


def shown_install_commands(page: str) -> list[str]:
    block = re.search(r'<pre class="wrap install"><code>(.*?)</code></pre>', page, re.S)
    assert block is not None, "the contribute page shows the recorder's install commands"
    return [html.unescape(line) for line in block[1].splitlines() if line.strip()]


def index_answers() -> bool:
    """Whether the package index pip would use can be reached (the recorder's own dependencies come from it)."""
    host = urlsplit(os.environ.get("PIP_INDEX_URL", "https://pypi.org/simple")).hostname or "pypi.org"
    try:
        socket.create_connection((host, 443), timeout=3).close()
    except OSError:
        return False
    return True


@override_settings(SOURCE_URL=SOURCE)
def test_the_page_links_the_source_and_the_plugin(demo_snapshot: Snapshot, client: Client) -> None:
    page = client.get("/contribute/").content.decode()
    assert f'<code class="command">git clone {SOURCE}</code>' in page
    assert f'<a href="{PLUGIN_README_URL}">its README</a>' in page and f'href="{PLUGIN_NPM_URL}"' in page
    assert shown_install_commands(page) == list(RECORDER_INSTALL_COMMANDS)
    # Every page's footer names the source.
    assert f'<a href="{SOURCE}" class="source">Source code</a>' in client.get("/glossary/").content.decode()


@override_settings(SOURCE_URL="")
def test_no_source_link_is_shown_when_none_is_set(demo_snapshot: Snapshot, client: Client) -> None:
    page = client.get("/contribute/").content.decode()
    assert 'class="source"' not in page and "git clone" not in page
    assert "a clone of this project's repository" in page


@pytest.mark.network
def test_the_shown_commands_install_the_recorder_from_a_fresh_clone(
    demo_snapshot: Snapshot, client: Client, tmp_path: Path
) -> None:
    if shutil.which("git") is None or not (REPOSITORY / ".git").exists():
        pytest.skip("needs git and this project as a git checkout")
    if not index_answers():
        pytest.skip("no package index answers: the recorder's dependencies cannot be fetched")
    commands = shown_install_commands(client.get("/contribute/").content.decode())
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(REPOSITORY), str(clone)], check=True)
    # A home of its own, so the commands' ~ is the test's; the base interpreter, not this test's virtualenv.
    env = {"HOME": str(tmp_path), "PATH": os.defpath, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    env.update({key: value for key, value in os.environ.items() if key.startswith("PIP_INDEX")})
    python = Path(getattr(sys, "_base_executable", sys.executable)).parent
    env["PATH"] = f"{python}:{env['PATH']}"
    script = " && ".join([*commands, "pragmatikos-record --help"])
    done = subprocess.run(
        ["bash", "-c", script], cwd=clone, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "usage: pragmatikos-record" in done.stdout
