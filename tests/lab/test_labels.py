"""Dot labels: placed where they collide with nothing, never outside the plot, first dots first."""

from hypothesis import given
from hypothesis import strategies as st

from lab.charts import power_label
from lab.labels import Box, place_labels

BOUNDS = Box(0.0, 0.0, 400.0, 250.0)


def test_it_names_dots_that_stand_apart() -> None:
    placed = place_labels([(50.0, 50.0, "alpha"), (50.0, 150.0, "beta")], bounds=BOUNDS)
    assert all(p is not None for p in placed)
    first = placed[0]
    assert first is not None and first.anchor == "start" and first.x > 50.0


def test_it_names_a_crowd_of_dots_only_as_far_as_the_names_fit() -> None:
    crowd = [(100.0, 100.0, name) for name in ("first", "second", "third", "fourth", "fifth")]
    placed = place_labels(crowd, bounds=BOUNDS)
    assert [p.anchor if p else None for p in placed] == ["start", "end", "middle", "middle", None]
    above, below = placed[2], placed[3]
    assert above is not None and below is not None and above.y < 100.0 < below.y


def test_it_puts_a_label_left_of_a_dot_at_the_right_edge() -> None:
    (placed,) = place_labels([(390.0, 100.0, "edge")], bounds=BOUNDS)
    assert placed is not None and placed.anchor == "end" and placed.box.right < 390.0


def test_it_drops_a_label_that_fits_nowhere() -> None:
    assert place_labels([(200.0, 100.0, "x" * 200)], bounds=BOUNDS) == [None]


POINTS = st.lists(
    st.tuples(st.floats(0, 400), st.floats(0, 250), st.text("abcdefgh-.", min_size=1, max_size=20)), max_size=40
)


@given(points=POINTS)
def test_no_two_labels_overlap_and_every_label_stays_inside(points: list[tuple[float, float, str]]) -> None:
    boxes = [p.box for p in place_labels(points, bounds=BOUNDS) if p is not None]
    for i, box in enumerate(boxes):
        assert box.inside(BOUNDS)
        assert not any(box.overlaps(other) for other in boxes[i + 1 :])


def test_axes_read_in_k_and_m() -> None:
    assert [power_label(p) for p in range(0, 10)] == ["1", "10", "100", "1k", "10k", "100k", "1M", "10M", "100M", "1G"]
