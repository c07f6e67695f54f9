"""The vocabulary in scoring/shapes.py: what the pages and the published meta read from it."""

from scoring.shapes import (
    AXES,
    AXIS_TIER,
    DEFAULT_VIEW,
    PAIRING_EFFECT_VIEWS,
    PAIRING_VIEWS,
    SPAN,
    SPAN_FACTOR,
    TAB_ORDER,
    TIER_WEIGHTS,
    TIERS,
    VIEWS,
    WEIGHTS_LABEL,
)


def test_it_states_the_tier_weights_as_the_published_meta_does() -> None:
    assert WEIGHTS_LABEL == "30/20/15/15/10/10"
    assert sum(TIER_WEIGHTS.values()) == 100
    assert list(TIER_WEIGHTS) == [tier.name for tier in TIERS]


def test_it_puts_every_axis_in_exactly_one_tier() -> None:
    assert sorted(AXIS_TIER) == sorted(axis.name for axis in AXES)
    assert sum(len(tier.axes) for tier in TIERS) == len(AXES)


def test_it_shows_every_view_once_in_tab_order() -> None:
    assert sorted(TAB_ORDER) == sorted(VIEWS)
    assert TAB_ORDER[0] == DEFAULT_VIEW
    assert set(PAIRING_EFFECT_VIEWS) <= PAIRING_VIEWS <= set(VIEWS)


def test_it_reads_axis_direction_and_the_span_as_a_factor() -> None:
    by_name = {axis.name: axis for axis in AXES}
    assert by_name["shipr"].higher_is_better and not by_name["lat"].higher_is_better
    assert SPAN_FACTOR == 2**SPAN == 4
