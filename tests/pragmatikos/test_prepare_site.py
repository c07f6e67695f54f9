"""`make run`'s preparation, as it runs it: one process, on a fresh SQLite file, then again."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow


def prepare(folder: Path) -> tuple[str, float]:
    env = {
        **{name: value for name, value in os.environ.items() if name not in ("DATABASE_URL", "REDIS_URL")},
        "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}",
        "STATIC_ROOT": str(folder / "staticfiles"),
        "EXPORT_DIR": str(folder / "exports"),
        "SECRET_KEY": "test-key",
        "INSTALL_HASH_KEY": "test-install-hash-key",
    }
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "manage.py", "prepare_site"], cwd=REPO, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout, time.monotonic() - started


def test_it_loads_the_demo_and_the_lab_once_and_a_later_run_is_quick(tmp_path: Path) -> None:
    first, _ = prepare(tmp_path)
    again, seconds = prepare(tmp_path)

    assert "(demo data)" in first and "135 runs added" in first
    assert "no demo data loaded" in again
    assert again.count(" 0 runs added, 0 updated") == 3
    assert (tmp_path / "staticfiles").is_dir()  # no "No directory at" warning when the server starts
    print(f"prepare_site again: {seconds:.1f} s")
    assert seconds < 10  # a later `make run` serves within seconds
