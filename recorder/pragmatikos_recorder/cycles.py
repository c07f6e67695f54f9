"""Sessions cut into cycles, and each cycle's facts as the contract defines them.

A cycle is the work from a plan (or the session's start) until the commit that follows: it ends
at a commit made in the session (the cycle keeps the rest of that turn; the next prompt starts a
new one), at a return to planning after building (an edit, or a build step after the cycle's plan),
or at the session's end.
"""

from __future__ import annotations

import heapq
import itertools
import statistics
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final

from pragmatikos_recorder.canonical import model_name
from pragmatikos_recorder.git_ship import ShipJudge
from pragmatikos_recorder.prices import price
from pragmatikos_recorder.session import Event, Kind, Phase, Session

GAP_CAP_SECONDS: Final = 600.0  # a pause longer than 10 minutes counts as 10 minutes of activity
LATENCY_CAP_SECONDS: Final = 600.0  # the contract's ceiling for latmed
EPOCH: Final = datetime.min.replace(tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class Cycle:
    """One cycle's facts, before privacy shaping. `index` and `session_id` only feed cycle_key."""

    harness: str
    hversion: str
    session_id: str
    index: int
    start: datetime
    model: str
    prov: str
    role: int
    pm: str
    pp: str
    bm: str
    bp: str
    u: int
    a: int
    tedits: int
    tpaths: int
    teerr: int
    tcost: float
    tship: int
    thrs: float
    tver: int
    tabort: int
    latmed: float
    tshipe: int
    variant: str
    pv: str
    bv: str


def ordered_events(session: Session) -> list[Event]:
    """Main-chain events in log order, with subagent events merged in by time."""
    main = [e for e in session.events if not e.subagent]
    subagent = sorted((e for e in session.events if e.subagent), key=lambda e: e.ts or EPOCH)
    return list(heapq.merge(main, subagent, key=lambda e: e.ts or EPOCH))


def cut(session: Session) -> list[list[Event]]:
    """The session's events as cycles; cycles with no assistant step of the main agent are dropped."""
    cycles: list[list[Event]] = []
    current: list[Event] = []
    built = planned = committed = False
    for event in ordered_events(session):
        if not event.subagent:
            typed_after_commit = committed and event.kind is Kind.PROMPT
            back_to_planning = built and event.phase == "plan" and event.kind in (Kind.PROMPT, Kind.STEP)
            if (typed_after_commit or back_to_planning) and current:
                cycles.append(current)
                current, built, planned, committed = [], False, False, False
            # Building is changing files, or carrying out a plan (aider's editor after its architect,
            # even when it changed nothing): steps that only looked around before the agent chose to
            # plan (EnterPlanMode) belong to the cycle the plan starts.
            if event.phase == "build" and (event.kind is Kind.EDIT or (planned and event.kind is Kind.STEP)):
                built = True
            if event.phase == "plan" and event.kind is Kind.STEP:
                planned = True
            if event.kind is Kind.COMMIT:
                committed = True
        current.append(event)
    if current:
        cycles.append(current)
    return [c for c in cycles if any(e.kind is Kind.STEP and not e.subagent for e in c)]


def _dominant(steps: list[Event]) -> tuple[str, str, str]:
    """(model, provider, effort) most steps ran with; ties go to the first seen."""
    if not steps:
        return "", "", ""
    model = Counter(model_name(s.model) for s in steps).most_common(1)[0][0]
    own = [s for s in steps if model_name(s.model) == model]
    provider = Counter(s.provider.strip().lower() for s in own).most_common(1)[0][0]
    efforts = Counter(s.effort.strip().lower() for s in own if s.effort.strip())
    return model, provider, efforts.most_common(1)[0][0] if efforts else ""


def _cost(events: list[Event]) -> float:
    """The log's cost where it has one, else tokens x prices; 0 when any priced model is unknown."""
    total = 0.0
    for event in events:
        if event.cost is not None:
            total += event.cost
        elif event.tokens is not None and (event.tokens.input or event.tokens.output):
            dollars = price(event.model, event.provider, event.tokens, event.ts)
            if dollars is None:
                return 0.0
            total += dollars
    return total


def _active_hours(events: list[Event]) -> float:
    times = sorted(e.ts for e in events if e.ts is not None)
    seconds = sum(min((b - a).total_seconds(), GAP_CAP_SECONDS) for a, b in itertools.pairwise(times))
    return seconds / 3600


def _latency_median(steps: list[Event]) -> float:
    latencies = [min(max(s.latency, 0.0), LATENCY_CAP_SECONDS) for s in steps if s.latency is not None]
    return round(statistics.median(latencies), 2) if latencies else -1.0


def cycle_facts(session: Session, judge: ShipJudge) -> list[Cycle]:
    session_steps = [e for e in session.events if e.kind is Kind.STEP and not e.subagent]
    model, prov, variant = _dominant(session_steps)
    facts = []
    for index, events in enumerate(cut(session)):
        steps = [e for e in events if e.kind is Kind.STEP and not e.subagent]
        plan_steps = [s for s in steps if s.phase == "plan"]
        build_steps = [s for s in steps if s.phase == "build"]
        pm, pp, pv = _dominant(plan_steps)
        bm, bp, bv = _dominant(build_steps)
        edits = [e for e in events if e.kind is Kind.EDIT]
        last_edit = max((i for i, e in enumerate(events) if e.kind is Kind.EDIT), default=None)
        verified = last_edit is not None and any(e.kind is Kind.COMMAND and e.verify for e in events[last_edit + 1 :])
        times = [e.ts for e in events if e.ts is not None]
        start = min(times) if times else EPOCH
        end = max(times) if times else EPOCH
        ship = judge.judge([f for e in edits for f in e.files], session.cwd, start.replace(microsecond=0), end)
        last_phase: Phase = steps[-1].phase
        facts.append(
            Cycle(
                harness=session.harness,
                hversion=session.hversion,
                session_id=session.session_id,
                index=index,
                start=start,
                model=model,
                prov=prov,
                role=1 if last_phase == "plan" else 2,
                pm=pm,
                pp=pp,
                bm=bm,
                bp=bp,
                u=sum(1 for e in events if e.kind is Kind.PROMPT),
                a=len(steps),
                tedits=len(edits),
                tpaths=ship.tpaths,
                teerr=sum(1 for e in edits if e.failed),
                tcost=round(_cost(events), 4),
                tship=ship.tship,
                thrs=round(_active_hours(events), 4) if session.timed else 0.0,
                tver=int(verified),
                tabort=int(any(e.kind is Kind.ABORT or e.rejected for e in events)),
                latmed=_latency_median(steps) if session.timed else -1.0,
                tshipe=ship.tshipe,
                variant=variant,
                pv=pv,
                bv=bv,
            )
        )
    return facts
