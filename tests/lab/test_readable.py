"""The lab page reads in a minute: contents first, one row per model, no time per task for aggregate runs."""

import csv
import io
import re
from io import StringIO
from typing import Any

from django.core.management import call_command
from django.test import Client

from lab import presence, selectors
from lab.aliases import STARTER_ALIASES
from lab.models import LabRun
from lab.summary import summary_rows

QWEN = ("qwen-2.5-coder-32b-instruct", "qwen2.5-coder-32b-instruct", "qwen2p5-coder-32b-instruct")


def row_labels(html: str, name: str) -> list[str]:
    """The table rows labelled exactly `name` (a label ends at its cell or at its first caveat)."""
    return re.findall(f'class="label">{re.escape(name)}(?:</th>| <span)', html)


def test_it_opens_with_contents_linking_every_section(shipped: None, client: Client) -> None:
    page = client.get("/lab/").content.decode()
    contents = page.split('<nav class="contents"')[1].split("</nav>")[0]
    assert page.index('<nav class="contents"') < page.index('class="lab-source"')
    for anchor in ("source-aider", "source-akita", "source-swebench-pro", "reading", "names", "runs-format"):
        assert f'href="#{anchor}"' in contents
        assert f'id="{anchor}"' in page
    assert 'href="/lab/beside/"' in contents


def test_each_starter_alias_joins_a_spelling_the_shipped_sources_use(shipped: None) -> None:
    stored = set()
    for model, planner, builder in LabRun.objects.values_list("model", "planner", "builder"):
        stored |= {model, planner, builder}
    assert set(STARTER_ALIASES) <= stored
    # One step: no alias leads to another alias.
    assert not {alias.canonical for alias in STARTER_ALIASES.values()} & set(STARTER_ALIASES)


def test_it_pools_the_runs_of_every_spelling_into_one_row(shipped: None) -> None:
    raw = {name: list(LabRun.objects.filter(source__name="aider", model=name, planner="")) for name in QWEN}
    assert all(raw.values())
    (row,) = [r for r in summary_rows(selectors.lab_runs(source="aider"), resamples=50) if r.label in QWEN]
    runs = [run for spelling in raw.values() for run in spelling]
    grades = [run.grade for run in runs if run.grade is not None]
    assert row.label == "qwen2.5-coder-32b-instruct"
    assert row.runs == len(runs) and row.graded == len(grades)
    assert row.mean_grade.value is not None and abs(row.mean_grade.value - sum(grades) / len(grades)) < 1e-9
    naive = sum(sum(r.grade for r in s if r.grade is not None) / len(s) for s in raw.values()) / len(raw)
    assert abs(row.mean_grade.value - naive) > 1  # not the mean of the spellings' means
    assert row.tasks == len({run.task_id for run in runs})
    assert sum(row.grade_counts) == len(grades)


def test_it_shows_one_row_per_model_and_documents_the_aliases(shipped: None, client: Client) -> None:
    page = client.get("/lab/").content.decode()
    aider = page.split('id="source-aider"')[1].split('id="source-akita"')[0]
    assert len(row_labels(aider, "qwen2.5-coder-32b-instruct")) == 1
    for spelling in ("qwen-2.5-coder-32b-instruct", "qwen2p5-coder-32b-instruct", "sonnet", "deepseek-chat-v2.5"):
        assert row_labels(aider, spelling) == []
    names = page.split('id="names"')[1].split("</section>")[0]
    for name, alias in STARTER_ALIASES.items():
        assert f'<td><code>{name}</code></td><td data-label="Joins"><code>{alias.canonical}</code></td>' in names


def test_it_shows_no_time_per_task_for_aggregate_runs(shipped: None, client: Client) -> None:
    page = client.get("/lab/").content.decode()
    aider = page.split('id="source-aider"')[1].split('id="source-akita"')[0]
    akita = page.split('id="source-akita"')[1].split('id="source-swebench-pro"')[0]
    assert "Time per task" not in aider
    assert " h</td>" not in aider and " h <span" not in aider
    assert "Each run is an aggregate over a whole exercise set, so no time per task is shown." in aider
    assert "Time per task" in akita and " min" in akita
    body = client.get("/data/lab.csv?source=aider").content.decode()
    rows = list(csv.DictReader(io.StringIO(body)))
    assert rows and all(row["median_task_seconds"] == "" for row in rows)


def test_it_folds_a_long_table_after_its_first_rows(shipped: None, client: Client) -> None:
    page = client.get("/lab/").content.decode()
    aider = page.split('id="source-aider"')[1].split('id="source-akita"')[0]
    first = aider.split('<details class="lab-more">')[0].split("Per model")[1]
    assert first.count('<th scope="row"') == 10
    assert "<summary>The other " in aider


def test_the_working_style_axes_read_in_k_and_m_and_name_dots(shipped: None, client: Client) -> None:
    page = client.get("/lab/").content.decode()
    style = page.split('id="source-akita"')[1].split('<svg class="lab-style"')[1].split("</svg>")[0]
    assert ">100k</text>" in style and ">1M</text>" in style
    assert ">1e" not in style
    assert style.count('class="dot-label"') >= 3


def test_it_reads_which_names_the_lab_has_in_one_query_per_import(
    shipped: None, django_assert_num_queries: Any, django_capture_on_commit_callbacks: Any
) -> None:
    with django_assert_num_queries(1):
        labels = presence.lab_labels()
    with django_assert_num_queries(0):
        assert presence.lab_labels() == labels
    assert ("modelCombo", "deepseek-r1 → claude-3.5-sonnet") in labels  # aider's r1, by its starter alias
    assert ("model", "qwen2.5-coder-32b-instruct") in labels and ("model", "qwen2p5-coder-32b-instruct") not in labels
    with django_capture_on_commit_callbacks(execute=True):
        call_command("lab_alias", "add", "r1", "deepseek-r1-0528", stdout=StringIO())
    moved = presence.lab_labels()
    assert ("modelCombo", "deepseek-r1-0528 → claude-3.5-sonnet") in moved
    assert ("modelCombo", "deepseek-r1 → claude-3.5-sonnet") not in moved
