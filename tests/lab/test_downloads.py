"""/data/lab.csv against a small example worked out by hand, and the runs export."""

import json
import uuid
from collections.abc import Callable
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

from lab.downloads import forget_local_downloads
from tests.cache_keys import stored_keys
from tests.lab.conftest import AKITA, run_line

HAND_EXAMPLE = [
    run_line(model="m", task="t1", grade=1, seconds=10, tokens_in=1000, tokens_out=100, cost_usd=0.5),
    run_line(model="m", task="t1", grade=0, seconds=30, tokens_in=3000, tokens_out=300, cost_usd=None),
    run_line(model="m", task="t2", grade=1, seconds=100, tokens_in=2000, tokens_out=50, cost_usd=1.5),
    run_line(
        model="b", planner="p", builder="b", task="t1", grade=0.4, seconds=5, tokens_in=None, tokens_out=None,
        cost_usd=None,
    ),
]  # fmt: skip


def body(response: object) -> str:
    content = b"".join(response.streaming_content) if response.streaming else response.content  # type: ignore[attr-defined]
    return content.decode()


@pytest.mark.django_db
def test_it_writes_the_summary_csv_as_defined(client: Client, runs_file: Callable[..., Path]) -> None:
    call_command("import_lab", str(runs_file(HAND_EXAMPLE)), "--format", "runs", "--source", "mylab", stdout=StringIO())
    response = client.get("/data/lab.csv?source=mylab")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    # Model m: 3 runs on 2 tasks, mean grade 2/3; runs weigh 1/2, 1/2, 1 (t1 has two runs), so the lower
    # weighted medians are 30 s (10 -> 1/2, 30 -> 1 of 2), 2000 tokens in, 50 out; cost 1.0 over the 2 reported.
    # The pairing's one run graded 0.4 counts on grade 0.
    assert body(response).splitlines() == [
        "source,model,planner,builder,runs,tasks,mean_grade,grade_max,grade_0,grade_1,"
        "median_task_seconds,median_tokens_in,median_tokens_out,mean_cost_usd",
        "mylab,m,,,3,2,0.6667,1,1,2,30,2000,50,1",
        "mylab,,p,b,1,1,0.4,1,1,0,5,,,",
    ]


@pytest.mark.django_db
def test_it_answers_404_for_an_unknown_source(client: Client) -> None:
    assert client.get("/data/lab.csv?source=nope").status_code == 404
    assert client.get("/data/lab-runs.jsonl?source=nope").status_code == 404


@pytest.mark.django_db
def test_it_exports_a_source_in_the_runs_format_that_imports_back(
    client: Client, runs_file: Callable[..., Path]
) -> None:
    call_command("import_lab", str(AKITA), "--format", "akita", stdout=StringIO())
    lines = body(client.get("/data/lab-runs.jsonl?source=akita")).splitlines()
    assert len(lines) == 135
    first = json.loads(lines[0])
    assert {"task", "model", "grade", "grade_max", "seconds", "tokens_in", "tokens_out", "cost_usd", "harness"} <= set(
        first
    )
    path = runs_file([json.loads(line) for line in lines], name="akita-copy.jsonl")
    call_command("import_lab", str(path), "--format", "runs", "--source", "akita-copy", stdout=StringIO())
    original = body(client.get("/data/lab.csv?source=akita")).splitlines()
    copy = body(client.get("/data/lab.csv?source=akita-copy")).splitlines()
    assert len(original) > 20
    assert [line.removeprefix("akita,") for line in original[1:]] == [
        line.removeprefix("akita-copy,") for line in copy[1:]
    ]


DOWNLOADS = ("/data/lab.csv", "/data/lab-runs.jsonl", "/data/lab.csv?source=akita", "/data/lab-runs.jsonl?source=akita")


@pytest.mark.django_db
def test_it_builds_each_download_once_per_import(
    client: Client,
    runs_file: Callable[..., Path],
    django_assert_max_num_queries: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        call_command("import_lab", str(AKITA), "--format", "akita", stdout=StringIO())
    for path in DOWNLOADS:
        first = body(client.get(path))
        for _ in range(3):
            forget_local_downloads()  # as another process would: the shared copy
            with django_assert_max_num_queries(1):  # only whether the named source exists
                again = client.get(path)
            assert again.status_code == 200 and body(again) == first
    kept = stored_keys("*lab-download:*")
    assert len(kept) == len(DOWNLOADS)
    for _ in range(5):
        assert client.get(f"/data/lab.csv?source=nope-{uuid.uuid4().hex[:8]}").status_code == 404
    assert stored_keys("*lab-download:*") == kept
    # An import is seen at once, in this process and any other.
    with django_capture_on_commit_callbacks(execute=True):
        call_command("import_lab", str(runs_file([run_line(model="new-model")])), "--format", "runs", stdout=StringIO())
    assert "\nmylab,new-model," in body(client.get("/data/lab.csv"))
    assert '"model": "new-model"' in body(client.get("/data/lab-runs.jsonl"))
