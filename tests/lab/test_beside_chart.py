"""The lab beside the field: a plain title, and field score against lab grade with the rank agreement beside it."""

import re
from io import StringIO
from typing import Any, cast

from django.core.management import call_command
from django.test import Client

from lab import selectors, stats
from pages.charts import OKABE_ITO, OTHER_COLOUR
from pages.contexts import colours_of
from scoring.shapes import PoolDocument
from tests.lab.conftest import AKITA

DOT = re.compile(r'<circle cx="([\d.]+)" cy="([\d.]+)" r="5" fill="(#[0-9A-Fa-f]{6})"[^>]*><title>([^<]+)</title>')


def akita_grades(field_scores: dict[str, float]) -> dict[str, float]:
    grades: dict[str, list[float]] = {}
    for run in selectors.lab_runs(source="akita"):
        if not run.is_pairing and run.grade is not None and run.model in field_scores:
            grades.setdefault(run.model, []).append(run.grade)
    return {model: sum(g) / len(g) for model, g in grades.items()}


def test_it_draws_field_score_against_lab_grade(demo_document: dict[str, Any], client: Client) -> None:
    call_command("import_lab", str(AKITA), "--format", "akita", stdout=StringIO())
    page = client.get("/lab/beside/").content.decode()
    assert "<h1>The lab beside the field</h1>" in page and "Capable · Effective" not in page
    chart = page.split('<svg class="field-lab"')[1].split("</svg>")[0]
    assert '<title id="fl-t-akita">LLM coding benchmark (akitaonrails): field score against lab grade</title>' in chart
    field_scores = {g["label"]: g["scoreAdj"] for g in demo_document["views"]["model"]["groups"]}
    grades = akita_grades(field_scores)
    assert len(grades) >= 3
    desc = chart.split("<desc")[1].split("</desc>")[0]
    for model, grade in grades.items():
        assert f"{model}: field score {field_scores[model]:.1f}, lab grade {grade:.0f}% of the maximum" in desc
    dots = {name: (float(cx), float(cy), colour) for cx, cy, colour, name in DOT.findall(chart)}
    assert set(dots) == set(grades)
    # Further right is a higher field score, higher up a higher lab grade.
    by_field = sorted(grades, key=lambda m: field_scores[m])
    assert [dots[m][0] for m in by_field] == sorted(dots[m][0] for m in by_field)
    by_lab = sorted(grades, key=lambda m: grades[m])
    assert [dots[m][1] for m in by_lab] == sorted((dots[m][1] for m in by_lab), reverse=True)
    # The field's own family colours.
    colours = colours_of(demo_document["views"]["model"], "model", cast(PoolDocument, demo_document))[0]
    for model, (_, _, colour) in dots.items():
        assert colour == colours[model] and colour in (*OKABE_ITO, OTHER_COLOUR)
    assert 'class="dot-label"' in chart


def test_it_states_the_rank_agreement_beside_the_chart_with_its_count(
    demo_document: dict[str, Any], client: Client
) -> None:
    call_command("import_lab", str(AKITA), "--format", "akita", stdout=StringIO())
    page = client.get("/lab/beside/").content.decode()
    field_scores = {g["label"]: g["scoreAdj"] for g in demo_document["views"]["model"]["groups"]}
    grades = akita_grades(field_scores)
    shared = sorted(grades)
    expected = stats.rank_agreement([field_scores[m] for m in shared], [grades[m] for m in shared])
    pair = page.split('<div class="field-lab-pair">')[1].split('<section class="beside"')[0]
    said = pair.split('<p class="rank-agreement">')[1].split("</p>")[0]
    assert expected.tau is not None and f"Kendall's tau <strong>{expected.tau:.2f}</strong>" in said
    assert f"over {len(shared)} models." in said


def test_it_draws_nothing_where_no_model_is_shared(demo_document: dict[str, Any], client: Client) -> None:
    page = client.get("/lab/beside/").content.decode()
    assert "field-lab" not in page


def test_a_filtered_page_has_a_plain_title_and_no_chart(demo_document: dict[str, Any], client: Client) -> None:
    call_command("import_lab", str(AKITA), "--format", "akita", stdout=StringIO())
    page = client.get("/lab/beside/?view=model&label=claude-opus-4.8").content.decode()
    assert "<h1>claude-opus-4.8: the lab beside the field</h1>" in page
    assert "<title>claude-opus-4.8: The lab beside the field" in page
    assert "field-lab" not in page
