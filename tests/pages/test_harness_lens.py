"""The harness as a lens: every ranking, pool.json, rankings.csv, the pairing page and compare on one harness's
cycles, scored by the same method and computed, throttled and cached like the day windows."""

import csv
import datetime as dt
import io
from typing import Any, cast

import pandas as pd
import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext

from core import page_cache, soft_cache
from core.keys import keyed_digest
from leaderboard import recompute, windows
from leaderboard.models import Snapshot
from leaderboard.selectors import scoring_config
from leaderboard.windows import scope_key
from pages.compare import compared
from pages.windowed import read_window
from scoring import compare_groups, score_pool
from scoring.axis_samples import decode
from scoring.compare_axes import compare_axes_from_samples
from scoring.shapes import AXIS_NAMES
from tests.cycles import drawn_cycles
from tests.cycles.frames import cycle_frame
from tests.cycles.stored import make_contributor, store_cycles
from tests.pages.conftest import row_labels
from tests.pages.lens_pool import LABEL_STRONG, LABEL_WEAK, SHIP_RATES, STRONG, WEAK, Made, store_two_harness_pool
from tests.pages.test_queries_and_cache import MAX_QUERIES, extra_queries

pytestmark = pytest.mark.django_db

SPLIT_DAY = dt.date(2026, 7, 1)


@pytest.fixture
def made() -> Made:
    return store_two_harness_pool()


@pytest.fixture
def snapshot(made: Made) -> Snapshot:
    """Three contributors, each with both pairings under both harnesses; the harnesses rank them oppositely."""
    published = recompute.publish()
    assert published is not None
    return published


def lens_frame(made: Made, harness: str) -> pd.DataFrame:
    """The scorer's frame of the harness's cycles, made from the fixture's own rows (not read back)."""
    return cycle_frame(cycle for cycle in made if cycle["harness"] == harness)


def expected(made: Made, harness: str, since: dt.date | None = None) -> dict[str, Any]:
    """The same method run directly on the harness's cycles, read key by key as plain JSON."""
    return cast(dict[str, Any], score_pool(lens_frame(made, harness), scoring_config(), since=since).document)


def scores(document: dict[str, Any], view: str) -> dict[str, tuple[float, Any]]:
    return {g["label"]: (g["scoreAdj"], g.get("ci")) for g in document["views"][view]["groups"]}


def order(document: dict[str, Any], view: str) -> list[str]:
    return [g["label"] for g in document["views"][view]["groups"]]


def assert_same_scores(found: dict[str, Any], wanted: dict[str, Any]) -> None:
    for view in wanted["views"]:
        got, want = scores(found, view), scores(wanted, view)
        assert got.keys() == want.keys(), view
        for label, (score, ci) in want.items():
            assert got[label][0] == pytest.approx(score, abs=1e-9), (view, label)
            assert (got[label][1] is None) == (ci is None)
            if ci is not None:
                assert got[label][1] == pytest.approx(ci, abs=1e-9), (view, label)


def test_pool_json_ranks_one_harnesss_cycles_by_the_same_method(snapshot: Snapshot, made: Made, client: Client) -> None:
    lenses = {}
    for harness in SHIP_RATES:
        answer = client.get("/api/v1/pool.json", {"harness": harness})
        assert answer.status_code == 200, answer.content
        body = answer.json()
        assert body["meta"]["harness"] == harness
        assert body["meta"]["harnesses"] == sorted(SHIP_RATES)
        assert_same_scores(body, expected(made, harness))
        lenses[harness] = body
    assert order(lenses["claude-code"], "modelCombo") == [LABEL_STRONG, LABEL_WEAK]
    assert order(lenses["codex"], "modelCombo") == [LABEL_WEAK, LABEL_STRONG]
    assert client.get("/api/v1/pool.json").json()["meta"]["harnesses"] == ["claude-code", "codex"]


def test_a_lens_combines_with_a_day_window(snapshot: Snapshot, made: Made, client: Client) -> None:
    answer = client.get("/api/v1/pool.json", {"harness": "codex", "since": SPLIT_DAY.isoformat()})
    assert answer.status_code == 200
    wanted = expected(made, "codex", since=SPLIT_DAY)
    assert wanted["meta"]["judged"] < expected(made, "codex")["meta"]["judged"], "the window cuts cycles"
    assert answer.json()["meta"]["judged"] == wanted["meta"]["judged"]
    assert_same_scores(answer.json(), wanted)

    custom = {"window": "custom", "since": SPLIT_DAY.isoformat(), "harness": "codex"}
    page = client.get("/", {"view": "modelCombo", **custom})
    assert page.status_code == 200
    html = page.content.decode()
    assert row_labels(html) == order(wanted, "modelCombo")
    assert "Harness lens" in html and f'value="{SPLIT_DAY.isoformat()}"' in html


def test_the_front_page_offers_the_harnesses_and_says_which_lens_is_on(
    snapshot: Snapshot, made: Made, client: Client
) -> None:
    plain = client.get("/").content.decode()
    assert '<option value="claude-code">' in plain and '<option value="codex">' in plain
    assert "Harness lens" not in plain

    html = client.get("/", {"harness": "claude-code"}).content.decode()
    assert 'Harness lens: only cycles recorded with <strong class="nowrap">claude-code</strong>' in html
    assert '<option value="claude-code" selected>' in html
    wanted = expected(made, "claude-code")
    assert row_labels(html) == order(wanted, "modelCombo")
    first = wanted["views"]["modelCombo"]["groups"][0]
    assert f'<span class="score-num">{first["scoreAdj"]:,.1f}</span>' in html
    # Tabs, rows and downloads keep the lens.
    assert "?view=family&amp;harness=claude-code" in html
    assert "label=claude-opus-4.8+%E2%86%92+claude-opus-4.8&amp;harness=claude-code" in html
    assert "rankings.csv?view=modelCombo&amp;harness=claude-code" in html


def test_rankings_csv_holds_the_lenss_numbers(snapshot: Snapshot, made: Made, client: Client) -> None:
    answer = client.get("/data/rankings.csv", {"view": "modelCombo", "harness": "codex"})
    assert answer.status_code == 200
    assert "codex" in answer["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(answer.content.decode())))
    wanted = scores(expected(made, "codex"), "modelCombo")
    ranked = {row["label"]: float(row["score_adj"]) for row in rows if row["status"] == "ranked"}
    assert ranked.keys() == wanted.keys()
    for label, (score, _) in wanted.items():
        assert ranked[label] == pytest.approx(score, abs=1e-9)


@pytest.mark.parametrize("harness", ["aider", "nope", "Not A Name!", "(other)", "x" * 400])
def test_a_harness_the_pool_does_not_show_gets_400_naming_the_parameter(
    snapshot: Snapshot, client: Client, harness: str
) -> None:
    api = client.get("/api/v1/pool.json", {"harness": harness})
    assert api.status_code == 400 and "harness" in api.json()["error"]
    pages = [
        ("/", {"harness": harness}),
        ("/", {"harness": harness, "window": "30"}),
        ("/pairing/", {"view": "modelCombo", "label": LABEL_STRONG, "harness": harness}),
        ("/compare/", {"view": "modelCombo", "harness": harness}),
        ("/data/rankings.csv", {"view": "modelCombo", "harness": harness}),
    ]
    for path, params in pages:
        answer = client.get(path, params)
        assert answer.status_code == 400, (path, params)
        assert "harness" in answer.content.decode(), (path, params)
        assert "ETag" not in answer


@pytest.mark.public_labels
def test_a_harness_folded_into_other_is_neither_offered_nor_accepted_nor_named(client: Client) -> None:
    hidden = "acme-internal-harness"
    seasoned = dt.timedelta(days=2)
    for person in range(2):
        made = drawn_cycles(24, pairings=(STRONG, WEAK), seed=person, key_offset=1000 * person)
        store_cycles(make_contributor(seen_for=seasoned), [{**cycle, "harness": "codex"} for cycle in made])
    lone = drawn_cycles(24, pairings=(STRONG,), seed=9, key_offset=9000)
    store_cycles(make_contributor(seen_for=seasoned), [{**cycle, "harness": hidden} for cycle in lone])
    assert recompute.publish() is not None

    assert client.get("/api/v1/pool.json").json()["meta"]["harnesses"] == ["codex"]
    for path, params in [("/api/v1/pool.json", {}), ("/", {"view": "modelCombo"}), ("/data/rankings.csv", {})]:
        answer = client.get(path, {**params, "harness": hidden})
        assert answer.status_code == 400
        assert hidden not in answer.content.decode()
    assert hidden not in client.get("/").content.decode()


def cycle_reads(queries: CaptureQueriesContext) -> int:
    return sum("COPY" in query["sql"] for query in queries.captured_queries)


def test_a_lens_is_computed_once_per_snapshot_and_cached_like_a_window(
    snapshot: Snapshot, made: Made, client: Client
) -> None:
    with CaptureQueriesContext(connection) as first:
        assert client.get("/api/v1/pool.json", {"harness": "codex"}).status_code == 200
    assert cycle_reads(first) == 1
    assert cache.get(scope_key(snapshot.id, None, None, "codex")) is not None
    # Again through the API, and through the pages (whose own caches are cold): no second computation.
    with CaptureQueriesContext(connection) as again:
        assert client.get("/api/v1/pool.json", {"harness": "codex"}).status_code == 200
        assert client.get("/", {"harness": "codex"}).status_code == 200
        assert client.get("/data/rankings.csv", {"harness": "codex"}).status_code == 200
        assert client.get("/compare/", {"view": "modelCombo", "harness": "codex"}).status_code == 200
    assert cycle_reads(again) == 0


@override_settings(WINDOW_RATE_PER_ADDRESS="1/hour")
def test_all_time_lenses_are_the_workers_to_warm_and_cost_no_rate_but_lenses_with_days_do(
    snapshot: Snapshot, made: Made, client: Client
) -> None:
    assert client.get("/api/v1/pool.json", {"harness": "codex"}).status_code == 200
    assert client.get("/api/v1/pool.json", {"harness": "claude-code"}).status_code == 200, "a lens is reserved"
    assert client.get("/api/v1/pool.json", {"harness": "codex", "since": "2026-06-02"}).status_code == 200
    refused = client.get("/api/v1/pool.json", {"harness": "codex", "since": "2026-06-03"})
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    page = client.get("/", {"harness": "claude-code", "window": "custom", "since": "2026-06-04"})
    assert page.status_code == 429


@override_settings(WINDOW_SLOTS=1)
def test_a_lens_never_waits_for_the_slots_of_visitors_windows(snapshot: Snapshot, made: Made, client: Client) -> None:
    held = windows._claim_window("elsewhere", keyed_digest("address", "10.0.0.9"))
    assert held is not None
    try:
        assert client.get("/api/v1/pool.json", {"harness": "codex"}).status_code == 200
        pairing = client.get("/pairing/", {"view": "modelCombo", "label": LABEL_STRONG, "harness": "claude-code"})
        assert pairing.status_code == 200
    finally:
        for taken in held:
            soft_cache.delete(taken)


def test_a_lens_not_warmed_waits_only_for_the_reserved_slot(snapshot: Snapshot, made: Made, client: Client) -> None:
    assert soft_cache.add(windows.RESERVED_SLOT, 1, 60)
    try:
        answer = client.get("/api/v1/pool.json", {"harness": "codex"})
        assert answer.status_code == 503 and answer["Retry-After"]
    finally:
        soft_cache.delete(windows.RESERVED_SLOT)
    assert client.get("/api/v1/pool.json", {"harness": "codex"}).status_code == 200


def test_the_pairing_page_shows_the_pairing_under_each_computed_harness(
    snapshot: Snapshot, made: Made, client: Client
) -> None:
    page = "/pairing/"
    params = {"view": "modelCombo", "label": LABEL_STRONG}
    cold = client.get(page, params)
    html = cold.content.decode()
    assert cold.status_code == 200 and "Under each harness" in html
    assert html.count("not computed yet") == 2
    assert "label=claude-opus-4.8+%E2%86%92+claude-opus-4.8&amp;harness=codex" in html
    assert "ETag" not in cold, "a page that will change once a lens is computed is not kept"
    # Viewing it started no computation.
    assert all(cache.get(scope_key(snapshot.id, None, None, name)) is None for name in SHIP_RATES)

    lensed = client.get(page, {**params, "harness": "codex"})
    assert lensed.status_code == 200
    assert 'Harness lens: only cycles recorded with <strong class="nowrap">codex</strong>' in lensed.content.decode()
    assert client.get("/api/v1/pool.json", {"harness": "claude-code"}).status_code == 200

    warm = client.get(page, params)
    html = warm.content.decode()
    assert "not computed yet" not in html and "ETag" in warm
    for harness in SHIP_RATES:
        group = next(g for g in expected(made, harness)["views"]["modelCombo"]["groups"] if g["label"] == LABEL_STRONG)
        lo, hi = group["ci"]
        assert f'<span class="score-num">{group["scoreAdj"]:,.1f}</span>' in html
        assert f"interval {lo:,.0f}–{hi:,.0f}</span>, {group['contributors']} contributors" in html


def test_compare_under_a_lens_takes_the_difference_from_the_lenss_resamples(
    snapshot: Snapshot, made: Made, client: Client
) -> None:
    answer = client.get(
        "/compare/", {"view": "modelCombo", "a": LABEL_STRONG, "b": LABEL_WEAK, "harness": "claude-code"}
    )
    assert answer.status_code == 200
    html = answer.content.decode()
    wanted = compare_groups(
        lens_frame(made, "claude-code"), scoring_config(), view="modelCombo", label_a=LABEL_STRONG, label_b=LABEL_WEAK
    )
    assert wanted.difference is not None and wanted.difference > 0
    assert f'A − B = <span class="score-num">+{wanted.difference:.1f}</span>' in html
    assert wanted.lo is not None and f"interval +{wanted.lo:.1f}" in html
    assert '<input type="hidden" name="harness" value="claude-code">' in html


def test_compare_under_a_lens_gives_every_axis_its_interval_from_the_lenss_resamples(
    snapshot: Snapshot, made: Made, client: Client
) -> None:
    html = client.get(
        "/compare/", {"view": "modelCombo", "a": LABEL_STRONG, "b": LABEL_WEAK, "harness": "codex"}
    ).content.decode()
    assert "no per-axis" not in html
    scored = score_pool(lens_frame(made, "codex"), scoring_config(), keep_axes=True)
    groups = {g["label"]: g for g in scored.document["views"]["modelCombo"]["groups"]}
    a, b = groups[LABEL_STRONG], groups[LABEL_WEAK]
    wanted = compare_axes_from_samples(
        adj_a=[a["adj"].get(name) for name in AXIS_NAMES],
        adj_b=[b["adj"].get(name) for name in AXIS_NAMES],
        logs_a=decode(scored.axis_samples["modelCombo"][LABEL_STRONG]),
        logs_b=decode(scored.axis_samples["modelCombo"][LABEL_WEAK]),
        contributors_a=a["contributors"],
        contributors_b=b["contributors"],
    )
    assert any(axis.ci is not None for axis in wanted)
    lens = read_window({"harness": "codex"}, today=dt.date.today())
    found = compared(snapshot.id, "modelCombo", a, b, lens)
    assert found[1] == wanted and found[2] is True


def test_the_matrix_takes_the_lens_and_its_cells_keep_it(snapshot: Snapshot, made: Made, client: Client) -> None:
    html = client.get("/matrix/", {"view": "modelCombo", "harness": "codex"}).content.decode()
    assert 'Harness lens: only cycles recorded with <strong class="nowrap">codex</strong>' in html
    wanted = {g["label"]: g for g in expected(made, "codex")["views"]["modelCombo"]["groups"]}
    for label, group in wanted.items():
        assert f"{label}: score {group['scoreAdj']:.1f}, " in html, label
    assert "label=claude-opus-4.8+%E2%86%92+claude-opus-4.8&amp;harness=codex" in html
    # The harness links keep the window; the window links keep the lens.
    assert '<a href="?view=modelCombo&amp;window=90&amp;harness=codex"' in html
    assert '<a href="?view=modelCombo&amp;harness=claude-code"' in html
    assert client.get("/matrix/", {"view": "modelCombo", "harness": "aider"}).status_code == 400


def test_a_new_snapshot_warms_the_lens_of_each_harness(snapshot: Snapshot, made: Made, client: Client) -> None:
    windows.warm_windows(snapshot_id=snapshot.id)
    for harness in SHIP_RATES:
        warmed = cache.get(scope_key(snapshot.id, None, None, harness))
        assert warmed is not None and warmed["meta"]["harness"] == harness
        assert_same_scores(warmed, expected(made, harness))
    html = client.get("/pairing/", {"view": "modelCombo", "label": LABEL_WEAK}).content.decode()
    assert "Under each harness" in html and "not computed yet" not in html


def test_a_lens_page_costs_at_most_three_queries_when_built_and_one_for_the_lab(
    snapshot: Snapshot, client: Client, django_assert_max_num_queries: Any
) -> None:
    lensed = [
        ("/", {"harness": "codex"}),
        ("/", {"harness": "codex", "window": "custom", "since": SPLIT_DAY.isoformat()}),
        ("/pairing/", {"view": "modelCombo", "label": LABEL_STRONG, "harness": "codex"}),
        ("/compare/", {"view": "modelCombo", "harness": "codex"}),
        ("/data/rankings.csv", {"view": "modelCombo", "harness": "codex"}),
        ("/matrix/", {"view": "modelCombo", "harness": "codex"}),
    ]
    for path, params in lensed:
        cache.clear()
        page_cache.forget_process_copies()
        with django_assert_max_num_queries(MAX_QUERIES + extra_queries(path, params)):
            assert client.get(path, params).status_code == 200, (path, params)
