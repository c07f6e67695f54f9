"""Coverage simulation: do the published intervals hold the population's numbers as often as they claim?

    .venv/bin/python bench/coverage.py [--replicates 100] [--resamples 200] [--out bench/results]

Scoring spec B1 and B3 claim 95% intervals. This draws pools from a process whose truth is known: contributors with
a random effect (SD 0, 0.5 or 1.0 on the log-odds of shipping, and proportionally on the other columns), 10 or 40
of them, each using four of eight pairings (people keep a few habits), 3,000 or 20,000 cycles, plus scenarios where
strong contributors self-select into one pairing and where everyone uses every pairing. The truth is the point
score of every pairing in a large pool of the same process (1,000,000 cycles from 20,000 contributors); B3's truth
is the planted pairing effect on shipping, centred on the average pairing.
The process is tests/scoring/simulated_pools.py's (the scoring tests draw small pools of it). Each pool is scored by
the engine's own path for the modelCombo view (scoring.document: the cluster bootstrap-t,
rank and rank_worst) and B3's fit (scoring.pairing_effects), and the table reports:

* score interval: how often `ci` holds the true scoreAdj, and its mean width (points);
* rank range: how often rank..rank_worst holds the true rank;
* B3 interval: how often the odds ratio's interval holds the planted centred effect, and its mean width (log units);
* wrong-direction separations: pairs the intervals separate (one surely above the other) the wrong way round,
  as a share of all pairs.

Goals: score and B3 intervals cover 90-98% wherever every pairing has >= 15 contributors; rank ranges
hold the true rank >= 95%; wrong-direction separations <= 1% of pairs. The table is written to
bench/results/coverage.md and, for the methodology page, bench/results/coverage.json (both committed).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from scoring.document import ScoringConfig  # noqa: E402
from scoring.judged import judged_mask  # noqa: E402
from scoring.pairing_effects import fit_pairing_effects  # noqa: E402
from scoring.shapes import View  # noqa: E402
from tests.scoring.simulated_pools import (  # noqa: E402
    PAIRING_LABELS,
    PAIRINGS,
    SHIP_EFFECT,
    Scenario,
    draw_pool,
    labels_of,
    scored_view,
)

RESULTS = REPO / "bench" / "results"
TRUTH_CYCLES = 1_000_000
TRUTH_CONTRIBUTORS = 20_000
# Contributors per pairing from which the goals apply.
GOAL_CONTRIBUTORS = 15


def default_scenarios() -> list[Scenario]:
    out = [
        Scenario(sd, contributors, cycles)
        for sd in (0.0, 0.5, 1.0)
        for contributors in (10, 40)
        for cycles in (3_000, 20_000)
    ]
    out += [Scenario(1.0, 40, cycles, self_selection=True) for cycles in (3_000, 20_000)]
    # Everyone uses every pairing: contributors shared by all groups (see CROSSED_NOTE).
    out.append(Scenario(1.0, 40, 20_000, habits=len(PAIRINGS)))
    return out


# Why the crossed scenario covers more than 95%: resampling cells inside each group (spec B1) draws a contributor's
# cells in different groups independently, so the bootstrap loses the shared ups and downs that the same people
# give a group and the pool it is measured against; the spread of group minus pool comes out too large and the
# interval errs wide, never narrow.
CROSSED_NOTE = (
    "Where every contributor uses every pairing, the interval errs wide: resampling inside each group loses what "
    "the same people share between a group and the pool it is measured against."
)


def population_truth(scenario: Scenario, seed: int) -> dict[str, float]:
    """True scoreAdj per pairing: the point score in a large pool of the same process."""
    frame = draw_pool(scenario, np.random.default_rng(seed), contributors=TRUTH_CONTRIBUTORS, cycles=TRUTH_CYCLES)
    body = scored_view(frame, ScoringConfig(resamples=0))
    return {str(group["label"]): float(group["scoreAdj"]) for group in body["groups"]}


def true_ranks(truth: dict[str, float]) -> dict[str, int]:
    return {label: 1 + sum(other > score for other in truth.values()) for label, score in truth.items()}


@dataclass
class Tally:
    """Counts over the replicates of one scenario."""

    intervals: int = 0
    covered: int = 0
    width: float = 0.0
    no_interval: int = 0
    ranks: int = 0
    rank_held: int = 0
    pairs: int = 0
    wrong_way: int = 0
    b3_intervals: int = 0
    b3_covered: int = 0
    b3_width: float = 0.0
    min_contributors: list[int] = field(default_factory=list)

    def add_view(self, body: View, truth: dict[str, float], ranks: dict[str, int]) -> None:
        groups = [g for g in body["groups"] if g["label"] in truth]
        self.min_contributors.append(min((int(g["contributors"]) for g in groups), default=0))
        for group in groups:
            label = group["label"]
            self.ranks += 1
            self.rank_held += group["rank"] <= ranks[label] <= group["rank_worst"]
            if group["ci"] is None:
                self.no_interval += 1
                continue
            lo, hi = group["ci"]
            self.intervals += 1
            self.covered += lo <= truth[label] <= hi
            self.width += hi - lo
        for i, a in enumerate(groups):
            for b in groups[i + 1 :]:
                self.pairs += 1
                if a["ci"] is None or b["ci"] is None:
                    continue
                a_above, b_above = a["ci"][0] > b["ci"][1], b["ci"][0] > a["ci"][1]
                a_truly_higher = truth[a["label"]] > truth[b["label"]]
                self.wrong_way += (a_above and not a_truly_higher) or (b_above and a_truly_higher)

    def add_b3(self, frame: pd.DataFrame, ranked: set[str]) -> None:
        judged = frame[judged_mask(frame)]
        fit = fit_pairing_effects(judged, labels=labels_of(judged), ranked=ranked)
        if not fit.converged:
            return
        planted = {label: SHIP_EFFECT[i] for i, label in enumerate(PAIRING_LABELS) if label in ranked}
        centre = float(np.mean(list(planted.values())))
        for label, effect in fit.effects.items():
            if effect.ci is None or label not in planted:
                continue
            self.b3_intervals += 1
            self.b3_covered += effect.ci[0] <= math.exp(planted[label] - centre) <= effect.ci[1]
            self.b3_width += math.log(effect.ci[1] / effect.ci[0])


@dataclass(frozen=True)
class Row:
    scenario: str
    contributor_sd: float
    contributors: int
    cycles: int
    self_selection: bool
    habits: int
    replicates: int
    min_contributors_per_pairing: float
    goals_apply: bool
    score_coverage: float | None
    score_width: float | None
    no_interval_share: float
    rank_coverage: float | None
    b3_coverage: float | None
    b3_width: float | None
    wrong_way_share: float | None


def _share(part: float, whole: int) -> float | None:
    return part / whole if whole else None


def run_scenario(
    scenario: Scenario, *, replicates: int, config: ScoringConfig, truth: dict[str, float], seed: int
) -> Row:
    ranks = true_ranks(truth)
    tally = Tally()
    rng = np.random.default_rng(seed)
    for _ in range(replicates):
        frame = draw_pool(scenario, rng, contributors=scenario.contributors, cycles=scenario.cycles)
        body = scored_view(frame, config)
        tally.add_view(body, truth, ranks)
        tally.add_b3(frame, {str(g["label"]) for g in body["groups"]})
    min_contributors = float(np.median(tally.min_contributors)) if tally.min_contributors else 0.0
    return Row(
        scenario=scenario.name,
        **asdict(scenario),  # the scenario's own fields, flat beside its results
        replicates=replicates,
        min_contributors_per_pairing=min_contributors,
        goals_apply=min_contributors >= GOAL_CONTRIBUTORS,
        score_coverage=_share(tally.covered, tally.intervals),
        score_width=_share(tally.width, tally.intervals),
        no_interval_share=tally.no_interval / max(tally.ranks, 1),
        rank_coverage=_share(tally.rank_held, tally.ranks),
        b3_coverage=_share(tally.b3_covered, tally.b3_intervals),
        b3_width=_share(tally.b3_width, tally.b3_intervals),
        wrong_way_share=_share(tally.wrong_way, tally.pairs),
    )


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _number(value: float | None, digits: int = 1) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def markdown(rows: list[Row], meta: dict[str, Any]) -> str:
    lines = [
        "# Coverage of the published intervals",
        "",
        f"Generated by `bench/coverage.py` ({meta['replicates']} pools per scenario, B = {meta['resamples']}, "
        f"seed {meta['seed']}, truth from {meta['truth_cycles']:,} cycles of {meta['truth_contributors']:,} "
        f"contributors; {meta['seconds']:.0f} s). Goals where every pairing has >= {GOAL_CONTRIBUTORS} "
        "contributors: score and B3 intervals cover 90-98%, rank ranges >= 95%, wrong-direction separations <= 1%.",
        "",
        "| contributor SD | contributors | cycles | pairings per contributor | selection "
        "| min contributors per pairing | score interval covers "
        "| mean width (points) | rank range holds true rank | B3 interval covers | B3 width (log) | wrong-direction "
        "separations | goals apply |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row.contributor_sd:g} | {row.contributors} | {row.cycles:,} | {row.habits} of {len(PAIRINGS)} | "
            f"{'self-selected' if row.self_selection else 'free'} | {row.min_contributors_per_pairing:g} | "
            f"{_percent(row.score_coverage)} | {_number(row.score_width)} | {_percent(row.rank_coverage)} | "
            f"{_percent(row.b3_coverage)} | {_number(row.b3_width, 2)} | {_percent(row.wrong_way_share)} | "
            f"{'yes' if row.goals_apply else 'no'} |"
        )
    lines += ["", CROSSED_NOTE]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replicates", type=int, default=100)
    parser.add_argument("--resamples", type=int, default=200)
    parser.add_argument("--seed", type=int, default=20261130)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()

    started = time.perf_counter()
    config = ScoringConfig(resamples=args.resamples, seed=args.seed)
    truths: dict[tuple[float, bool, int], dict[str, float]] = {}
    rows: list[Row] = []
    for index, scenario in enumerate(default_scenarios()):
        key = (scenario.contributor_sd, scenario.self_selection, scenario.habits)
        if key not in truths:
            truths[key] = population_truth(scenario, args.seed + 1000 + len(truths))
        row = run_scenario(
            scenario, replicates=args.replicates, config=config, truth=truths[key], seed=args.seed + index
        )
        rows.append(row)
        print(
            f"{scenario.name}: score {_percent(row.score_coverage)} (width {_number(row.score_width)}), "
            f"rank {_percent(row.rank_coverage)}, B3 {_percent(row.b3_coverage)}, "
            f"wrong way {_percent(row.wrong_way_share)}  [{time.perf_counter() - started:.0f} s]",
            flush=True,
        )
    meta = {
        "replicates": args.replicates,
        "resamples": args.resamples,
        "seed": args.seed,
        "truth_cycles": TRUTH_CYCLES,
        "truth_contributors": TRUTH_CONTRIBUTORS,
        "goal_contributors": GOAL_CONTRIBUTORS,
        "pairings": len(PAIRINGS),
        "crossed_note": CROSSED_NOTE,
        "seconds": time.perf_counter() - started,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "coverage.json").write_text(json.dumps({"meta": meta, "rows": [asdict(r) for r in rows]}, indent=1))
    table = markdown(rows, meta)
    (args.out / "coverage.md").write_text(table)
    print(table)


if __name__ == "__main__":
    main()
