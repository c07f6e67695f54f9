import pytest

from leaderboard.cells import pool_cells
from leaderboard.lenses import shown_harnesses
from leaderboard.selectors import cycles_frame
from scoring.cells import cells_of_cycles
from tests.pages.lens_pool import SHIP_RATES, store_two_harness_pool

pytestmark = pytest.mark.django_db


def test_the_cells_summed_from_the_cycles_offer_the_harnesses_the_kept_cells_offer() -> None:
    # The embedded default sums its cells from cycles_frame; PostgreSQL keeps them. Both must name the lenses.
    store_two_harness_pool()
    kept = shown_harnesses(pool_cells(decisions={}))
    summed = shown_harnesses(cells_of_cycles(cycles_frame(decisions={})))
    assert kept == summed == sorted(SHIP_RATES)
