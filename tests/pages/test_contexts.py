from typing import cast

from pages.contexts import colours_of
from scoring.shapes import PoolDocument, View
from tests.pages.shapes import group_row, view_of


def document_of(view: View, **meta: str) -> PoolDocument:
    return cast(PoolDocument, {"meta": meta, "views": {"model": view}})


def test_groups_are_coloured_by_the_family_pattern_their_document_was_scored_with() -> None:
    view = view_of([group_row("claude-opus-4.8"), group_row("claude-sonnet-5")])

    by_default, _ = colours_of(view, "model", document_of(view))  # a document from before the pattern was kept
    by_its_own, legend = colours_of(view, "model", document_of(view, familyPattern=r"^(claude)"))

    assert by_default["claude-opus-4.8"] != by_default["claude-sonnet-5"]  # claude-opus, claude-sonnet
    assert by_its_own["claude-opus-4.8"] == by_its_own["claude-sonnet-5"]
    assert [name for name, _ in legend] == ["claude"]
