"""A stored pool with two harnesses that rank the same two pairings oppositely, for the harness lens's tests."""

import datetime as dt
from typing import Any, Final

from tests.cycles import drawn_cycles
from tests.cycles.stored import make_contributor, store_cycles

STRONG: Final = ("claude-opus-4.8", "claude-opus-4.8")
WEAK: Final = ("claude-fable-5", "grok-4.6")
LABEL_STRONG: Final = "claude-opus-4.8 → claude-opus-4.8"
LABEL_WEAK: Final = "claude-fable-5 → grok-4.6"
# Under claude-code the first pairing ships far more often; under codex the second does.
SHIP_RATES: Final = {"claude-code": {STRONG: 0.9, WEAK: 0.2}, "codex": {STRONG: 0.2, WEAK: 0.9}}
FIRST_DAY: Final = dt.date(2026, 6, 1)

# Stored cycles with their contributor's id: the frame a test scores directly.
Made = list[dict[str, Any]]


def store_two_harness_pool(contributors: int = 3, per_group: int = 24) -> Made:
    """Each contributor sends both pairings under both harnesses; returns every cycle stored."""
    made: Made = []
    for person in range(contributors):
        contributor = make_contributor()
        mine: Made = []
        for h, (harness, rates) in enumerate(SHIP_RATES.items()):
            for p, (pairing, rate) in enumerate(rates.items()):
                offset = 1000 * (4 * person + 2 * h + p)
                drawn = drawn_cycles(
                    per_group,
                    pairings=(pairing,),
                    ship_rate=rate,
                    seed=offset + 7,
                    start_day=FIRST_DAY,
                    key_offset=offset,
                )
                mine += [{**cycle, "harness": harness} for cycle in drawn]
        store_cycles(contributor, mine)
        made += [{**cycle, "contributor": contributor.id} for cycle in mine]
    return made
