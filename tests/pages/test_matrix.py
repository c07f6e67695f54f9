import datetime as dt
import html as html_module
import re
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from django.core.cache import cache
from django.test import Client
from django.utils import timezone

from leaderboard.models import Snapshot
from leaderboard.windows import SCOPED_LOCK_KEY, scoped_document
from pages import matrix
from scoring.shapes import PAIR_ARROW, PAIRING_VIEWS, View
from tests.pages.conftest import page_text
from tests.pages.shapes import group_row, provisional_row, view_of


def read_matrix(page: str) -> tuple[list[str], dict[tuple[str, str], str]]:
    """The printed matrix: its builders (column heads) and each non-empty cell's HTML by (planner, builder)."""
    table = re.search(r'<table class="matrix">(.*?)</table>', page, re.S)
    assert table is not None
    head, body = table.group(1).split("<tbody>", 1)
    builders = [page_text(b) for b in re.findall(r'<th scope="col" class="builder">(.*?)</th>', head)]
    cells: dict[tuple[str, str], str] = {}
    for row in re.findall(r"<tr>(.*?)</tr>", body, re.S):
        planner = re.search(r'<th scope="row" class="planner">(.*?)</th>', row)
        assert planner is not None
        tds = re.findall(r"<td( class=\"[^\"]*\")?>(.*?)</td>", row, re.S)
        assert len(tds) == len(builders)  # one cell per builder in every row, empty or not
        for builder, (attrs, content) in zip(builders, tds, strict=True):
            if "empty" not in attrs:
                cells[(page_text(planner.group(1)), builder)] = attrs + content
    return builders, cells


def matrix_page(client: Client, status: int = 200, **params: str) -> str:
    """The matrix page of these query parameters, once it has answered `status`."""
    response = client.get("/matrix/", params)
    assert response.status_code == status, params
    return response.content.decode()


def pairing_href(view: str, label: str) -> str:
    return html_module.escape("/pairing/?" + urlencode({"view": view, "label": label}))


def sides(label: str) -> tuple[str, str]:
    planner, builder = label.split(PAIR_ARROW, 1)
    return planner, builder


def assert_cells_show(view_doc: View, cells: dict[tuple[str, str], str], view: str) -> None:
    """Each ranked pairing in its cell with its score, interval, contributors and link; provisional ones marked."""
    groups, provisional = view_doc["groups"], view_doc.get("provisional", [])
    assert len(cells) == len({sides(g["label"]) for g in [*groups, *provisional]})
    for group in groups:
        cell = cells[sides(group["label"])]
        assert f'<span class="m-score">{group["scoreAdj"]:.1f}</span>' in cell
        assert f"{group['contributors']} contrib." in cell
        if group["ci"] is None:
            assert "no interval" in cell
        else:
            lo, hi = group["ci"]
            assert f"{lo:.0f}–{hi:.0f}" in cell
            expected = "above" if lo > 50 else "below" if hi < 50 else ""
            assert (' class="cell above"' in cell, ' class="cell below"' in cell) == (
                expected == "above",
                expected == "below",
            )
        assert f'href="{pairing_href(view, group["label"])}"' in cell
    for item in provisional:
        cell = cells[sides(item["label"])]
        if not any(sides(g["label"]) == sides(item["label"]) for g in groups):
            assert "provisional-cell" in cell and f"{item['hjudged']} judged" in cell
            assert '<span class="m-score">prov.</span>' in cell
            assert f'href="{pairing_href(view, item["label"])}"' in cell


@pytest.mark.parametrize("view", sorted(PAIRING_VIEWS))
def test_it_lays_out_every_pairing_of_the_view_by_planner_and_builder(
    demo_snapshot: Snapshot, client: Client, view: str
) -> None:
    page = matrix_page(client, view=view)
    view_doc = demo_snapshot.views[view]
    builders, cells = read_matrix(page)
    every = [sides(g["label"]) for g in [*view_doc["groups"], *view_doc.get("provisional", [])]]
    assert builders == sorted({builder for _, builder in every})
    planners = re.findall(r'<th scope="row" class="planner">(.*?)</th>', page)
    assert [page_text(p) for p in planners] == sorted({planner for planner, _ in every})
    assert_cells_show(view_doc, cells, view)
    # Empty cells are empty: no number, no link.
    empties = re.findall(r'<td class="empty">(.*?)</td>', page, re.S)
    assert len(empties) == len(planners) * len(builders) - len(cells)
    assert all(content == "" for content in empties)


def test_each_cell_links_to_its_pairings_page(demo_snapshot: Snapshot, client: Client) -> None:
    page = matrix_page(client, view="modelCombo")
    links = [html_module.unescape(href) for href in re.findall(r'<td class="cell[^"]*"><a href="([^"]+)"', page)]
    assert len(links) == len(demo_snapshot.views["modelCombo"]["groups"]) + len(
        demo_snapshot.views["modelCombo"]["provisional"]
    )
    for link in links:
        label = parse_qs(urlsplit(link).query)["label"][0]
        response = client.get(link)
        assert response.status_code == 200, link
        if label in {g["label"] for g in demo_snapshot.views["modelCombo"]["groups"]}:
            assert 'href="/matrix/?view=modelCombo"' in response.content.decode()  # and back
        assert "<h1>" in response.content.decode() and label in page_text(response.content.decode()), link


def test_it_takes_the_windows_the_front_page_takes(demo_snapshot: Snapshot, client: Client) -> None:
    today = timezone.now().date()
    since = today - dt.timedelta(days=29)
    window = scoped_document(since=since, until=today)
    assert window is not None
    page = matrix_page(client, view="modelCombo", window="30")
    _, cells = read_matrix(page) if window["views"]["modelCombo"]["groups"] else ([], {})
    assert_cells_show(window["views"]["modelCombo"], cells, "modelCombo")
    assert 'aria-current="true" class="current">30 days' in page
    assert "a pairing's own page shows all time" in page_text(page)
    custom = matrix_page(client, view="modelCombo", window="custom", since=str(since), until=str(today))
    assert read_matrix(custom)[1] == cells  # the same days as a preset or as a custom window
    assert f"{since} to {today}" in page_text(custom)


def test_it_answers_a_window_it_cannot_read_with_400_and_a_sentence(demo_snapshot: Snapshot, client: Client) -> None:
    page = matrix_page(client, 400, view="modelCombo", window="custom", since="2026-02-30")
    assert "since must be a date written YYYY-MM-DD" in page
    assert read_matrix(page)[1]  # and all time below it


def test_a_window_that_cannot_be_computed_now_answers_503_with_all_time_and_is_not_kept(
    demo_snapshot: Snapshot, client: Client, settings: Any
) -> None:
    slots = [f"{SCOPED_LOCK_KEY}:slot:{slot}" for slot in range(settings.WINDOW_SLOTS)]
    assert all(cache.add(slot, 1, 60) for slot in slots)  # other windows hold every slot
    busy = client.get("/matrix/", {"view": "modelCombo", "window": "custom", "since": "2026-09-01"})
    assert busy.status_code == 503 and int(busy["Retry-After"]) > 0
    assert "being computed" in busy.content.decode()
    assert_cells_show(demo_snapshot.views["modelCombo"], read_matrix(busy.content.decode())[1], "modelCombo")
    cache.delete_many(slots)
    again = client.get("/matrix/", {"view": "modelCombo", "window": "custom", "since": "2026-09-01"})
    assert again.status_code == 200, "the busy answer must not have been cached"


@pytest.mark.parametrize("view", ["model", "family", "modelEffort"])
def test_a_view_of_single_groups_gets_a_404_that_names_the_pairing_views(
    demo_snapshot: Snapshot, client: Client, view: str
) -> None:
    page = matrix_page(client, 404, view=view)
    assert "No matrix for this view" in page
    for pairing_view in PAIRING_VIEWS:
        assert f'href="/matrix/?view={pairing_view}"' in page
    matrix_page(client, 404, view="nonsense")


def test_the_front_page_links_each_pairing_view_to_its_matrix(demo_snapshot: Snapshot, client: Client) -> None:
    for view in ("modelCombo", "famCombo", "modelEffortCombo"):
        assert f'href="/matrix/?view={view}"' in client.get("/", {"view": view}).content.decode()
    assert "/matrix/" not in client.get("/", {"view": "model"}).content.decode()
    windowed = client.get("/", {"view": "famCombo", "window": "30"}).content.decode()
    assert 'href="/matrix/?view=famCombo&amp;window=30"' in windowed


def test_it_marks_a_cell_by_where_its_interval_lies_against_the_pool() -> None:
    assert matrix.side_of_pool(50.5, 70.0) == "above"
    assert matrix.side_of_pool(20.0, 49.9) == "below"
    assert matrix.side_of_pool(40.0, 60.0) == ""
    assert matrix.side_of_pool(None, None) == ""  # one contributor: no interval, no claim


def test_it_refuses_a_view_without_planners_and_builders() -> None:
    with pytest.raises(matrix.NotAPairingView):
        matrix.pairing_matrix(view_of([group_row("gpt-6")]), "model")


def test_a_ranked_pairing_takes_its_cell_over_a_provisional_one() -> None:
    document = view_of(
        [group_row("a → b", scoreAdj=55.0, ci=[51.0, 59.0], contributors=4, hjudged=40)],
        [provisional_row("a → b", 3), provisional_row("b → a", 2)],
    )
    grid = matrix.pairing_matrix(document, "modelCombo")
    assert grid.planners == ("a", "b") and grid.builders == ("a", "b")
    assert grid.cells[0][0] is None and grid.cells[1][1] is None
    ranked, provisional = grid.cells[0][1], grid.cells[1][0]
    assert ranked is not None and ranked.kind == "ranked" and ranked.side == "above" and ranked.width == 8.0
    assert provisional is not None and provisional.kind == "provisional" and provisional.judged == 2
    assert grid.filled == 2


def test_it_prints_an_effort_under_its_model_so_columns_stay_narrow() -> None:
    document = view_of([], [provisional_row("gpt-6:high → claude-opus-4.8:max", 3)])
    grid = matrix.pairing_matrix(document, "modelEffortCombo")
    assert grid.builder_heads == [("claude-opus-4.8", "max")]
    assert [head for head, _ in grid.rows] == [("gpt-6", "high")]
    plain = matrix.pairing_matrix(view_of([], [provisional_row("a:b → c", 1)]), "modelCombo")
    assert plain.builder_heads == [("c", "")] and plain.rows[0][0] == ("a:b", "")


def test_the_phones_list_holds_each_planner_with_only_its_filled_cells() -> None:
    groups = [group_row("a → x", scoreAdj=60.0), group_row("b → y", scoreAdj=40.0)]
    grid = matrix.pairing_matrix(view_of(groups, [provisional_row("a → y", 4)]), "modelCombo")
    assert len(grid.builders) == 2 and sum(cell is None for row in grid.cells for cell in row) == 1  # b → x
    listed = [(planner[0], [(builder[0], cell.kind) for builder, cell in cells]) for planner, cells in grid.by_planner]
    assert listed == [("a", [("x", "ranked"), ("y", "provisional")]), ("b", [("y", "ranked")])]


def test_the_matrix_page_prints_the_phones_list_beside_the_grid(demo_snapshot: Snapshot, client: Client) -> None:
    page = matrix_page(client, view="modelCombo")
    view_doc = demo_snapshot.views["modelCombo"]
    listed = page.split('<div class="matrix-list"', 1)[1].split("</div>", 1)[0]
    assert listed.count("<li") == len(view_doc["groups"]) + len(view_doc["provisional"])
    paired = [*view_doc["groups"], *view_doc["provisional"]]
    assert listed.count('<h2 class="m-planner">') == len({g["label"].split(PAIR_ARROW)[0] for g in paired})
