"""cycles.csv is written by the worker after each publish: with a real Celery worker, and with the
embedded default (SQLite, tasks in-process) where it is written through the ORM."""

import csv
import gzip
import io
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from leaderboard.coordination import coordinator
from tests.pipeline.test_worker import envelope
from tests.pipeline.workers import REPO, forget_queued_recomputes, start_worker


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(not settings.REDIS_URL, reason="needs REDIS_URL: the worker runs over Redis")
def test_it_has_the_worker_write_the_export_after_a_contribution(client: Client) -> None:
    forget_queued_recomputes(coordinator())
    worker = start_worker()
    try:
        assert client.get("/data/cycles.csv.gz").status_code == 503  # nothing published yet
        response = client.post("/api/v1/contributions", envelope(12), content_type="application/json")
        assert response.status_code == 202, response.content
        deadline = time.monotonic() + 30
        download = client.get("/data/cycles.csv.gz")
        while download.status_code != 200 and time.monotonic() < deadline:
            time.sleep(0.25)
            download = client.get("/data/cycles.csv.gz")
        assert download.status_code == 200, "the worker wrote no export within 30 s"
    finally:
        worker.terminate()
        worker.wait(timeout=30)
    body = b"".join(download.streaming_content)  # type: ignore[attr-defined]
    rows = list(csv.DictReader(io.StringIO(gzip.decompress(body).decode())))
    assert len(rows) == 12
    assert {row["contributor"] for row in rows} == {"c1"}
    assert {row["role"] for row in rows} == {"build"}
    # One file, the published snapshot's, named with the one contributor's number and no retraction seen.
    assert [path.name for path in Path(settings.EXPORT_DIR).iterdir()] == [
        f"cycles-snapshot-{download['X-Snapshot']}-upto-c1-r0.csv.gz"
    ]


def test_it_writes_the_export_in_process_with_the_embedded_default(tmp_path: Path) -> None:
    database = tmp_path / "embedded.sqlite3"
    exports = tmp_path / "exports"
    env = {
        "PATH": "/usr/bin:/bin",
        "DATABASE_URL": f"sqlite:///{database}",
        "SECRET_KEY": "embedded-test-key",
        "INSTALL_HASH_KEY": "embedded-test-hash-key",
        "EXPORT_DIR": str(exports),
        "LOG_LEVEL": "WARNING",
        # The checkout's own contract, before any installed copy (as pytest's pythonpath gives this process).
        "PYTHONPATH": str(REPO / "contract"),
    }
    for command in (["migrate", "--no-input", "-v", "0"], ["load_demo", "--cycles", "300"]):
        subprocess.run([sys.executable, "manage.py", *command], cwd=REPO, env=env, check=True, capture_output=True)
    written = list(exports.iterdir())
    assert len(written) == 1
    rows = list(csv.DictReader(io.StringIO(gzip.decompress(written[0].read_bytes()).decode())))
    assert len(rows) == 300
    # The file's name carries the highest contributor number it can hold, and the last retraction it saw.
    highest = max(int(row["contributor"][1:]) for row in rows)
    assert written[0].name == f"cycles-snapshot-1-upto-c{highest}-r0.csv.gz"
    assert {row["ship_status"] for row in rows} <= {"judged", "pending", "unshippable"}
    assert all(row["contributor"].startswith("c") for row in rows)
