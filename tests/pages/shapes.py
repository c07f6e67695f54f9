"""Whole document rows for tests that state only the fields they are about (the rest as a plain pool's)."""

from typing import Any, cast

from scoring.shapes import AXIS_NAMES, EVIDENCE_K, MIN_JUDGED, SPAN, TIER_NAMES, GroupRow, ProvisionalRow, View


def group_row(label: str, **fields: Any) -> GroupRow:
    """A ranked group at the pool on every axis, with `fields` set over those defaults."""
    row = {
        "id": "g0",
        "label": label,
        "hue": 0,
        "hjudged": 40,
        "hshipped": 30,
        "hshipJudged": 35,
        "raw": dict.fromkeys(AXIS_NAMES),
        "adj": dict.fromkeys(AXIS_NAMES),
        "ev": dict.fromkeys(AXIS_NAMES, 0),
        "tiers": dict.fromkeys(TIER_NAMES, 50.0),
        "tiersAdj": dict.fromkeys(TIER_NAMES, 50.0),
        "imputed": [],
        "score": 50.0,
        "scoreAdj": 50.0,
        "ci": None,
        "rank": 1,
        "rank_worst": 1,
        "contributors": 2,
        "top_share": 0.5,
        "flags": [],
    }
    return cast(GroupRow, row | fields)


def provisional_row(label: str, hjudged: int) -> ProvisionalRow:
    return ProvisionalRow(label=label, hjudged=hjudged, raw=dict.fromkeys(AXIS_NAMES))


def view_of(groups: list[GroupRow], provisional: list[ProvisionalRow] | None = None) -> View:
    """A view of these rows, its meta counting nothing."""
    return View(
        groups=groups,
        pool=dict.fromkeys(AXIS_NAMES),
        span=SPAN,
        provisional=provisional or [],
        meta={
            "judged": 0,
            "shipped": 0,
            "shipJudged": 0,
            "pending": 0,
            "unshippable": 0,
            "contributors": 0,
            "start": None,
            "end": None,
            "minJudged": MIN_JUDGED,
            "evidenceK": EVIDENCE_K,
            "weights": "",
        },
    )
