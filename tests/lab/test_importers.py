"""The readers on the shipped files: counts per source, and values checked by hand against the files."""

import datetime as dt
from collections import Counter
from pathlib import Path

import pytest

from lab.importers import LabInputError, RunRecord, parse
from tests.lab.conftest import AIDER, AKITA, FIXTURES, SWEBENCH_PRO


def by_key(runs: list[RunRecord]) -> dict[str, RunRecord]:
    return {run.key: run for run in runs}


def test_it_reads_every_akita_run_folder() -> None:
    parsed = parse(AKITA, "akita")
    assert parsed.source.name == "akita"
    assert len(parsed.runs) == 135
    assert sum(run.grade is not None for run in parsed.runs) == 108
    assert Counter(run.task for run in parsed.runs) == {"rails-rubyllm-chat-v1": 77, "rails-rubyllm-chat-v2": 58}
    assert sum(bool(run.planner) for run in parsed.runs) == 21


def test_it_sums_an_akita_runs_phases_from_its_result_json() -> None:
    # results-v2/v2_claude_opus_4_7/result.json: three phases; grade 91 from the v2 report.
    run = by_key(parse(AKITA, "akita").runs)["results-v2/v2_claude_opus_4_7"]
    assert run.model == "claude-opus-4.7"
    assert run.harness == "claude-code"
    assert run.grade == 91.0 and run.grade_max == 100.0
    assert run.seconds == 2623.08  # elapsed_seconds_total
    assert run.cost_usd == 44.283  # cost_usd_total
    # input + cache read + cache write of the phases: 58,498,242 + 6,263,294 + 2,789,232
    assert run.tokens_in == 67_550_768
    assert run.tokens_out == 69_077 + 26_426 + 16_746
    assert run.day == dt.date(2026, 7, 27)


def test_it_prefers_the_phase_files_when_result_json_lists_only_the_last_attempt() -> None:
    runs = by_key(parse(AKITA, "akita").runs)
    # result.json of v2_nex_n2_pro holds phase 3 only; the three phase files add up to 4199.30 s.
    assert runs["results-v2/v2_nex_n2_pro"].seconds == pytest.approx(1840.58 + 1860.34 + 498.38)
    # deepseek_v4_flash's phase2 file started before phase 1: left over from an earlier attempt.
    assert runs["results/deepseek_v4_flash"].seconds == pytest.approx(155.12)


def test_it_reads_a_manual_orchestration_log_as_a_pairing() -> None:
    run = by_key(parse(AKITA, "akita").runs)["results/manual_opus_kimi"]
    assert (run.planner, run.builder) == ("claude-opus-4.7", "kimi-k2.6")
    assert run.harness == "manual-orchestration"
    assert run.grade == 97.0
    assert run.seconds == pytest.approx(649.2)
    assert run.cost_usd == pytest.approx(0.3749)
    assert run.extras["builder_contributed"] is True


def test_it_marks_a_pairing_whose_builder_did_nothing() -> None:
    run = by_key(parse(AKITA, "akita").runs)["results/opencode_opus_deepseek_forced"]
    assert (run.planner, run.builder) == ("claude-opus-4.7", "deepseek-v4-pro")
    assert run.extras["builder_contributed"] is False


def test_it_reads_the_aider_json_lines_copy() -> None:
    parsed = parse(AIDER, "aider")
    assert len(parsed.runs) == 295
    assert sum(bool(run.planner) for run in parsed.runs) == 21
    assert Counter(run.task for run in parsed.runs) == {
        "exercism_python_133": 197,
        "polyglot_225": 84,
        "refactor_89": 14,
    }
    run = by_key(parsed.runs)["2025-02-25-20-23-07--gemini-pro"]
    assert run.model == "gemini-2.0-pro-exp-02-05"  # from `--model gemini/gemini-2.0-pro-exp-02-05`
    assert run.grade == 35.6
    assert run.seconds == pytest.approx(34.8 * 225)
    assert run.cost_usd is None  # total_cost 0: not reported
    assert run.task == "polyglot_225"


def test_it_reads_aider_leaderboard_yaml_as_published() -> None:
    runs = parse(FIXTURES / "architect.yml", "aider").runs
    assert [run.key for run in runs] == [
        "2024-09-25-21-17-19--architect-sonnet-sonnet-diff",
        "2024-07-04-14-32-08--claude-3.5-sonnet-diff-continue",
        "2024-09-25-21-52-42--architect-o1preview-sonnet-jr-diff",
    ]
    pair, solo, last = runs
    assert (pair.planner, pair.builder, pair.grade, pair.cost_usd) == (
        "claude-3.5-sonnet",
        "claude-3.5-sonnet",
        80.5,
        4.9502,
    )
    assert pair.day == dt.date(2024, 9, 25)
    assert (solo.planner, solo.builder, solo.model) == ("", "", "claude-3.5-sonnet")
    # The entry names editor_model twice; YAML keeps the last (claude-3-5-sonnet, the same model as above).
    assert (last.planner, last.builder) == ("o1-preview", "claude-3.5-sonnet")
    assert last.task == "exercism_python_133"


def test_it_names_the_yaml_entry_that_is_bad(tmp_path: Path) -> None:
    path = tmp_path / "polyglot_leaderboard.yml"
    path.write_text(
        "- dirname: one\n  model: gpt-4o\n  pass_rate_2: 50.0\n  test_cases: 225\n"
        "- dirname: two\n  model: gpt-4o\n  pass_rate_2: lots\n"
    )
    with pytest.raises(LabInputError, match=r"polyglot_leaderboard\.yml:5: pass_rate_2 must be a number"):
        parse(path, "aider")


def test_it_reads_the_swebench_pro_rows() -> None:
    parsed = parse(SWEBENCH_PRO, "swebench-pro")
    assert len(parsed.runs) == 1459
    assert len({run.task for run in parsed.runs}) == 730
    assert Counter(run.model for run in parsed.runs) == {"claude-sonnet-4.5": 730, "gpt-5": 729}
    assert sum(run.resolved is True for run in parsed.runs) == 584
    assert sum(run.cost_usd is not None for run in parsed.runs) == 1232
    key = "instance_NodeBB__NodeBB-00c70ce7b0541cfc94afe567921d7668cdc8f4ac-vnan:gpt-5"
    run = by_key(parsed.runs)[key]
    assert (run.grade, run.grade_max, run.resolved) == (0.0, 1.0, False)
    assert run.cost_usd == pytest.approx(2.990871)
    assert (run.tokens_in, run.tokens_out) == (3_975_829, 16_770)  # tokens_sent, output_tokens_recounted
    assert run.effort == "high"


def test_it_names_the_line_of_a_bad_json_line(tmp_path: Path) -> None:
    path = tmp_path / "swe.jsonl"
    path.write_text('{"instance_id": "a", "model": "gpt-5", "resolved": true}\n\nnot json\n')
    with pytest.raises(LabInputError, match=r"swe\.jsonl:3: not JSON"):
        parse(path, "swebench-pro")


def test_it_refuses_an_akita_folder_without_its_grades(tmp_path: Path) -> None:
    (tmp_path / "results" / "some_model").mkdir(parents=True)
    with pytest.raises(LabInputError, match=r"grades\.jsonl"):
        parse(tmp_path, "akita")
    (tmp_path / "grades.jsonl").write_text("")
    with pytest.raises(LabInputError, match=r"results/some_model: run folder has no line in grades\.jsonl"):
        parse(tmp_path, "akita")


def test_it_refuses_an_unknown_format_or_path(tmp_path: Path) -> None:
    with pytest.raises(LabInputError, match="unknown format"):
        parse(AIDER, "lmarena")
    with pytest.raises(LabInputError, match="no such file"):
        parse(tmp_path / "missing.jsonl", "runs")


def test_it_reads_a_folder_of_leaderboard_files_and_keeps_a_run_listed_twice_once(tmp_path: Path) -> None:
    published = (FIXTURES / "architect.yml").read_text()
    (tmp_path / "architect.yml").write_text(published)
    (tmp_path / "polyglot_leaderboard.yml").write_text(
        "- dirname: 2024-09-25-21-17-19--architect-sonnet-sonnet-diff\n  model: claude-3.5-sonnet\n"
        "  pass_rate_2: 80.5\n  test_cases: 133\n"
        "- dirname: new-run\n  model: gpt-4.1\n  pass_rate_2: 52.4\n  test_cases: 225\n  total_cost: 0\n"
    )
    runs = parse(tmp_path, "aider", source="aider-yaml").runs
    assert len(runs) == 4
    new = by_key(runs)["new-run"]
    assert (new.task, new.grade, new.cost_usd) == ("polyglot_225", 52.4, None)
