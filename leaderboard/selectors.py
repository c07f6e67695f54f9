"""Reads of the leaderboard beside the published snapshot (leaderboard.published): its history and samples, the
scoring input."""

from __future__ import annotations

import datetime as dt
import io
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import connection

from core.backend import bulk_statements, copy_out
from ingest.selectors import pool_cycles
from leaderboard.models import GroupScore
from leaderboard.public_names import NameDecisions, counted_contributor, name_decisions, public_name_rule
from scoring.config import ScoringConfig
from scoring.public_labels import fold_unshown_names
from scoring.shapes import CYCLE_COLUMNS

if TYPE_CHECKING:  # pandas is imported where a frame is read: the pages import this module as Django starts
    import pandas as pd

# The scoring input (the columns the scorer reads, in the order the one query selects them) and the harness, so
# that cells summed from these cycles (the embedded default's) keep it for the lenses.
FRAME_COLUMNS: tuple[str, ...] = (*CYCLE_COLUMNS, "harness")
_TEXT_COLUMNS = frozenset(
    {
        "cycle_key",
        "model",
        "provider",
        "planner_model",
        "planner_provider",
        "builder_model",
        "builder_provider",
        "effort",
        "planner_effort",
        "builder_effort",
        "harness",
        "harness_version",
    }
)
_FLOAT_COLUMNS = frozenset({"cost_usd", "active_hours", "step_seconds_median"})


def scoring_config() -> ScoringConfig:
    if settings.SCORING_FAMILY_PATTERN:
        return ScoringConfig(
            resamples=settings.SCORING_RESAMPLES,
            seed=settings.SCORING_SEED,
            family_pattern=settings.SCORING_FAMILY_PATTERN,
        )
    return ScoringConfig(resamples=settings.SCORING_RESAMPLES, seed=settings.SCORING_SEED)


def configured_method() -> dict[str, Any]:
    """The method's numbers as the next recompute will use them, named as a document's meta names them."""
    config = scoring_config()
    return {"minJudged": config.min_judged, "evidenceK": config.evidence_k, "resamples": config.resamples}


HistoryRow = tuple[int, dt.datetime, float, float | None, float | None]


def score_history(view: str, label: str, *, points: int) -> list[HistoryRow]:
    """A group's scoreAdj and interval on its last `points` days (each day's newest snapshot), oldest first."""
    rows = (
        GroupScore.objects.filter(view=view, label=label)
        .order_by("-snapshot_id")
        .values_list("snapshot_id", "snapshot__created_at", "score_adj", "ci_lo", "ci_hi")[:points]
    )
    return list(reversed(rows))


# Beside FRAME_COLUMNS, read in the same query: whether the cycle's contributor counts toward a name.
_COUNTED = "x_counted"


def _cycles_sql(
    *, since: dt.date | None, until: dt.date | None, harness: str | None = None
) -> tuple[str, tuple[Any, ...]]:
    """The one query of the scoring input, as SQL and parameters: the ingest's pool (one harness's cycles when
    given), FRAME_COLUMNS in order, then _COUNTED."""
    cycles = pool_cycles(since=since, until=until)
    return (
        (cycles if harness is None else cycles.filter(harness=harness))
        .annotate(**{_COUNTED: counted_contributor("contributor__")})
        .values_list(*FRAME_COLUMNS, _COUNTED)
        .query.sql_with_params()
    )


def _typed_frame(frame: pd.DataFrame) -> pd.DataFrame:
    import pandas as pd

    for name in FRAME_COLUMNS:
        if name in _TEXT_COLUMNS:
            frame[name] = frame[name].fillna("").astype(str)
        elif name == "day":
            frame[name] = pd.to_datetime(frame[name]).dt.date
        elif name in _FLOAT_COLUMNS:
            frame[name] = frame[name].astype("float64")
        else:
            frame[name] = frame[name].astype("int64")
    return frame


def cycles_frame(
    *,
    since: dt.date | None = None,
    until: dt.date | None = None,
    decisions: NameDecisions | None = None,
    harness: str | None = None,
) -> pd.DataFrame:
    """Every cycle in the pool (of one harness when given), in one query, with the names no ranking may show
    folded into "(other)" (the rule counts the senders within these cycles, as for a day window).

    `decisions`: the operator's on names, as the snapshot a window belongs to was made with; read when None.

    On PostgreSQL the rows come through COPY as CSV, which pandas parses far faster than
    Python tuples; elsewhere (the embedded SQLite default) through a plain cursor.
    """
    import pandas as pd

    sql, params = _cycles_sql(since=since, until=until, harness=harness)
    if bulk_statements():
        buffer = io.BytesIO()
        for block in copy_out(sql, params, options="FORMAT csv, HEADER true"):
            buffer.write(block)
        buffer.seek(0)
        dtypes = {name: str for name in (*_TEXT_COLUMNS, _COUNTED)}
        # Named by position: the query selects FRAME_COLUMNS in order (the header says contributor_id).
        frame = pd.read_csv(
            buffer,
            header=0,
            names=[*FRAME_COLUMNS, _COUNTED],
            dtype=dtypes,
            keep_default_na=False,
        )
        if frame.empty:
            frame = pd.DataFrame({name: pd.Series(dtype="object") for name in (*FRAME_COLUMNS, _COUNTED)})
        counted_rows = frame[_COUNTED] == "t"
    else:
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            frame = pd.DataFrame.from_records(cursor.fetchall(), columns=[*FRAME_COLUMNS, _COUNTED])
        counted_rows = frame[_COUNTED].astype(bool)
    cycles = _typed_frame(frame[list(FRAME_COLUMNS)])
    counted = frozenset(cycles.loc[counted_rows, "contributor"].unique().tolist())
    rule = public_name_rule(counted=counted, decisions=name_decisions() if decisions is None else decisions)
    return fold_unshown_names(cycles, rule)
