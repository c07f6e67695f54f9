"""import_lab and lab_alias on a real database: idempotent, all-or-nothing, errors that name the line."""

from collections.abc import Callable
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from lab import selectors
from lab.models import LabRun, LabSource, LabTask, ModelAlias
from tests.lab.conftest import AKITA, SWEBENCH_PRO, run_line


def import_lab(*args: str) -> str:
    out = StringIO()
    call_command("import_lab", *args, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_it_imports_a_source_and_changes_nothing_the_second_time() -> None:
    assert import_lab(str(AKITA), "--format", "akita") == "akita: 135 runs added, 0 updated, 0 unchanged.\n"
    before = list(LabRun.objects.order_by("id").values())
    assert import_lab(str(AKITA), "--format", "akita") == "akita: 0 runs added, 0 updated, 135 unchanged.\n"
    assert list(LabRun.objects.order_by("id").values()) == before
    assert LabTask.objects.filter(source__name="akita").count() == 2
    source = LabSource.objects.get(name="akita")
    assert "builder did nothing" in source.caveats


@pytest.mark.django_db
def test_it_imports_the_swebench_pro_rows() -> None:
    import_lab(str(SWEBENCH_PRO), "--format", "swebench-pro")
    assert LabRun.objects.filter(source__name="swebench-pro").count() == 1459
    assert LabRun.objects.filter(source__name="swebench-pro", resolved=True).count() == 584
    assert LabTask.objects.filter(source__name="swebench-pro").count() == 730


@pytest.mark.django_db
def test_it_takes_a_new_labs_runs_file(runs_file: Callable[..., Path]) -> None:
    path = runs_file(
        [
            run_line(),
            run_line(task="t2", grade=0, planner="anthropic/claude-opus-4-8", builder="claude-sonnet-4-6"),
        ]
    )
    assert "2 runs added" in import_lab(str(path), "--format", "runs", "--source", "newlab")
    pairing = LabRun.objects.get(source__name="newlab", task__key="t2")
    assert (pairing.planner, pairing.builder, pairing.grade) == ("claude-opus-4.8", "claude-sonnet-4.6", 0.0)
    assert "0 runs added, 0 updated, 2 unchanged" in import_lab(str(path), "--format", "runs", "--source", "newlab")


@pytest.mark.django_db
def test_it_updates_a_corrected_run_in_place(tmp_path: Path) -> None:
    path = tmp_path / "swe.jsonl"
    line = '{"instance_id": "t", "model": "gpt-5", "resolved": %s, "day": "2025-10-13"}\n'
    path.write_text(line % "false")
    import_lab(str(path), "--format", "swebench-pro")
    path.write_text(line % "true")
    assert "0 runs added, 1 updated, 0 unchanged" in import_lab(str(path), "--format", "swebench-pro")
    assert LabRun.objects.get().grade == 1.0


@pytest.mark.django_db
def test_it_imports_nothing_from_a_file_with_one_bad_line(runs_file: Callable[..., Path]) -> None:
    path = runs_file([run_line(), run_line(task="t2"), run_line(task="t3", grade=7, grade_max=5)])
    with pytest.raises(CommandError, match=r"Nothing imported\. .*mylab\.jsonl:3: grade must be between 0 and"):
        import_lab(str(path), "--format", "runs")
    assert not LabRun.objects.exists()
    assert not LabSource.objects.exists()


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{", r":1: not JSON"),
        ("[1, 2]", r":1: a line must be one JSON object"),
        ('{"task": "t"}', r":1: missing model, grade, grade_max"),
    ],
)
@pytest.mark.django_db
def test_it_names_the_line_of_malformed_input(runs_file: Callable[..., Path], line: str, message: str) -> None:
    path = runs_file([line])
    with pytest.raises(CommandError, match=message):
        import_lab(str(path), "--format", "runs")


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"model": ""}, "model is required"),
        ({"grade": 1, "grade_max": None}, "a grade needs a positive grade_max"),
        ({"seconds": -1}, "seconds must be at least 0"),
        ({"tokens_in": 1.5}, "tokens_in must be a whole number"),
        ({"day": "yesterday"}, "day must be a YYYY-MM-DD date"),
        ({"planner": "gpt-6"}, "a pairing names both planner and builder"),
        ({"cost_usd": "free"}, "cost_usd must be a number or null"),
    ],
)
@pytest.mark.django_db
def test_it_explains_a_bad_value(runs_file: Callable[..., Path], overrides: dict[str, object], message: str) -> None:
    path = runs_file([run_line(), run_line(**overrides)])
    with pytest.raises(CommandError, match=f":2: {message}"):
        import_lab(str(path), "--format", "runs")


@pytest.mark.django_db
def test_it_maps_a_lab_name_with_an_alias(runs_file: Callable[..., Path]) -> None:
    import_lab(str(runs_file([run_line(model="openrouter/acme/Coder-X")])), "--format", "runs", "--source", "x")
    assert [run.model for run in selectors.lab_runs()] == ["coder-x"]
    out = StringIO()
    call_command("lab_alias", "add", "acme/Coder-X", "acme-coder-x", stdout=out)
    assert out.getvalue() == "coder-x → acme-coder-x\n"
    assert ModelAlias.objects.get().canonical == "acme-coder-x"
    assert [run.model for run in selectors.lab_runs()] == ["acme-coder-x"]
    call_command("lab_alias", "remove", "coder-x", stdout=StringIO())
    assert [run.model for run in selectors.lab_runs()] == ["coder-x"]
    with pytest.raises(CommandError, match="no alias needed"):
        call_command("lab_alias", "add", "claude-opus-4-5", "claude-opus-4.5")


@pytest.mark.django_db
def test_it_starts_with_the_shipped_spellings_joined_and_lets_the_operator_override(
    runs_file: Callable[..., Path],
) -> None:
    lines = [run_line(task="t1", model="r1"), run_line(task="t2", model="deepseek/DeepSeek-R1")]
    import_lab(str(runs_file(lines)), "--format", "runs", "--source", "x")
    assert [run.model for run in selectors.lab_runs()] == ["deepseek-r1", "deepseek-r1"]
    out = StringIO()
    call_command("lab_alias", "list", stdout=out)
    assert "r1 → deepseek-r1 (starter: aider's `--model r1` shortcut for DeepSeek R1)" in out.getvalue()
    with pytest.raises(CommandError, match="is a starter alias"):
        call_command("lab_alias", "remove", "r1", stdout=StringIO())
    call_command("lab_alias", "add", "r1", "deepseek-r1-0528", stdout=StringIO())
    assert [run.model for run in selectors.lab_runs()] == ["deepseek-r1-0528", "deepseek-r1"]
    out = StringIO()
    call_command("lab_alias", "list", stdout=out)
    assert "r1 → deepseek-r1-0528\n" in out.getvalue() and "(starter: aider's `--model r1`" not in out.getvalue()
