"""No query string makes a page fail: every answer is a page, a 400 or a 404."""

from urllib.parse import urlencode

from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from leaderboard.models import Snapshot
from tests.pages.conftest import ranked_labels

PATHS = ("/", "/pairing/", "/compare/", "/methodology/", "/contribute/", "/data/", "/data/rankings.csv")
NAMES = ("view", "label", "a", "b", "window", "since", "until", "x")
VALUES = st.one_of(
    st.text(max_size=40),
    st.sampled_from(["model", "modelCombo", "famCombo", "custom", "90", "30", "all", "2026-02-30", "2026-10-01", ""]),
    st.dates().map(str),
    st.text(min_size=301, max_size=400),
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from(PATHS), query=st.lists(st.tuples(st.sampled_from(NAMES), VALUES), max_size=6))
def test_it_never_answers_500(demo_snapshot: Snapshot, client: Client, path: str, query: list[tuple[str, str]]) -> None:
    # The test client re-raises a view's exception, so a crash fails here rather than hiding in a 500.
    response = client.get(f"{path}?{urlencode(query)}")
    assert response.status_code in (200, 400, 404)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=st.text(max_size=80))
def test_it_survives_raw_query_strings(demo_snapshot: Snapshot, client: Client, raw: str) -> None:
    label = ranked_labels(demo_snapshot, "modelCombo")[0]
    for path in ("/?", f"/pairing/?view=modelCombo&label={label}&", "/compare/?"):
        # As a browser sends them: '#' starts a fragment and brackets would read as an IPv6 host.
        sent = raw.replace("#", "%23").replace("[", "%5B").replace("]", "%5D")
        response = client.get(path + sent)
        assert response.status_code in (200, 400, 404)
