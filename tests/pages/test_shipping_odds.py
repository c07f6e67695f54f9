"""The contributor-adjusted ship odds beside the raw ship rate, the variance share and rank stability in words."""

import html as html_module
import re
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import Client

from leaderboard.models import Snapshot
from pages import contexts, wording


def page(client: Client, path: str, **params: str) -> str:
    response = client.get(path, params)
    assert response.status_code == 200, (path, params)
    return html_module.unescape(response.content.decode())


def cells(html: str, kind: str) -> list[str]:
    """The text of one column of the rankings table (cells of that class), tags dropped, in row order."""
    found = re.findall(rf'<td class="num {kind}[^"]*"[^>]*>(.*?)</td>', html, flags=re.S)
    return [" ".join(re.sub(r"<[^>]+>", " ", cell).split()) for cell in found]


def store(snapshot: Snapshot, document: dict[str, Any]) -> None:
    Snapshot.objects.filter(id=snapshot.id).update(document=document)


def test_it_shows_the_engines_adjusted_odds_beside_the_raw_ship_rate(demo_snapshot: Snapshot, client: Client) -> None:
    view_doc = demo_snapshot.views["modelCombo"]
    assert view_doc["meta"]["adjustment"] == "ok", view_doc["meta"]["adjustment"]
    html = page(client, "/", view="modelCombo")
    separable = [g for g in view_doc["groups"] if g["adjusted"]["separable"]]
    assert separable, "the demo pool's pairings have several contributors each"
    assert cells(html, "ship-rate") == [f"{g['raw']['shipr']:.0f}%" for g in view_doc["groups"]]
    odds = cells(html, "odds")
    for group, cell in zip(view_doc["groups"], odds, strict=True):
        adjusted = group["adjusted"]
        if not adjusted["separable"]:
            continue
        lo, hi = adjusted["ci"]
        assert cell == f"×{adjusted['odds_ratio']:.2f} {lo:.2f}–{hi:.2f}", group["label"]
        assert lo <= adjusted["odds_ratio"] <= hi
    # What the odds are is said once, in the column's heading.
    assert html.count(wording.ADJUSTED_ODDS_WORDS) == 1
    share = view_doc["meta"]["contributor_variance_share"]
    assert f"{share * 100:.0f}% belongs to the contributors" in html


def test_it_says_which_estimate_is_which_and_where_none_is_possible(demo_snapshot: Snapshot, client: Client) -> None:
    document = demo_snapshot.document
    view_doc = document["views"]["modelCombo"]
    groups = view_doc["groups"]
    groups[0]["adjusted"] = {"odds_ratio": 0.8, "ci": [0.6, 1.1], "separable": True}
    groups[1]["adjusted"] = {"odds_ratio": None, "ci": [None, None], "separable": False}
    groups[2]["adjusted"] = {"odds_ratio": None, "ci": [None, None], "separable": None}
    view_doc["meta"]["contributor_variance_share"] = 0.35
    store(demo_snapshot, document)

    html = page(client, "/", view="modelCombo")
    odds = cells(html, "odds")
    assert odds[:3] == ["×0.80 0.60–1.10", "one contributor", "n/a"]
    not_separable = sum(1 for g in groups if g["adjusted"]["separable"] is False)
    assert html.count("adjusted-not-separable") == not_separable
    assert "35% belongs to the contributors and 65% to the pairings" in html

    first = page(client, "/pairing/", view="modelCombo", label=groups[0]["label"])
    assert f"Ship rate {groups[0]['raw']['shipr']:.0f}% (raw)" in first
    assert f"{groups[0]['hshipped']} of {groups[0]['hshipJudged']} ship-judged cycles shipped" in first
    assert "For the same contributor, its odds of shipping are ×0.80 those of the average ranked pairing" in first
    assert "(95% interval ×0.60 to ×1.10)" in first
    assert "35% belongs to the contributors" in first
    second = page(client, "/pairing/", view="modelCombo", label=groups[1]["label"])
    assert "not separable: every cycle from one contributor" in second
    assert wording.ADJUSTED_ODDS_WORDS not in second
    third = page(client, "/pairing/", view="modelCombo", label=groups[2]["label"])
    assert "no adjusted odds for this group" in third


def test_it_says_adjustment_unavailable_when_the_fit_did_not_run(demo_snapshot: Snapshot, client: Client) -> None:
    document = demo_snapshot.document
    view_doc = document["views"]["famCombo"]
    view_doc["meta"]["adjustment"] = "adjustment unavailable: the fit did not converge"
    view_doc["meta"]["contributor_variance_share"] = None
    store(demo_snapshot, document)

    html = page(client, "/", view="famCombo")
    assert cells(html, "odds") == ["unavailable"] * len(view_doc["groups"])
    assert "Contributor adjustment unavailable for this view (the fit did not converge)" in html
    label = view_doc["groups"][0]["label"]
    detail = page(client, "/pairing/", view="famCombo", label=label)
    assert "Adjusted: adjustment unavailable" in detail
    assert f"Ship rate {view_doc['groups'][0]['raw']['shipr']:.0f}% (raw)" in detail


def test_it_shows_no_adjusted_words_on_views_without_the_fit(demo_snapshot: Snapshot, client: Client) -> None:
    assert "adjustment" not in demo_snapshot.views["model"]["meta"]
    html = page(client, "/", view="model")
    assert "(raw)" not in html and wording.ADJUSTED_ODDS_WORDS not in html and "belongs to the contributors" not in html


def test_it_notes_the_leave_one_out_range_only_where_it_leaves_the_rank_range(
    demo_snapshot: Snapshot, client: Client
) -> None:
    document = demo_snapshot.document
    groups = document["views"]["modelCombo"]["groups"]
    groups[0].update(rank=1, rank_worst=2, rank_range=[1, 4])  # reaches outside 1-2: a note
    groups[1].update(rank=1, rank_worst=3, rank_range=[2, 3])  # inside 1-3: nothing to add
    store(demo_snapshot, document)

    html = page(client, "/", view="modelCombo")
    assert html.count("without one contributor: place") == 1
    assert "without one contributor: place 1–4 by score alone" in html
    assert "unstable rank" not in html
    moved = page(client, "/pairing/", view="modelCombo", label=groups[0]["label"])
    assert "Leaving out each contributor in turn, its place by score alone ranged from 1 to 4" in moved
    assert "outside the range its interval allows" in moved
    steady = page(client, "/pairing/", view="modelCombo", label=groups[1]["label"])
    assert "Leaving out each contributor in turn" not in steady


# What each section of the methodology page must say, by its heading's id.
METHODOLOGY_PHRASES = {
    "adjustment": (
        "mixed logistic model",
        "BinomialBayesMixedGLM",
        "Laplace approximation",
        "glmer",
        "not separable",
        "adjustment unavailable",
        "contributor variance share",
        "runs no test that treats every cycle",
        "independent trial",
        "average ranked pairing",
        "for the same contributor",
    ),
    "intervals": (
        "Cycles from one contributor are not independent draws",
        "form one <strong>cell</strong>",
        "t<sub>0.975, K−1</sub>",
        "one contributor</strong> gets no interval",
        wording.RANK_RANGE_WORDS,
        "leave each contributor out in turn",
        "stability note, not a confidence statement",
    ),
}


def methodology_section(client: Client, heading_id: str) -> str:
    """One section of the methodology page: from its heading to the next."""
    html = page(client, "/methodology/")
    return html.split(f'<h2 id="{heading_id}">', 1)[1].split("<h2", 1)[0]


@pytest.mark.parametrize("heading_id", METHODOLOGY_PHRASES)
def test_it_explains_the_method_on_the_methodology_page(
    heading_id: str, demo_snapshot: Snapshot, client: Client
) -> None:
    section = methodology_section(client, heading_id)
    for phrase in METHODOLOGY_PHRASES[heading_id]:
        assert phrase in section, phrase


def test_it_shows_the_measured_coverage_with_the_engines_constants(demo_snapshot: Snapshot, client: Client) -> None:
    section = methodology_section(client, "intervals")
    # The multipliers come from the engine's own constants.
    constants = contexts.interval_constants()
    assert constants["resamples"] == settings.SCORING_RESAMPLES
    for _, factor in constants["multipliers"]:
        assert f"<td>{factor:.2f}</td>" in section
    # The coverage figures come from the committed output of bench/coverage.py, not from the template.
    figures = contexts.coverage_figures()
    assert figures is not None and figures["rows"]
    for row in figures["rows"]:
        assert f'<td data-label="Score interval holds the truth">{row["score_coverage"] * 100:.1f}%</td>' in section
    assert f"{figures['meta']['replicates']} simulated pools per row" in section


def test_it_reads_no_coverage_from_a_missing_or_broken_file(tmp_path: Path) -> None:
    assert contexts.coverage_figures(tmp_path / "missing.json") is None
    (tmp_path / "broken.json").write_text("{not json")
    assert contexts.coverage_figures(tmp_path / "broken.json") is None
