"""The data the tests read ships inside the repository: a clone runs its tests with nothing beside it."""

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.data.paths import POOL_DIR

REPO = Path(__file__).resolve().parents[1]
# The published digests (tests/data/pragmatikos-pool/SOURCE.md).
POOL_DIGESTS = {
    "pool.json": "03bd424d7efcba0b3e4c274a4a44dc44f411b42b150659fbd650d364f47db3cc",
    "pool-115382dd.json": "3548e9024eef031fcbf87cc8f04dce7dfd3db6341b6a7111fbef077eea55e288",
}


def test_it_keeps_the_published_scorecards_unchanged() -> None:
    for name, digest in POOL_DIGESTS.items():
        assert hashlib.sha256((POOL_DIR / name).read_bytes()).hexdigest() == digest, name
        assert name in (POOL_DIR / "SOURCE.md").read_text()


def _repository_files() -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=REPO,
        capture_output=True,
        check=True,
    )
    return [name for name in listed.stdout.decode().split("\0") if name and (REPO / name).is_file()]


@pytest.mark.skipif(shutil.which("git") is None or not (REPO / ".git").exists(), reason="needs a git checkout")
def test_it_runs_the_data_reading_tests_in_a_copy_with_nothing_beside_it(tmp_path: Path) -> None:
    # A folder of its own, so no ../shared (or anything else) sits beside the copy.
    clone = tmp_path / "alone" / "pragmatikos"
    for name in _repository_files():
        target = clone / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REPO / name, target)
    assert not (clone.parent / "shared").exists()

    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/scoring/test_golden.py",
            "tests/ingest/test_contract.py",
            "tests/test_cycles.py",
        ],
        cwd=clone,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
        capture_output=True,
        text=True,
        timeout=300,
    )

    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert " passed" in result.stdout
