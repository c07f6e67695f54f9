from django.test import Client, RequestFactory

from ingest.columns import SCHEMA_3_COLUMNS
from leaderboard.models import Snapshot
from pages import views, wording


def test_it_explains_the_method_in_plain_words(demo_snapshot: Snapshot, client: Client) -> None:
    html = client.get("/methodology/").content.decode()
    for phrase in ("k = 10", "×4", "10 judged cycles", "bootstrap", "log-odds", "pending", "unshippable"):
        assert phrase in html, phrase
    for caveat in ("Observational.", "Small and uneven pool.", "Self-selected.", "Shipped is a floor."):
        assert caveat in html
    for name, weight in wording.TIERS.items():
        assert f"<strong>{name}</strong>: weight {weight}" in html
    for axis in wording.AXES:
        assert axis.name in html


def test_it_tells_a_contributor_where_to_send_and_what_is_sent(demo_snapshot: Snapshot, client: Client) -> None:
    html = client.get("/contribute/").content.decode()
    assert "<code>http://testserver/api/v1/contributions</code>" in html
    assert "http://testserver/api/v1/contributions/preview" in html
    assert "http://testserver/api/v1/contributions/retract" in html
    for column in SCHEMA_3_COLUMNS:
        assert f"<code>{column}</code>" in html, column


def test_it_renders_the_error_page_without_the_database(rf: RequestFactory) -> None:
    response = views.server_error(rf.get("/"))
    assert response.status_code == 500
    assert b"Something went wrong" in response.content


def test_it_answers_an_unknown_path_with_the_404_page(client: Client) -> None:
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    assert b"Not found" in response.content
