"""The Content-Security-Policy on every answer, and templates that need nothing it refuses."""

import base64
import hashlib
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

TEMPLATES = Path(settings.BASE_DIR) / "templates"


def directives(policy: str) -> dict[str, list[str]]:
    parsed = {}
    for part in policy.split(";"):
        name, *values = part.split()
        parsed[name] = values
    return parsed


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/", "/methodology/", "/api/v1/stats", "/api/v1/pool.json", "/no-such-page/"])
def test_it_sends_the_strict_policy_on_pages_and_the_api(client: Client, path: str) -> None:
    response = client.get(path)

    policy = directives(response["Content-Security-Policy"])
    assert policy["default-src"] == ["'none'"]
    assert policy["script-src"] == ["'self'"]
    assert policy["style-src"][0] == "'self'" and "'unsafe-inline'" not in policy["style-src"]
    assert policy["frame-ancestors"] == ["'none'"] and policy["form-action"] == ["'self'"]


@pytest.mark.django_db
def test_it_sends_the_docs_page_its_own_policy_with_scripts_still_ours_only(client: Client) -> None:
    response = client.get("/api/docs/")

    policy = directives(response["Content-Security-Policy"])
    assert response.status_code == 200
    assert policy["script-src"] == ["'self'"]
    assert b"fonts.googleapis.com" not in response.content
    assert b"<script>" not in response.content


def test_it_hashes_every_inline_style_of_the_templates_in_the_policy() -> None:
    policy = directives(settings.CONTENT_SECURITY_POLICY)
    inline = [
        (template.name, body)
        for template in TEMPLATES.rglob("*.html")
        for body in re.findall(r"<style>(.*?)</style>", template.read_text(), re.S)
    ]
    assert inline, "templates/500.html carries its own style"
    for name, body in inline:
        digest = base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
        assert f"'sha256-{digest}'" in policy["style-src"], name


@pytest.mark.parametrize("template", sorted(TEMPLATES.rglob("*.html")), ids=lambda path: path.name)
def test_it_keeps_templates_free_of_what_the_policy_refuses(template: Path) -> None:
    text = template.read_text()
    assert not re.search(r"<script(?![^>]*\bsrc=)", text), "inline script"
    assert not re.search(r"\sstyle=", text), "style attribute"
    assert not re.search(r"\son[a-z]+=", text), "inline event handler"
    assert "javascript:" not in text
