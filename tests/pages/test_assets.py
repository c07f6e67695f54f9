"""Pages load nothing from other hosts, and the browser's own requests (the favicon) find something."""

import re

from django.test import Client


def test_it_serves_a_favicon_at_the_sites_root(client: Client) -> None:
    response = client.get("/favicon.ico")

    assert response.status_code == 200
    body = b"".join(response.streaming_content)  # type: ignore[attr-defined]
    assert body[:4] == b"\x00\x00\x01\x00"  # an ICO file's header


def test_it_serves_the_api_docs_without_any_outside_request(client: Client) -> None:
    html = client.get("/api/docs/").content.decode()

    assert "Redoc" in html or "redoc" in html
    addresses = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert addresses, "the page loads its script and icon"
    assert all(address.startswith("/") and not address.startswith("//") for address in addresses), addresses
    assert "googleapis" not in html and "gstatic" not in html
    assert "<script>" not in html, "no inline script: the page starts Redoc from a static file"
