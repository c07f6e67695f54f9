"""A process is ready quickly: Django's start imports none of the engine's heavy packages.

Every process (a command, a web worker, the Celery worker) starts Django; scipy.stats alone took longer to import
than Django, and pandas, statsmodels and the price list added to it. They are imported where the work needs
them (the worker imports the engine as it starts, before it takes tasks: leaderboard.tasks).
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
HEAVY = ("scipy", "pandas", "statsmodels", "genai_prices")


def top_level_imports(*args: str) -> set[str]:
    """The modules `python -X importtime <args>` imported, as named on its lines."""
    env = {**os.environ, "SECRET_KEY": "startup-key", "INSTALL_HASH_KEY": "startup-hash-key"}
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *args], cwd=REPO, env=env, capture_output=True, text=True, check=True
    )
    return {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}


def test_django_starts_without_the_engines_heavy_packages() -> None:
    imported = top_level_imports("manage.py", "check")
    assert "django.urls" in imported  # the check read every URL and view
    assert [name for name in HEAVY if name in imported] == []


@pytest.mark.parametrize("name", ["scoring.shapes", "scoring.config", "scoring.compare", "scoring.bootstrap"])
def test_the_vocabulary_and_the_pages_samples_maths_load_without_pandas_or_scipy(name: str) -> None:
    imported = top_level_imports("-c", f"import {name}")
    assert not {"pandas", "scipy"} & imported


def test_the_package_still_offers_the_engine_by_its_names() -> None:
    import scoring
    from scoring.document import score_pool

    assert scoring.score_pool is score_pool
    assert set(scoring.__all__) <= set(dir(scoring))
    with pytest.raises(AttributeError):
        scoring.no_such_name  # noqa: B018
