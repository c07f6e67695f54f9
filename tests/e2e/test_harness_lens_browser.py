"""The harness lens in headless Chromium: choose a harness beside the window presets, follow a row to its pairing."""

import pytest

from core import page_cache
from leaderboard import recompute
from tests.e2e.conftest import BROWSER_TESTS, DESKTOP, PHONE, SCREENSHOTS, matrix_from_the_front_page, overflowing
from tests.pages.lens_pool import LABEL_STRONG, LABEL_WEAK, store_two_harness_pool

pytestmark = BROWSER_TESTS


@pytest.fixture
def site(transactional_db: None, live_server) -> str:  # type: ignore[no-untyped-def]
    page_cache.forget_process_copies()
    store_two_harness_pool()
    assert recompute.publish() is not None
    return str(live_server.url)


def test_it_chooses_a_harness_and_keeps_it_to_the_pairing(site: str, browser) -> None:  # type: ignore[no-untyped-def]
    page = browser.new_page(viewport=DESKTOP)
    page.goto(f"{site}/")
    # Choosing a harness submits at once (the little script).
    page.select_option("select[name=harness]", "codex")
    page.wait_for_url("**harness=codex**")
    assert "only cycles recorded with codex" in page.locator(".lens").inner_text()
    first = page.locator("table.rankings tbody tr").nth(0).locator("th.label a")
    assert first.inner_text().strip() == LABEL_WEAK, "under codex the second pairing ships more often"
    first.click()
    page.wait_for_url("**/pairing/**harness=codex**")
    assert page.locator("h1").inner_text().strip() == LABEL_WEAK
    assert "Under each harness" in page.locator(".lens-scores").inner_text()
    assert overflowing(page, DESKTOP["width"]) == []
    page.screenshot(path=str(SCREENSHOTS / "harness-lens-pairing.png"), full_page=True)
    page.close()

    phone = browser.new_page(viewport=PHONE)
    phone.goto(f"{site}/?harness=claude-code")
    assert overflowing(phone, PHONE["width"]) == []
    assert phone.locator("select[name=harness]").input_value() == "claude-code"
    assert LABEL_STRONG.split(" → ")[0] in phone.locator("table.rankings tbody tr").nth(0).inner_text()
    phone.screenshot(path=str(SCREENSHOTS / "harness-lens-phone.png"), full_page=True)
    phone.close()


def test_the_matrix_keeps_the_lens_to_a_pairing_and_fits_a_phone(site: str, browser) -> None:  # type: ignore[no-untyped-def]
    page = matrix_from_the_front_page(browser, site, "harness=codex")
    assert "only cycles recorded with codex" in page.locator(".lens").inner_text()
    page.locator(".matrix-harnesses").get_by_role("link", name="claude-code").click()
    page.wait_for_url("**/matrix/?view=modelCombo&harness=claude-code")
    page.locator("table.matrix td.cell a").first.click()
    page.wait_for_url("**/pairing/**harness=claude-code**")
    assert "only cycles recorded with claude-code" in page.locator(".lens").inner_text()
    page.close()

    phone = browser.new_page(viewport=PHONE)
    phone.goto(f"{site}/matrix/?view=modelCombo&harness=codex")
    assert overflowing(phone, PHONE["width"]) == []
    phone.screenshot(path=str(SCREENSHOTS / "harness-lens-matrix-phone.png"), full_page=True)
    phone.close()
