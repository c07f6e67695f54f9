"""The lab pages: each source in its own terms with its caveats, the lab beside the field, caching."""

import uuid
from collections.abc import Callable
from io import StringIO
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from django.core.management import call_command
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lab import selectors, stats
from pages.lab_links import lab_presence
from tests.cache_keys import stored_keys
from tests.lab.conftest import AKITA, run_line

COLD_QUERIES = 5  # serving snapshot, lab generation needs none, sources, aliases, runs (+ one spare)


def test_it_shows_each_source_with_its_numbers_and_caveats(shipped: None, client: Client) -> None:
    page = client.get("/lab/").content.decode()
    for title in (
        "LLM coding benchmark (akitaonrails)",
        "aider code-editing benchmarks",
        "SWE-Bench Pro with SWE-agent",
    ):
        assert title in page
    assert "A total_cost of 0 means the cost was not reported" in page
    assert "the named builder did nothing" in page
    assert "builder did nothing in 1 of" in page  # claude-opus-4.7 → deepseek-v4-pro
    assert "directional" in page
    assert 'class="lab-spread"' in page and 'class="lab-style"' in page
    assert "/data/lab.csv?source=swebench-pro" in page
    assert "Add your lab: the runs format" in page
    # The Content-Security-Policy refuses style attributes: charts style themselves from the stylesheet.
    assert " style=" not in page


def test_it_shows_the_resolve_rate_with_its_task_interval(shipped: None, client: Client) -> None:
    page = client.get("/lab/").content.decode()
    # Counted in the file: gpt-5 resolved 265 of its 729 tasks (0.36), claude-sonnet-4.5 319 of 730 (0.44).
    section = page.split('id="source-swebench-pro"')[1]
    gpt5 = section.split('class="label">gpt-5')[1].split("</tr>")[0]
    assert '<td data-label="Runs">729</td><td data-label="Tasks">729</td>' in gpt5
    assert "0.36 <span" in gpt5
    lo, hi = gpt5.split("of 1, ")[1].split("<")[0].split("–")
    assert 0.30 < float(lo) < 0.36 < float(hi) < 0.42
    assert "0.44 <span" in section.split('class="label">claude-sonnet-4.5')[1].split("</tr>")[0]


def test_it_says_how_to_import_when_the_lab_is_empty(db: None, client: Client) -> None:
    page = client.get("/lab/").content.decode()
    assert "No lab data is imported yet" in page


def test_it_caches_the_page_and_shows_an_import_at_once(
    shipped: None,
    client: Client,
    runs_file: Callable[..., Path],
    django_assert_max_num_queries: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    with django_assert_max_num_queries(COLD_QUERIES):
        first = client.get("/lab/")
    with django_assert_max_num_queries(0):
        again = client.get("/lab/")
    assert again.content == first.content
    assert client.get("/lab/", HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    path = runs_file([run_line()])
    with django_capture_on_commit_callbacks(execute=True):
        call_command("import_lab", str(path), "--format", "runs", "--source", "newlab", stdout=StringIO())
    after = client.get("/lab/")
    assert 'id="source-newlab"' in after.content.decode()
    assert after["ETag"] != first["ETag"]


def test_it_sets_the_lab_beside_the_field(demo_document: dict[str, Any], client: Client) -> None:
    call_command("import_lab", str(AKITA), "--format", "akita", stdout=StringIO())
    label = "claude-opus-4.8 → claude-opus-4.8"
    field = next(g for g in demo_document["views"]["modelCombo"]["groups"] if g["label"] == label)
    response = client.get("/lab/beside/?" + urlencode({"view": "modelCombo", "label": label}))
    page = response.content.decode()
    assert response.status_code == 200
    assert "Demo data" in page
    assert f"adjusted score {field['scoreAdj']:.1f}" in page
    assert f"{field['ci'][0]:.1f}–{field['ci'][1]:.1f}" in page
    assert "LLM coding benchmark (akitaonrails)" in page
    # akita ran claude-opus-4.8 alone twice (v1: 94, v2: 94 → mean 94.0).
    assert '<th scope="row" class="label">claude-opus-4.8' in page
    assert "Rank agreement" not in page  # the table is on the unfiltered page


def test_it_tables_rank_agreement_over_shared_models(demo_document: dict[str, Any], client: Client) -> None:
    call_command("import_lab", str(AKITA), "--format", "akita", stdout=StringIO())
    page = client.get("/lab/beside/").content.decode()
    assert "Rank agreement with the field" in page
    assert "the populations differ" in page
    # Worked from the parts: the field's model scores, and akita's mean grade of each model it ran alone.
    field_scores = {g["label"]: g["scoreAdj"] for g in demo_document["views"]["model"]["groups"]}
    grades: dict[str, list[float]] = {}
    for run in selectors.lab_runs(source="akita"):
        if not run.is_pairing and run.grade is not None and run.model in field_scores:
            grades.setdefault(run.model, []).append(run.grade)
    shared = sorted(grades)
    assert len(shared) >= 3
    expected = stats.rank_agreement(
        [field_scores[m] for m in shared], [sum(grades[m]) / len(grades[m]) for m in shared]
    )
    row = (
        page.split('<table class="agreement">')[1]
        .split("LLM coding benchmark (akitaonrails)</th>")[1]
        .split("</tr>")[0]
    )
    assert f'<td>{len(shared)} <span class="hint">{", ".join(shared)}</span></td>' in row
    assert expected.tau is not None and f"<td>{expected.tau:.2f}</td>" in row


def test_it_says_when_a_field_group_has_no_lab_runs(demo_document: dict[str, Any], client: Client) -> None:
    label = demo_document["views"]["modelCombo"]["groups"][0]["label"]
    page = client.get("/lab/beside/?" + urlencode({"view": "modelCombo", "label": label})).content.decode()
    assert f"No lab source has runs of {label}" in page


def test_it_links_a_field_group_to_the_lab_only_where_a_source_has_it(
    demo_document: dict[str, Any], client: Client, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        call_command("import_lab", str(AKITA), "--format", "akita", stdout=StringIO())
    linked = 0
    for view in ("model", "modelCombo"):
        for group in demo_document["views"][view]["groups"]:
            query = urlencode({"view": view, "label": group["label"]})
            page = client.get(f"/pairing/?{query}").content.decode()
            beside = client.get(f"/lab/beside/?{query}").content.decode()
            has_runs = "No lab source has runs" not in beside
            assert ('class="in-the-lab" href="/lab/beside/?view=' in page) == has_runs, (view, group["label"])
            linked += has_runs
    groups = len(demo_document["views"]["model"]["groups"]) + len(demo_document["views"]["modelCombo"]["groups"])
    assert 0 < linked < groups
    family = demo_document["views"]["famCombo"]["groups"][0]["label"]
    page = client.get("/pairing/?" + urlencode({"view": "famCombo", "label": family})).content.decode()
    assert "in-the-lab" not in page


def test_it_links_a_field_group_as_soon_as_a_lab_brings_it(
    demo_document: dict[str, Any],
    client: Client,
    runs_file: Callable[..., Path],
    django_capture_on_commit_callbacks: Any,
) -> None:
    query = urlencode({"view": "modelCombo", "label": "gpt-6 → gpt-6"})
    assert "in-the-lab" not in client.get(f"/pairing/?{query}").content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        path = runs_file([run_line(model="openrouter/openai/GPT-6")])
        call_command("import_lab", str(path), "--format", "runs", "--source", "newlab", stdout=StringIO())
    assert 'class="in-the-lab"' in client.get(f"/pairing/?{query}").content.decode()
    model = client.get("/pairing/?" + urlencode({"view": "model", "label": "gpt-6"})).content.decode()
    assert 'class="in-the-lab"' in model


def test_no_page_links_to_the_lab_when_no_presence_is_configured(
    demo_document: dict[str, Any], client: Client, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        call_command("import_lab", str(AKITA), "--format", "akita", stdout=StringIO())
    labels = [group["label"] for group in demo_document["views"]["model"]["groups"]]
    with lab_presence.provided_by(None):
        pages = [client.get("/pairing/", {"view": "model", "label": label}).content.decode() for label in labels]
    assert all("Compare with another" in page and "in-the-lab" not in page for page in pages)


def test_it_answers_made_up_labels_with_a_404_it_does_not_keep(
    demo_document: dict[str, Any], client: Client, django_assert_max_num_queries: Any
) -> None:
    call_command("import_lab", str(AKITA), "--format", "akita", stdout=StringIO())
    known = demo_document["views"]["model"]["groups"][0]["label"]
    assert client.get("/lab/beside/?" + urlencode({"view": "model", "label": known})).status_code == 200
    before = stored_keys()
    for view in ("model", "modelCombo"):
        for _ in range(5):
            label = f"made-up-{uuid.uuid4().hex[:8]}"
            with django_assert_max_num_queries(0):  # the lab is never read for it
                response = client.get("/lab/beside/?" + urlencode({"view": view, "label": label}))
            assert response.status_code == 404
            assert "No model or pairing of that name" in response.content.decode()
    assert stored_keys() - before == set()


def test_it_shows_no_field_before_the_first_ranking(db: None, client: Client) -> None:
    page = client.get("/lab/beside/").content.decode()
    assert "Nothing is ranked in the field yet" in page


PATHS = ("/lab/", "/lab/beside/", "/data/lab.csv", "/data/lab-runs.jsonl")
NAMES = ("view", "label", "source", "x")
VALUES = st.one_of(
    st.text(max_size=30),
    st.sampled_from(["model", "modelCombo", "famCombo", "akita", "claude-opus-4.8", ""]),
    st.text(min_size=301, max_size=350),
)


@pytest.mark.django_db
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from(PATHS), query=st.lists(st.tuples(st.sampled_from(NAMES), VALUES), max_size=4))
def test_it_never_answers_500(client: Client, path: str, query: list[tuple[str, str]]) -> None:
    response = client.get(f"{path}?{urlencode(query)}")
    assert response.status_code in (200, 404)


FIELD_CAVEAT = "self-selected contributors"


def test_it_says_n_and_no_interval_for_a_row_of_fewer_than_three_runs(
    db: None, client: Client, runs_file: Callable[..., Path]
) -> None:
    # Two runs on two tasks, graded alike: resampled, they would print the interval 95.0–95.0.
    lines = [run_line(task=task, grade=95, grade_max=100) for task in ("t1", "t2")]
    lines += [
        run_line(task=task, model="gpt-6", grade=grade, grade_max=100)
        for task, grade in (("t1", 90), ("t2", 80), ("t3", 70))
    ]
    call_command("import_lab", str(runs_file(lines)), "--format", "runs", "--source", "newlab", stdout=StringIO())
    page = client.get("/lab/").content.decode()
    two = page.split('class="label">claude-opus-4.8')[1].split("</tr>")[0]
    assert "n = 2, no interval" in two and "95.0–95.0" not in two
    three = page.split('class="label">gpt-6')[1].split("</tr>")[0]
    assert "no interval" not in three and "–" in three.split('data-label="Mean grade"')[1].split("</td>")[0]


def test_the_benchmark_pages_footer_speaks_of_benchmarks_not_of_contributors(
    shipped: None, demo_document: dict[str, Any], client: Client
) -> None:
    footer = client.get("/lab/").content.decode().split('<footer class="site">')[1]
    assert FIELD_CAVEAT not in footer and "Published benchmark runs" in footer
    footer = client.get("/lab/beside/").content.decode().split('<footer class="site">')[1]
    assert FIELD_CAVEAT not in footer and "published benchmark runs" in footer
    assert FIELD_CAVEAT in client.get("/").content.decode().split('<footer class="site">')[1]
