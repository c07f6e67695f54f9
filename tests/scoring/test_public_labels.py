"""The public-label rule: a name shows when it is known or enough contributors sent it (pure, by hand)."""

import pandas as pd
import pytest

from scoring.public_labels import (
    EFFORT_COLUMNS,
    KNOWN_EFFORTS,
    MODEL_COLUMNS,
    OTHER_LABEL,
    NameKind,
    NameRule,
    fold_unshown_names,
    is_release_number,
)


def frame(rows: list[tuple[int, str, str, str, str]]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "contributor": who,
                "model": model,
                "planner_model": planner,
                "builder_model": model if planner else "",
                "effort": effort,
                "planner_effort": "",
                "builder_effort": "",
            }
            for who, model, planner, effort, _ in rows
        ]
    )


def known(name: str) -> bool:
    return name in {"claude-opus-4.7"}


MODELS = NameKind(MODEL_COLUMNS, known)
ONLY_MODEL = NameKind(("model",), known)
EFFORTS = NameKind(EFFORT_COLUMNS, KNOWN_EFFORTS.__contains__)


def rule(**changes: object) -> NameRule:
    return NameRule(**{"kinds": (MODELS, EFFORTS), "min_contributors": 2, **changes})  # type: ignore[arg-type]


def test_it_shows_a_name_two_contributors_sent_or_a_known_one_and_nothing_else() -> None:
    cycles = frame(
        [
            (1, "claude-opus-4.7", "", "high", ""),  # known, one contributor
            (1, "qwen3:32b", "", "high", ""),
            (2, "qwen3:32b", "", "high", ""),  # two contributors
            (3, "alice-macbook-pro", "", "high", ""),  # one contributor, three cycles
            (3, "alice-macbook-pro", "", "high", ""),
            (3, "alice-macbook-pro", "", "buy-now", ""),
        ]
    )

    shown = rule().shown_in(cycles, ONLY_MODEL)

    assert shown == {"claude-opus-4.7", "qwen3:32b"}


def test_it_counts_a_contributor_once_whichever_column_names_the_model() -> None:
    # Contributor 1 names it as a planner, contributor 2 as the session's model: two senders.
    cycles = frame([(1, "gpt-6", "secret-model", "", ""), (2, "secret-model", "", "", "")])

    assert "secret-model" in rule().shown_in(cycles, MODELS)


def test_it_folds_every_other_name_into_other_and_keeps_the_cycles() -> None:
    cycles = frame(
        [
            (1, "claude-opus-4.7", "jdoe-finetune", "high", ""),
            (2, "claude-opus-4.7", "", "buy-now", ""),
            (3, "claude-opus-4.7", "", "high", ""),
        ]
    )

    folded = fold_unshown_names(cycles, rule())

    assert len(folded) == 3
    assert list(folded["planner_model"]) == [OTHER_LABEL, "", ""]
    assert list(folded["builder_model"]) == ["claude-opus-4.7", "", ""]
    assert list(folded["effort"]) == ["high", OTHER_LABEL, "high"]
    assert list(cycles["planner_model"]) == ["jdoe-finetune", "", ""], "the input is left as it was"


def test_it_returns_the_same_frame_when_every_name_may_be_shown() -> None:
    cycles = frame([(1, "claude-opus-4.7", "", "high", ""), (2, "claude-opus-4.7", "", "high", "")])

    assert fold_unshown_names(cycles, rule()) is cycles


def test_only_counted_contributors_unlock_a_name() -> None:
    # Two senders, but only contributor 1 is counted (seen a day apart): one is not enough.
    cycles = frame([(1, "qwen3:32b", "", "", ""), (2, "qwen3:32b", "", "", ""), (3, "gpt-7", "", "", "")])

    assert rule(counted=frozenset({1})).shown_in(cycles, ONLY_MODEL) == set()
    assert rule(counted=frozenset({1, 2})).shown_in(cycles, ONLY_MODEL) == {"qwen3:32b"}


def test_an_operator_allows_a_name_at_once_and_denies_even_a_known_one() -> None:
    cycles = frame([(1, "claude-opus-4.7", "", "", ""), (1, "house-model", "", "", ""), (1, "", "", "", "")])

    shown = rule(allowed=frozenset({"house-model"}), denied=frozenset({"claude-opus-4.7", ""}))

    assert shown.shown_in(cycles, ONLY_MODEL) == {"house-model", ""}, "the empty value is never denied"


@pytest.mark.parametrize(
    ("version", "plain"),
    [
        ("1.14.2", True),
        ("0.128.0", True),
        ("2.1.3-beta.2", True),
        ("v1.0", True),
        ("", False),
        ("9.9.9-contosoprod", False),
        ("1.2.3+acme", False),
        ("prod", False),
        ("2025.11.3", True),
        ("1.0.150-rc.12", True),
        # Room for a phone number or an account id (issue 30): a name like any other.
        ("555123.456789.012345.6789", False),
        ("1.2.3-rc.55512345678", False),
        ("1.2.3.4", False),
        ("01.2.3", False),
    ],
)
def test_a_release_number_is_known_and_anything_else_in_a_version_is_a_name(version: str, plain: bool) -> None:
    assert is_release_number(version) is plain
