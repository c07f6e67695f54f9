"""A stored pool with a planted leader: one pairing ships far more often than four others, for every one of
several contributors, so its interval lies above every other one's and the verdict names it alone."""

import datetime as dt
from typing import Final

from tests.cycles import drawn_cycles
from tests.cycles.stored import make_contributor, store_cycles

LEADER: Final = ("claude-opus-4.8", "claude-opus-4.8")
LABEL_LEADER: Final = "claude-opus-4.8 → claude-opus-4.8"
OTHERS: Final = (
    ("gpt-6", "gpt-6"),
    ("claude-fable-5", "grok-4.6"),
    ("gemini-3.5-pro", "gemini-3.5-flash"),
    ("deepseek-v4-pro", "deepseek-v4-flash"),
)
LEADER_SHIP_RATE: Final = 0.95
OTHERS_SHIP_RATE: Final = 0.3
FIRST_DAY: Final = dt.date(2026, 6, 1)


def store_planted_leader_pool(contributors: int = 5, per_pairing: int = 30) -> None:
    """Each contributor sends every pairing `per_pairing` judged cycles; only the leader ships often."""
    for person in range(contributors):
        contributor = make_contributor()
        mine = []
        for p, pairing in enumerate((LEADER, *OTHERS)):
            offset = 1000 * (8 * person + p)
            rate = LEADER_SHIP_RATE if pairing == LEADER else OTHERS_SHIP_RATE
            mine += drawn_cycles(
                per_pairing,
                pairings=(pairing,),
                ship_rate=rate,
                seed=offset + 11,
                start_day=FIRST_DAY,
                key_offset=offset,
            )
        store_cycles(contributor, mine)
