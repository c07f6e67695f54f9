import datetime as dt
import re

from leaderboard import charts, presenters

HOSTILE = '<script>alert("x")</script> & co'


def test_it_escapes_every_label_it_draws() -> None:
    drawn = [
        charts.interval_bar(score=50.0, lo=45.0, hi=55.0, hue=55, label=HOSTILE, domain=(40.0, 60.0)),
        charts.interval_bar(score=None, lo=None, hi=None, hue=55, label=HOSTILE, domain=(0.0, 100.0)),
        charts.axis_strip(rows=[], hue=55, label=HOSTILE, span=2.0),
        charts.sparkline(points=[], hue=55, label=HOSTILE),
    ]
    for svg in drawn:
        assert "<script>" not in svg
        assert "&lt;script&gt;" in svg


def test_it_places_the_bar_within_its_domain() -> None:
    svg = charts.interval_bar(score=50.0, lo=40.0, hi=60.0, hue=200, label="x", domain=(30.0, 70.0))
    band = re.search(r'<rect x="([\d.]+)" y="5" width="([\d.]+)"', svg)
    assert band is not None
    # 40..60 on a 30..70 scale 160 wide: from 40 to 120.
    assert (float(band.group(1)), float(band.group(2))) == (40.0, 80.0)
    assert presenters.hue_colour(200) in svg


def test_it_draws_one_point_per_day_with_its_dates_in_words() -> None:
    day = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
    points = [
        charts.HistoryPoint(snapshot_id=i, created_at=day + dt.timedelta(days=i), score_adj=50 + i, ci_lo=45, ci_hi=58)
        for i in range(5)
    ]
    svg = charts.sparkline(points=points, hue=30, label="a → b")
    line = re.search(r'<polyline points="([^"]+)"', svg)
    assert line is not None and len(line.group(1).split()) == 5
    assert "over 5 days, from 50.0 on 2026-11-01 to 54.0 on 2026-11-05" in svg
    assert "<polygon" in svg  # the interval band
