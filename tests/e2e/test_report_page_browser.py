"""The personal report's page (pragmatikos-record report --html) at 390 px: the site's phone rules."""

from pathlib import Path

from pragmatikos_recorder.report import build_report
from pragmatikos_recorder.report_page import report_page

from tests.e2e.conftest import BROWSER_TESTS, PHONE, SCREENSHOTS
from tests.e2e.test_phone_rules_browser import SMALL_TEXT, SMALLEST_TEXT, WIDE
from tests.recorder.test_report import hand_rows, larger_pool

pytestmark = BROWSER_TESTS


def test_the_report_page_keeps_the_phone_rules(tmp_path: Path, browser) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "report.html"
    path.write_text(report_page(build_report(hand_rows(), larger_pool(), "modelCombo")), encoding="utf-8")
    page = browser.new_page(viewport=PHONE, device_scale_factor=2, is_mobile=True)
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(path.as_uri())
    page.screenshot(path=str(SCREENSHOTS / "report-phone.png"), full_page=True)
    small = page.evaluate(SMALL_TEXT, SMALLEST_TEXT)
    wide = page.evaluate(WIDE, PHONE["width"])
    width = page.evaluate("document.documentElement.scrollWidth")
    page.close()
    assert (small, wide, width) == ([], [], PHONE["width"])
    assert requests == [path.as_uri()]  # the page itself, nothing else
