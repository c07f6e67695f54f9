import datetime as dt
import html as html_module
import re
from urllib.parse import urlencode

import pytest
from django.core.cache import cache
from django.test import Client
from django.utils import timezone

from core import page_cache
from leaderboard import recompute
from leaderboard.models import Snapshot
from leaderboard.windows import scoped_document
from pages import wording
from tests.cycles.stored import make_contributor, make_cycles
from tests.pages.conftest import page_text, ranked_labels, row_labels


@pytest.mark.parametrize("view", list(wording.VIEW_TITLES))
def test_it_renders_every_ranked_group_of_every_view(demo_snapshot: Snapshot, client: Client, view: str) -> None:
    response = client.get("/", {"view": view})
    assert response.status_code == 200
    html = response.content.decode()
    labels = ranked_labels(demo_snapshot, view)
    assert labels
    assert row_labels(html) == labels
    # One interval bar per ranked row, each with a text alternative.
    assert html.count('<svg class="bar"') == len(labels)
    assert html.count("<title>") >= len(labels)


def test_it_heads_the_page_with_the_counts_and_when_they_were_computed(demo_snapshot: Snapshot, client: Client) -> None:
    meta = demo_snapshot.document["meta"]
    html = page_text(client.get("/").content.decode())
    assert f"{meta['judged']} judged cycles · {meta['contributors']} contributors" in html
    assert f"{meta['pending']} pending" in html
    assert f"{meta['unshippable']} unshippable" in html
    assert f"snapshot {demo_snapshot.id}" in html


def test_it_marks_demo_data_on_every_page(demo_snapshot: Snapshot, client: Client) -> None:
    label = ranked_labels(demo_snapshot, "modelCombo")[0]
    for path in ("/", "/compare/", "/methodology/", "/contribute/", "/data/"):
        assert "Demo data" in client.get(path).content.decode(), path
    assert "Demo data" in client.get("/pairing/", {"view": "modelCombo", "label": label}).content.decode()


def test_it_shows_no_demo_mark_on_contributed_data(db: None, client: Client) -> None:
    make_cycles(make_contributor(), count=120, seed=3)
    recompute.publish()
    html = client.get("/").content.decode()
    assert "Demo data" not in html
    assert "claude-opus-4.8 → claude-opus-4.8" in html


def test_it_prints_ranks_caveats_and_shares_in_words(demo_snapshot: Snapshot, client: Client) -> None:
    html = client.get("/", {"view": "modelCombo"}).content.decode()
    groups = demo_snapshot.views["modelCombo"]["groups"]
    flagged = [g for g in groups if g["flags"]]
    assert flagged, "the demo pool should hold at least one row with a caveat"
    for group in flagged:
        for flag in group["flags"]:
            assert wording.FLAG_WORDS[flag] in html
    for group in groups:
        assert f"{group['top_share'] * 100:.0f}%" in html
    assert wording.RANK_RANGE_WORDS in html


def printed_ranks(page: str) -> list[str]:
    return re.findall(r'<td class="rank[^"]*" data-label="Rank">([^<]*)</td>', page)


def test_it_prints_each_rank_as_the_range_of_places_its_interval_allows(
    demo_snapshot: Snapshot, client: Client
) -> None:
    document = demo_snapshot.document
    groups = document["views"]["modelCombo"]["groups"]
    # The demo's intervals all overlap; give the first two intervals that set them apart from the rest.
    top = max(g["ci"][1] for g in groups[2:] if g["ci"])
    groups[0].update(ci=[top + 2, top + 6], rank=1, rank_worst=2)
    groups[1].update(ci=[top + 1, top + 5], rank=1, rank_worst=2)
    Snapshot.objects.filter(id=demo_snapshot.id).update(document=document)
    html = client.get("/", {"view": "modelCombo"}).content.decode()

    expected = [str(g["rank"]) if g["rank"] == g["rank_worst"] else f"{g['rank']}–{g['rank_worst']}" for g in groups]
    assert printed_ranks(html) == expected
    # Every row reads as a range, the whole list's too: no words in place of a number beside "1–2".
    assert "1–2" in expected and f"1–{len(groups)}" in expected
    assert "not separated" not in page_text(html.split('<table class="rankings">', 1)[1].split("</table>", 1)[0])
    # One contributor claims no place beyond the whole range, and shows no interval.
    alone = [g for g in groups if g["contributors"] == 1]
    assert alone, "the demo pool has a pairing with one contributor"
    for group in alone:
        assert (group["rank"], group["rank_worst"]) == (1, len(groups))
    assert html.count('<span class="ci">no interval</span>') == len(alone)
    assert "n/a–n/a" not in html


def test_it_lists_provisional_groups_below_with_their_counts(demo_snapshot: Snapshot, client: Client) -> None:
    provisional = demo_snapshot.views["modelCombo"]["provisional"]
    assert provisional
    html = client.get("/", {"view": "modelCombo"}).content.decode()
    section = html.split('<section class="provisional">', 1)[1]
    for item in provisional:
        needs = demo_snapshot.document["meta"]["minJudged"] - item["hjudged"]
        counted = f"{item['hjudged']} judged, {needs} more to be ranked"
        assert f'>{item["label"]}</a> <span class="hint">{counted}</span>' in section


def test_it_scopes_the_rankings_to_the_last_30_days(demo_snapshot: Snapshot, client: Client) -> None:
    today = timezone.now().date()
    scoped = scoped_document(since=today - dt.timedelta(days=29), until=today)
    assert scoped is not None
    assert scoped["meta"]["judged"] < demo_snapshot.document["meta"]["judged"]
    html = client.get("/", {"window": "30"}).content.decode()
    assert f"{scoped['meta']['judged']} judged cycles" in page_text(html)
    assert 'value="30" checked' in html


def test_it_answers_a_malformed_custom_window_with_400_and_a_sentence(demo_snapshot: Snapshot, client: Client) -> None:
    response = client.get("/", {"window": "custom", "since": "2026-02-30"})
    assert response.status_code == 400
    assert "YYYY-MM-DD" in response.content.decode()


def test_it_says_nothing_is_ranked_before_the_first_snapshot(db: None, client: Client) -> None:
    response = client.get("/")
    assert response.status_code == 200
    assert "Nothing is ranked yet" in response.content.decode()


def test_it_answers_404_for_an_unknown_view(demo_snapshot: Snapshot, client: Client) -> None:
    response = client.get("/", {"view": "bogus"})
    assert response.status_code == 404
    assert "Not found" in response.content.decode()


@pytest.mark.parametrize(
    ("sort", "value"),
    [
        ("shipr", lambda g: g["raw"]["shipr"]),
        ("contributors", lambda g: g["contributors"]),
        ("judged", lambda g: g["hjudged"]),
        ("odds", lambda g: g["adjusted"]["odds_ratio"] if g["adjusted"]["separable"] else None),
    ],
)
def test_it_sorts_the_rows_by_a_column_on_the_server(demo_snapshot: Snapshot, client: Client, sort: str, value) -> None:  # type: ignore[no-untyped-def]
    groups = demo_snapshot.views["modelCombo"]["groups"]
    html = client.get("/", {"view": "modelCombo", "sort": sort}).content.decode()
    printed = row_labels(html)
    assert sorted(printed) == sorted(g["label"] for g in groups)
    by_label = {g["label"]: value(g) for g in groups}
    values = [by_label[label] for label in printed]
    present = [v for v in values if v is not None]
    assert present == sorted(present, reverse=True)
    assert values[len(present) :] == [None] * (len(values) - len(present))  # rows without a value go last
    assert f'aria-current="true" class="current">{wording.SORTS[sort].lower()}</a>' in html
    # The rank stays the score's: each row keeps the place its interval allows.
    default = client.get("/", {"view": "modelCombo"}).content.decode()
    assert dict(zip(printed, printed_ranks(html), strict=True)) == dict(
        zip(row_labels(default), printed_ranks(default), strict=True)
    )


def words_of(fragment: str) -> str:
    return html_module.unescape(re.sub(r"<[^>]+>", "", fragment))


def verdict_words(page: str) -> str:
    """The verdict as a reader reads it."""
    section = re.search(r'<section class="verdict[^"]*"[^>]*>(.*?)</section>', page, re.S)
    assert section is not None
    return words_of(section[1])


def test_it_heads_the_table_with_the_verdict_of_the_intervals(demo_snapshot: Snapshot, client: Client) -> None:
    document = demo_snapshot.document
    groups = document["views"]["modelCombo"]["groups"]
    html = client.get("/", {"view": "modelCombo"}).content.decode()
    # The demo's intervals all overlap: the leader by score is named, with the others it is not separated from.
    assert all((g["rank"], g["rank_worst"]) == (1, len(groups)) for g in groups)
    verdict = verdict_words(html)
    first = groups[0]
    assert verdict.startswith(f"Highest score: {first['label']} (score {first['scoreAdj']:.1f}")
    assert f"not separated from any of the other {len(groups) - 1} pairings." in verdict
    assert "best" not in verdict.lower()
    assert html.index('<section class="verdict"') < html.index('<table class="rankings">')

    # Set the first pairing's interval above every other one: the verdict names it.
    top = max(g["ci"][1] for g in groups[1:] if g["ci"])
    alone = [g for g in groups if g["ci"] is None]
    for group in alone:  # one contributor claims every place: drop them, or nobody could be sure
        groups.remove(group)
    groups[0].update(ci=[top + 1, top + 9], rank=1, rank_worst=1)
    Snapshot.objects.filter(id=demo_snapshot.id).update(document=document)
    page_cache.forget_process_copies()
    cache.clear()
    html = client.get("/", {"view": "modelCombo"}).content.decode()
    assert '<section class="verdict separated"' in html
    verdict = verdict_words(html)
    assert verdict.startswith(f"First by score: {groups[0]['label']} (score {groups[0]['scoreAdj']:.1f}")
    assert "so it is surely ahead of them all" in verdict


@pytest.mark.parametrize("view", ["modelCombo", "model"])
def test_the_verdict_puts_first_only_the_first_by_score(demo_snapshot: Snapshot, client: Client, view: str) -> None:
    # The demo's most-contributed group is not its leader by score: a sentence led by support would name it.
    groups = demo_snapshot.views[view]["groups"]
    most = max(g["contributors"] for g in groups)
    assert groups[0]["contributors"] < most
    verdict = verdict_words(client.get("/", {"view": view}).content.decode())
    named = [g["label"] for g in groups if f"{g['label']} (" in verdict]
    assert named and named[0] == groups[0]["label"]
    assert verdict.index(f"{groups[0]['label']} (") == verdict.index("Highest score: ") + len("Highest score: ")
    assert "best" not in verdict.lower()


def test_it_keeps_the_custom_window_days_in_iso_form_for_the_date_fields(
    demo_snapshot: Snapshot, client: Client
) -> None:
    today = timezone.now().date()
    since, until = today - dt.timedelta(days=20), today
    html = client.get("/", {"window": "custom", "since": str(since), "until": str(until)}).content.decode()
    # <input type="date"> takes only YYYY-MM-DD: anything else shows blank and sends nothing next time.
    assert f'name="since" value="{since.isoformat()}"' in html
    assert f'name="until" value="{until.isoformat()}"' in html


def test_it_colours_each_builder_family_apart_and_prints_the_legend(demo_snapshot: Snapshot, client: Client) -> None:
    from pages.charts import OKABE_ITO
    from scoring.groupings import family
    from scoring.shapes import DEFAULT_FAMILY_PATTERN

    groups = demo_snapshot.views["modelCombo"]["groups"]
    html = client.get("/", {"view": "modelCombo"}).content.decode()
    legend_html = html.split('<p class="legend">', 1)[1].split("</p>", 1)[0]
    legend = dict(re.findall(r'fill="([^"]+)"/></svg>([^<]+)</span>', legend_html))
    by_family = {name: colour for colour, name in legend.items()}
    builders = {family(g["label"].split(" → ")[1], DEFAULT_FAMILY_PATTERN) for g in groups}
    assert set(by_family) == builders and len(builders) >= 5
    assert len(set(by_family.values())) == len(builders)  # every family its own colour
    assert set(by_family.values()) <= set(OKABE_ITO)
    swatches = re.findall(r'<th scope="row" class="label"><svg class="swatch"[^>]*><rect [^>]*fill="([^"]+)"', html)
    assert swatches == [by_family[family(g["label"].split(" → ")[1], DEFAULT_FAMILY_PATTERN)] for g in groups]


@pytest.mark.parametrize("sort", ["scoreAdj", "contributors"])
def test_it_draws_the_forest_plot_in_the_tables_order(demo_snapshot: Snapshot, client: Client, sort: str) -> None:
    html = client.get("/", {"view": "modelCombo", "sort": sort}).content.decode()
    forest = re.search(r'<svg class="forest".*?</svg>', html, re.S)
    assert forest is not None
    drawn = [html_module.unescape(label) for label in re.findall(r'class="forest-label">([^<]+)</text>', forest[0])]
    assert drawn == row_labels(html)
    groups = demo_snapshot.views["modelCombo"]["groups"]
    assert forest[0].count("<circle") == len(groups)
    assert forest[0].count('stroke-linecap="round"') == sum(1 for g in groups if g["ci"])
    # The ranking comes first; the chart that draws it, after the table.
    assert html.index('<svg class="forest"') > html.index('<table class="rankings">')
    links = [html_module.unescape(href) for href in re.findall(r'<a href="([^"]+)" class="forest-row"', forest[0])]
    assert links == [f"/pairing/?{urlencode({'view': 'modelCombo', 'label': label})}" for label in drawn]
    # It says what it draws: the score, and in which order.
    said = page_text(html.split('<p class="note forest-what">', 1)[1].split("</p>", 1)[0])
    if sort == "scoreAdj":
        assert said == "Adjusted score and 95% interval of each ranked group, best first."
    else:
        assert said.startswith("Adjusted score and 95% interval of each ranked group, in the table's order (by ")
        assert "contributors, largest first" in said


def test_the_forest_plots_rows_keep_the_harness_lens(demo_snapshot: Snapshot, client: Client) -> None:
    html = client.get("/", {"view": "modelCombo", "harness": "opencode"}).content.decode()
    forest = re.search(r'<svg class="forest".*?</svg>', html, re.S)
    assert forest is not None
    links = re.findall(r'<a href="([^"]+)" class="forest-row"', forest[0])
    assert links and all(html_module.unescape(href).endswith("&harness=opencode") for href in links)


def test_the_score_part_columns_say_what_a_high_number_means(demo_snapshot: Snapshot, client: Client) -> None:
    html = client.get("/", {"view": "modelCombo"}).content.decode()
    head = html.split('<table class="rankings">', 1)[1].split("</thead>", 1)[0]
    # Cost 40 is costlier than the pool: the column says so, where "weight 20" alone did not.
    assert "high: cheaper" in page_text(head)
    assert 'title="Cost, weight 20 of 100. 50 is the pool; above 50 cheaper than the pool (e.g. 60), below 50 ' in head
    for tier in wording.SHOWN_TIERS:
        heading = f'<abbr title="{tier.explain}">{tier.name}</abbr> <span class="hint">high: {tier.high}</span>'
        assert heading in head
    # The Rank heading links the one entry that explains every printed range.
    assert '<a class="term" href="/glossary/#rank-range">Rank</a>' in head
