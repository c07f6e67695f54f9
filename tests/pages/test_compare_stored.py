"""The comparison page reads the bootstrap samples the recompute stored, and tests the two ship rates."""

import dataclasses
import html as html_module
import json

import numpy as np
import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from scipy import stats

from leaderboard import recompute
from leaderboard.models import Snapshot
from leaderboard.selectors import cycles_frame, scoring_config
from scoring import compare_from_samples, compare_groups, score_pool
from tests.cycles.stored import make_contributor, make_cycles
from tests.pages.conftest import ranked_labels
from tests.scoring.test_cells import assert_same


def test_it_stores_the_samples_of_every_ranked_group(demo_snapshot: Snapshot) -> None:
    samples = Snapshot.objects.get(id=demo_snapshot.id).samples
    resamples = demo_snapshot.document["meta"]["resamples"]
    for view, body in demo_snapshot.views.items():
        assert set(samples[view]) == {group["label"] for group in body["groups"]}, view
        assert all(len(draws) == resamples for draws in samples[view].values())


def test_it_gets_compare_groups_numbers_from_the_stored_samples(demo_snapshot: Snapshot) -> None:
    samples = Snapshot.objects.get(id=demo_snapshot.id).samples
    frame, config = cycles_frame(), scoring_config()
    for view in ("modelCombo", "family"):
        groups = demo_snapshot.views[view]["groups"]
        for a, b in ((groups[0], groups[1]), (groups[-1], groups[0])):
            expected = compare_groups(frame, config, view=view, label_a=a["label"], label_b=b["label"])
            stored = compare_from_samples(
                score_a=a["scoreAdj"],
                score_b=b["scoreAdj"],
                samples_a=samples[view][a["label"]],
                samples_b=samples[view][b["label"]],
                contributors_a=a["contributors"],
                contributors_b=b["contributors"],
            )
            # The recompute scores cells, compare_groups the cycles: the same numbers up to float summation order.
            assert_same(dataclasses.asdict(stored), dataclasses.asdict(expected))


def test_it_scores_the_same_document_each_time_with_intervals_from_its_samples(demo_snapshot: Snapshot) -> None:
    frame, config = cycles_frame(), scoring_config()
    generated = "2026-11-30T00:00:00Z"
    scored = score_pool(frame, config, generated=generated)
    document, samples = scored.document, scored.samples
    assert json.dumps(document, sort_keys=True) == json.dumps(
        score_pool(frame, config, generated=generated).document, sort_keys=True
    )
    first = document["views"]["modelCombo"]["groups"][0]
    draws = samples["modelCombo"][first["label"]]
    # The document's interval is the cluster bootstrap-t of the samples: scoreAdj +- t(0.975, K-1) s sqrt(K/(K-1)).
    k = first["contributors"]
    half = stats.t.ppf(0.975, k - 1) * np.std(draws, ddof=1) * np.sqrt(k / (k - 1))
    assert first["ci"] == pytest.approx([max(0, first["scoreAdj"] - half), min(100, first["scoreAdj"] + half)])


def test_it_compares_without_reading_the_cycles(demo_snapshot: Snapshot, client: Client) -> None:
    first, third = ranked_labels(demo_snapshot, "modelCombo")[0], ranked_labels(demo_snapshot, "modelCombo")[2]
    expected = compare_groups(cycles_frame(), scoring_config(), view="modelCombo", label_a=first, label_b=third)
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/compare/", {"view": "modelCombo", "a": first, "b": third})
    assert response.status_code == 200
    assert not [q["sql"] for q in queries.captured_queries if "ingest_cycle" in q["sql"]]
    assert len(queries.captured_queries) <= 3
    html = response.content.decode()
    assert f"{abs(expected.difference):.1f}</span>" in html
    assert expected.share_a_better is not None
    assert f"A scored higher than B in {expected.share_a_better * 100:.0f}% of {expected.resamples} resamples" in html


def test_it_keeps_samples_on_the_newest_snapshot_only_and_still_compares_an_old_one(
    demo_snapshot: Snapshot, client: Client
) -> None:
    make_cycles(make_contributor(demo=True), count=40, pairings=(("gpt-7", "gpt-7"),), seed=9)
    newer = recompute.publish()
    assert newer is not None
    assert Snapshot.objects.get(id=demo_snapshot.id).samples == {}
    assert Snapshot.objects.get(id=newer.id).samples["modelCombo"]
    # A snapshot without samples (one published before they were kept) falls back to the engine's bootstrap.
    Snapshot.objects.filter(id=newer.id).update(samples={})
    first, second = ranked_labels(newer, "modelCombo")[:2]
    expected = compare_groups(cycles_frame(), scoring_config(), view="modelCombo", label_a=first, label_b=second)
    html = client.get("/compare/", {"view": "modelCombo", "a": first, "b": second}).content.decode()
    assert expected.share_a_better is not None
    assert f"A scored higher than B in {expected.share_a_better * 100:.0f}% of {expected.resamples} resamples" in html


def test_it_shows_the_two_ship_rates_without_a_test_that_counts_cycles_as_independent(
    demo_snapshot: Snapshot, client: Client
) -> None:
    groups = demo_snapshot.views["modelCombo"]["groups"]
    a, b = groups[0], groups[-1]
    html = html_module.unescape(
        client.get("/compare/", {"view": "modelCombo", "a": a["label"], "b": b["label"]}).content.decode()
    )
    section = html.split('<section class="rates">', 1)[1].split("</section>", 1)[0]
    n_a = a["hshipJudged"]
    assert f"A {a['hshipped'] / n_a * 100:.0f}% ({a['hshipped']} of {n_a})" in section
    # A p-value the page itself calls too small is not shown at all.
    assert "z-test" not in html and "p = " not in section
    assert (
        "odds of shipping vs the average pairing" in section or "not separable" in section or "unavailable" in section
    )


def test_it_leaves_the_rate_test_out_when_a_and_b_are_the_same(demo_snapshot: Snapshot, client: Client) -> None:
    label = ranked_labels(demo_snapshot, "modelCombo")[0]
    html = client.get("/compare/", {"view": "modelCombo", "a": label, "b": label}).content.decode()
    assert '<section class="rates">' not in html
