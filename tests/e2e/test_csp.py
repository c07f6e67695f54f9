"""Every page works in headless Chromium under the Content-Security-Policy, without one violation."""

from collections.abc import Iterator

import pytest

from tests.e2e.conftest import BROWSER_TESTS, PHONE

pytestmark = BROWSER_TESTS

# Collected before any page script runs, so nothing the policy refuses goes unseen.
RECORD_VIOLATIONS = """
window.__violations = [];
document.addEventListener('securitypolicyviolation', (e) => {
  window.__violations.push(e.violatedDirective + ' ' + (e.blockedURI || 'inline'));
});
"""


@pytest.fixture
def site(demo_site: str) -> str:
    return demo_site


@pytest.fixture
def page(site: str, browser) -> Iterator[object]:  # type: ignore[no-untyped-def]
    context = browser.new_context(viewport=PHONE)
    context.add_init_script(RECORD_VIOLATIONS)
    yield context.new_page()
    context.close()


def violations(page) -> list[str]:  # type: ignore[no-untyped-def]
    recorded = list(page.evaluate("window.__violations"))
    refused = [message.text for message in page.console_messages() if "Content Security Policy" in message.text]
    return recorded + refused


def test_it_shows_every_page_without_a_policy_violation(site: str, page) -> None:  # type: ignore[no-untyped-def]
    for path in (
        "/",
        "/compare/",
        "/matrix/",
        "/glossary/",
        "/methodology/",
        "/contribute/",
        "/data/",
        "/no-such-page/",
    ):
        response = page.goto(f"{site}{path}")
        assert "script-src 'self'" in response.headers["content-security-policy"]
        # The stylesheet applied (the page is not unstyled) and the script ran.
        assert page.evaluate("getComputedStyle(document.querySelector('header.site')).display") != "inline"
        assert page.evaluate("document.documentElement.classList.contains('js')")
        assert violations(page) == [], path

    page.goto(f"{site}/")
    page.locator("table.rankings tbody tr th.label a").first.click()
    page.wait_for_load_state()
    # The colour swatches are SVG, not style attributes the policy would strip.
    assert page.locator("h1 svg.swatch rect").first.get_attribute("fill")
    assert violations(page) == []


def test_it_changes_the_window_with_the_script_under_the_policy(site: str, page) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{site}/")
    page.locator("form.window input[name=window][value='30']").check()
    page.wait_for_url("**window=30**")
    assert violations(page) == []


def test_it_renders_the_api_docs_under_their_policy(site: str, page) -> None:  # type: ignore[no-untyped-def]
    response = page.goto(f"{site}/api/docs/")
    policy = response.headers["content-security-policy"]
    assert "script-src 'self';" in policy and "unsafe-eval" not in policy
    page.wait_for_selector("h1:has-text('Pragmatikos API')", timeout=20_000)
    page.get_by_text("/api/v1/contributions", exact=False).first.wait_for(timeout=20_000)
    # Redoc's "API docs by Redocly" logo is on their CDN: never requested (static/redoc-attribution.js), so the
    # policy refuses nothing and the console holds no error.
    assert violations(page) == []
    assert [message.text for message in page.console_messages() if message.type == "error"] == []
    # Titled by the API's name alone, the current schema's envelope first, and a way back to the site.
    assert page.locator("h1").first.inner_text().strip() == "Pragmatikos API"
    assert page.get_by_role("button", name="Schema 3 (current)").first.is_visible()
    assert page.locator("text=/^Schema \\d/").first.inner_text().startswith("Schema 3")
    page.locator("header.api-top a.back").click()
    page.wait_for_url(f"{site}/")
    assert page.locator("h1").first.inner_text().startswith("Which pairing")
