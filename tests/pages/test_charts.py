import datetime as dt
import re
from typing import Any

from pages import charts, presenters
from tests.pages.shapes import group_row, view_of

HOSTILE = '<script>alert("x")</script> & co'


def test_it_escapes_every_label_it_draws() -> None:
    drawn = [
        charts.interval_bar(score=50.0, lo=45.0, hi=55.0, colour="#0072B2", label=HOSTILE, domain=(40.0, 60.0)),
        charts.interval_bar(score=None, lo=None, hi=None, colour="#0072B2", label=HOSTILE, domain=(0.0, 100.0)),
        charts.axis_strip(rows=[], colour="#0072B2", label=HOSTILE, span=2.0),
        charts.sparkline(points=[], colour="#0072B2", label=HOSTILE),
        charts.forest_plot(rows=[{"label": HOSTILE, "score_adj": 50.0, "lo": 40.0, "hi": 60.0}], title=HOSTILE),
    ]
    for svg in drawn:
        assert "<script>" not in svg
        assert "&lt;script&gt;" in svg


def test_it_places_the_bar_within_its_domain() -> None:
    svg = charts.interval_bar(score=50.0, lo=40.0, hi=60.0, colour="#E69F00", label="x", domain=(30.0, 70.0))
    band = re.search(r'<rect x="([\d.]+)" y="5" width="([\d.]+)"', svg)
    assert band is not None
    # 40..60 on a 30..70 scale 160 wide: from 40 to 120.
    assert (float(band.group(1)), float(band.group(2))) == (40.0, 80.0)
    assert "#E69F00" in svg


def test_it_draws_one_point_per_day_with_its_dates_in_words() -> None:
    day = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
    points = [
        charts.HistoryPoint(snapshot_id=i, created_at=day + dt.timedelta(days=i), score_adj=50 + i, ci_lo=45, ci_hi=58)
        for i in range(5)
    ]
    svg = charts.sparkline(points=points, colour="#009E73", label="a → b")
    line = re.search(r'<polyline points="([^"]+)"', svg)
    assert line is not None and len(line.group(1).split()) == 5
    assert "over 5 days, from 50.0 on 2026-11-01 to 54.0 on 2026-11-05" in svg
    assert "<polygon" in svg  # the interval band


def test_it_gives_each_family_its_own_okabe_ito_colour_in_name_order() -> None:
    colours = charts.family_colours(["grok", "gpt", "claude-opus", "deepseek", "gpt"])
    assert list(colours) == ["claude-opus", "deepseek", "gpt", "grok"]
    assert list(colours.values()) == list(charts.OKABE_ITO[:4])
    many = charts.family_colours(f"family-{i:02d}" for i in range(10))
    assert list(many.values())[:8] == list(charts.OKABE_ITO)
    assert list(many.values())[8:] == [charts.OTHER_COLOUR] * 2


def test_it_colours_pairings_by_the_builders_family_and_names_the_rest_in_the_legend() -> None:
    groups = [
        group_row("gpt-6 → grok-4.6"),
        group_row("grok-4.6 → gpt-6"),
        group_row("claude-opus-4.8 → gpt-6"),
        *(group_row(f"a → model-{i}") for i in range(8)),
    ]
    colours, legend = presenters.view_colours(view_of(groups), "modelCombo", r"^(claude-opus|gpt|grok)")
    assert colours["grok-4.6 → gpt-6"] == colours["claude-opus-4.8 → gpt-6"]  # same builder family
    assert colours["gpt-6 → grok-4.6"] != colours["grok-4.6 → gpt-6"]
    assert [name for name, _ in legend][:2] == ["gpt", "grok"]
    assert legend[-1] == ("2 other families", charts.OTHER_COLOUR)
    assert len(legend) == 9 and len({colour for _, colour in legend}) == 9


def test_it_draws_each_group_on_one_0_to_100_axis_in_the_rows_order_with_a_text_alternative() -> None:
    rows: list[dict[str, Any]] = [
        {"label": "b → b", "score_adj": 30.0, "lo": 20.0, "hi": 45.0, "colour": "#E69F00"},
        {"label": "a → a", "score_adj": 62.5, "lo": 50.0, "hi": 75.0, "colour": "#0072B2"},
        {"label": "c → c", "score_adj": 51.0, "lo": None, "hi": None, "colour": "#009E73"},
    ]
    svg = charts.forest_plot(rows=rows, title="Pairings")
    labels = re.findall(r'class="forest-label">([^<]+)</text>', svg)
    assert labels == ["b → b", "a → a", "c → c"]
    # 0..100 maps to 1%..97% of the width (the numbers sit beside each interval): 62.5 sits at 1 + 62.5 * 0.96.
    dots = re.findall(r'<circle cx="([\d.]+)%"', svg)
    assert [float(cx) for cx in dots] == [round(1 + 0.96 * row["score_adj"], 2) for row in rows]
    bars = re.findall(r'<line x1="([\d.]+)%" y1="(\d+)" x2="([\d.]+)%" y2="\2" stroke="(#[0-9A-F]+)"', svg)
    assert [(float(a), float(b), colour) for a, _, b, colour in bars] == [
        (20.2, 44.2, "#E69F00"),
        (49.0, 73.0, "#0072B2"),
    ]  # no bar for the group without an interval
    assert all(f">{tick}</text>" in svg for tick in (0, 25, 50, 75, 100))
    desc = re.search(r'<desc id="forest-desc">([^<]+)</desc>', svg)
    assert desc is not None
    assert "a → a: score 62.5, 95% interval 50.0 to 75.0" in desc.group(1)
    assert "c → c: score 51.0, no interval" in desc.group(1)
    assert 'role="img"' in svg and 'aria-labelledby="forest-title forest-desc"' in svg


def value_place(svg: str, text: str) -> str:
    found = re.search(r'<text ([^>]*) y="\d+" class="forest-value">' + re.escape(text) + "</text>", svg)
    assert found is not None, text
    return found.group(1)


def test_it_prints_each_rows_numbers_beside_its_interval_not_at_the_far_edge() -> None:
    rows: list[dict[str, Any]] = [
        {"label": "low", "score_adj": 40.0, "lo": 30.0, "hi": 50.0},
        {"label": "high", "score_adj": 85.0, "lo": 78.0, "hi": 92.0},
        {"label": "wide", "score_adj": 50.0, "lo": 10.0, "hi": 90.0},
        {"label": "alone", "score_adj": 60.0, "lo": None, "hi": None},
    ]
    svg = charts.forest_plot(rows=rows, title="t")
    # Right of an interval that ends low enough, 8 px past its end (1 + 0.96 * 50 = 49%).
    assert value_place(svg, "40.0 · 30–50") == 'x="49.00%" dx="8"'
    # Left of one that ends near 100, ending 8 px before its start (1 + 0.96 * 78 = 75.88%).
    assert value_place(svg, "85.0 · 78–92") == 'x="75.88%" dx="-8" text-anchor="end"'
    # An interval across nearly the whole axis leaves the edge, which is beside its end.
    assert value_place(svg, "50.0 · 10–90") == 'x="100%" text-anchor="end"'
    assert value_place(svg, "60.0 · none") == 'x="58.60%" dx="8"'


def test_each_row_links_to_its_groups_page_when_given_one() -> None:
    rows: list[dict[str, Any]] = [
        {"label": "a → b", "score_adj": 40.0, "lo": 30.0, "hi": 50.0, "href": "/pairing/?view=modelCombo&label=a"},
        {"label": "c → d", "score_adj": 30.0, "lo": 20.0, "hi": 40.0, "href": "/pairing/?view=modelCombo&label=c"},
    ]
    svg = charts.forest_plot(rows=rows, title="t")
    links = re.findall(r'<a href="([^"]+)" class="forest-row" aria-label="([^"]+)">(.*?)</a>', svg)
    assert [(href, name) for href, name, _ in links] == [
        ("/pairing/?view=modelCombo&amp;label=a", "a → b: score 40.0, 95% interval 30.0 to 50.0"),
        ("/pairing/?view=modelCombo&amp;label=c", "c → d: score 30.0, 95% interval 20.0 to 40.0"),
    ]
    # The whole row is the target: its band, its name, its numbers, its interval and its dot.
    assert all('class="forest-hit"' in body and "forest-label" in body and "<circle" in body for _, _, body in links)
    assert 'role="group"' in svg  # an image's parts are hidden from a screen reader; links must not be
    unlinked = charts.forest_plot(rows=[{k: v for k, v in rows[0].items() if k != "href"}], title="t")
    assert "<a " not in unlinked and 'role="img"' in unlinked
