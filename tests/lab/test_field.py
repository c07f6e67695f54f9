"""The field join, on a small document of the pool.json shape."""

from typing import Any

from lab import field, stats
from lab.summary import Row


def row(source: str, *, model: str = "", planner: str = "", builder: str = "", grade: float | None = None) -> Row:
    return Row(
        source=source,
        model=model,
        planner=planner,
        builder=builder,
        runs=1,
        tasks=1,
        graded=1 if grade is not None else 0,
        mean_grade=stats.Interval(grade, None, None),
        grade_max=100,
        grade_counts=[],
        median_task_seconds=None,
        seconds_spread=(None, None),
        median_tokens_in=None,
        median_tokens_out=None,
        mean_cost_usd=None,
        cost_runs=0,
        builder_idle=0,
    )


def group(label: str, score: float, **more: Any) -> dict[str, Any]:
    return {"label": label, "scoreAdj": score, "ci": [score - 2, score + 2], "contributors": 3, "hjudged": 40, **more}


DOCUMENT = {
    "views": {
        "model": {"groups": [group("a", 70), group("b", 60), group("c", 50), group("d", 40)]},
        "modelCombo": {
            "groups": [
                group("a → a", 72, planner="a", builder="a"),
                group("a → b", 65, planner="a", builder="b"),
            ]
        },
    }
}


def test_it_sets_each_lab_row_beside_the_field_groups_it_joins() -> None:
    rows = [
        row("lab1", model="a", grade=90),
        row("lab1", planner="a", builder="b", grade=80),
        row("lab2", model="a", grade=0.5),
        row("lab1", model="zz", grade=10),  # not in the field
    ]
    joined = field.side_by_side(DOCUMENT, rows)
    assert [(b.field.view, b.field.label) for b in joined] == [
        ("modelCombo", "a → a"),
        ("modelCombo", "a → b"),
        ("model", "a"),
    ]
    solo_pairing, pairing, model = joined
    assert sorted(solo_pairing.lab) == ["lab1", "lab2"]
    assert pairing.lab == {"lab1": [rows[1]]}
    assert (model.field.score, model.field.lo, model.field.hi, model.field.contributors) == (70, 68, 72, 3)


def test_it_ranks_the_lab_against_the_field_over_shared_models_only() -> None:
    rows = [
        row("lab1", model="a", grade=90),
        row("lab1", model="b", grade=70),
        row("lab1", model="c", grade=80),
        row("lab1", model="zz", grade=100),
        row("lab1", planner="a", builder="b", grade=10),
        row("lab2", model="a", grade=1),
    ]
    lab1, lab2 = field.rank_agreement(DOCUMENT, rows, resamples=200)
    assert lab1.models == ["a", "b", "c"]
    # Field a > b > c, lab a > c > b: one discordant pair of three.
    assert lab1.agreement.tau is not None and abs(lab1.agreement.tau - 1 / 3) < 1e-12
    assert lab1.agreement.n == 3
    assert (lab2.agreement.tau, lab2.agreement.n) == (None, 1)


def test_it_joins_nothing_without_a_field_ranking() -> None:
    assert field.side_by_side(None, [row("lab1", model="a", grade=1)]) == []
    assert field.rank_agreement({}, [row("lab1", model="a", grade=1)])[0].agreement.n == 0
