"""The public-label rule: a name shows when it is known or enough contributors sent it (pure, by hand)."""

import pandas as pd

from scoring.public_labels import OTHER_LABEL, fold_unshown_names, public_names


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

    shown = public_names(cycles, ("model",), is_known=known, min_contributors=2)

    assert shown == {"claude-opus-4.7", "qwen3:32b"}


def test_it_counts_a_contributor_once_whichever_column_names_the_model() -> None:
    # Contributor 1 names it as a planner, contributor 2 as the session's model: two senders.
    cycles = frame([(1, "gpt-6", "secret-model", "", ""), (2, "secret-model", "", "", "")])

    assert "secret-model" in public_names(
        cycles, ("model", "planner_model", "builder_model"), is_known=known, min_contributors=2
    )


def test_it_folds_every_other_name_into_other_and_keeps_the_cycles() -> None:
    cycles = frame(
        [
            (1, "claude-opus-4.7", "jdoe-finetune", "high", ""),
            (2, "claude-opus-4.7", "", "buy-now", ""),
            (3, "claude-opus-4.7", "", "high", ""),
        ]
    )

    folded = fold_unshown_names(cycles, is_known_model=known, min_contributors=2)

    assert len(folded) == 3
    assert list(folded["planner_model"]) == [OTHER_LABEL, "", ""]
    assert list(folded["builder_model"]) == ["claude-opus-4.7", "", ""]
    assert list(folded["effort"]) == ["high", OTHER_LABEL, "high"]
    assert list(cycles["planner_model"]) == ["jdoe-finetune", "", ""], "the input is left as it was"


def test_it_returns_the_same_frame_when_every_name_may_be_shown() -> None:
    cycles = frame([(1, "claude-opus-4.7", "", "high", ""), (2, "claude-opus-4.7", "", "high", "")])

    assert fold_unshown_names(cycles, is_known_model=known, min_contributors=2) is cycles
