"""Real, published Claude Code transcripts (tests/data/claude-code, see its SOURCE.md) read into cycles.

Every expected value was counted by hand from the lines of the file, as each comment says. Line
numbers are those of the files as kept in tests/data.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from pragmatikos_recorder import claude_code
from pragmatikos_recorder.cycles import Cycle, cycle_facts
from pragmatikos_recorder.git_ship import ShipJudge
from pragmatikos_recorder.session import Event, Kind, Session

from tests.data.paths import CLAUDE_CODE_DIR

SPOTTER = CLAUDE_CODE_DIR / "marot-spotter"
VIEWER = CLAUDE_CODE_DIR / "claude-code-viewer"


def session_of(path: Path) -> Session:
    [session] = claude_code.parse(path)
    return session


def cycles_of(path: Path) -> list[Cycle]:
    return cycle_facts(session_of(path), ShipJudge(now=datetime(2026, 3, 1, tzinfo=UTC)))


def prompt_times(session: Session) -> list[str]:
    return [e.ts.isoformat(timespec="milliseconds") for e in session.events if e.kind is Kind.PROMPT and e.ts]


def main_steps(session: Session) -> list[Event]:
    return [e for e in session.events if e.kind is Kind.STEP and not e.subagent]


def test_one_hour_cache_writes_are_priced_at_the_one_hour_rate() -> None:
    # The four steps of tool_heavy.jsonl (claude-opus-4-6: $5 in, $25 out, $0.50 cache read, $10 for a
    # 1-hour cache write per million), each writing only to the 1-hour cache (ephemeral_5m 0):
    #   msg_0167…  in 3,  write 7883, read 17915, out 27   -> 15 + 78830 + 8957.5 + 675  = 88477.5
    #   msg_01NU…  in 1,  write 208,  read 25798, out 1    ->  5 +  2080 + 12899  + 25   = 15009
    #   msg_01Lb…  in 3,  write 8490, read 18014, out 11   -> 15 + 84900 + 9007   + 275  = 94197
    #   msg_019B…  in 47, write 1115, read 26504, out 173  -> 235 + 11150 + 13252 + 4325 = 28962
    # (millionths of a dollar; msg_019B's largest output count, 173 on line 37, is the step's). At the
    # 5-minute rate ($6.25) it would be 0.1603.
    [cycle] = cycles_of(SPOTTER / "tool_heavy.jsonl")
    assert cycle.tcost == pytest.approx(0.2266455, abs=5e-5)
