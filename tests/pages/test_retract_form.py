"""A plugin user retracts from /contribute/: paste the install id into a form, no JavaScript, CSRF-protected."""

import re
import uuid
from typing import Any

import pytest
from django.test import Client

from core import soft_cache
from ingest.models import Contributor, Cycle, install_hash
from tests.cycles.stored import make_contributor, make_cycles
from tests.ports import free_port
from tests.redis_servers import redis_cache

pytestmark = pytest.mark.django_db


def form_token(client: Client) -> str:
    page = client.get("/contribute/").content.decode()
    found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert found is not None
    return found.group(1)


def test_it_names_the_plugins_setting_and_where_it_keeps_the_install_id(client: Client) -> None:
    response = client.get("/contribute/")

    html = response.content.decode()
    assert response.status_code == 200
    assert "OC_INSIGHTS_CONTRIB_URL=http://testserver/v1/contribute</code>" in html
    assert "http://testserver/v1/contribute" in html
    assert "~/.local/share/ocInsights/contributor.json" in html and "<code>install</code>" in html
    assert 'action="/contribute/retract/#retract"' in html
    assert set(response["Cache-Control"].split(", ")) == {"private", "no-cache"}


def test_it_retracts_the_pasted_install_and_never_shows_it_back() -> None:
    client = Client(enforce_csrf_checks=True)
    install = uuid.uuid4()
    make_cycles(make_contributor(install=install), count=5)
    kept = make_contributor()
    make_cycles(kept, count=3, key_offset=100)

    response = client.post(
        "/contribute/retract/", {"install": f"  {str(install).upper()} ", "csrfmiddlewaretoken": form_token(client)}
    )

    html = response.content.decode()
    assert response.status_code == 200
    assert "Retracted." in html and "5 cycles deleted" in html
    assert str(install) not in html.lower()
    assert Contributor.objects.get(install_hash=install_hash(install)).is_retracted
    assert list(Cycle.objects.values_list("contributor_id", flat=True).distinct()) == [kept.id]


def test_it_refuses_a_form_without_this_visitors_token() -> None:
    install = uuid.uuid4()
    make_cycles(make_contributor(install=install), count=2)

    response = Client(enforce_csrf_checks=True).post("/contribute/retract/", {"install": str(install)})

    assert response.status_code == 403
    assert "Reload the page" in response.content.decode()
    assert Cycle.objects.count() == 2


@pytest.mark.parametrize("pasted", ["", "not-an-id", '{"install": "x"}', "1b4e28ba-2fa1-11d2-883f"])
def test_it_says_what_to_paste_when_it_is_not_an_install_id(pasted: str) -> None:
    client = Client(enforce_csrf_checks=True)

    response = client.post("/contribute/retract/", {"install": pasted, "csrfmiddlewaretoken": form_token(client)})

    assert response.status_code == 400
    assert "That is not an install id" in response.content.decode()
    assert Contributor.objects.count() == 0


def test_it_answers_a_get_of_the_form_address_with_405() -> None:
    assert Client().get("/contribute/retract/").status_code == 405


def test_it_says_when_to_retry_while_the_counters_cannot_be_read(settings: Any) -> None:
    client = Client(enforce_csrf_checks=True)
    token = form_token(client)
    settings.CACHES = redis_cache(free_port())  # the address counters live there: nothing listens
    soft_cache.reset()
    response = client.post("/contribute/retract/", {"install": str(uuid.uuid4()), "csrfmiddlewaretoken": token})
    assert response.status_code == 503
    assert int(response["Retry-After"]) > 0
    assert "try again" in response.content.decode()


def test_it_says_when_to_retry_past_the_address_rate(settings: Any) -> None:
    settings.INGEST_RATE_PER_ADDRESS = "1/hour"
    client = Client(enforce_csrf_checks=True)
    token = form_token(client)
    first = client.post("/contribute/retract/", {"install": str(uuid.uuid4()), "csrfmiddlewaretoken": token})
    assert first.status_code == 200
    refused = client.post("/contribute/retract/", {"install": str(uuid.uuid4()), "csrfmiddlewaretoken": token})
    assert refused.status_code == 429
    wait = int(refused["Retry-After"])
    assert 0 < wait <= 3600
    assert f"try again in {wait} seconds" in refused.content.decode()
