"""The front page's forest plot as drawn: each row's numbers beside its interval, inside the chart, and each row a
link to its group's page."""

import pytest

from tests.e2e.conftest import BROWSER_TESTS, DESKTOP, PHONE, SCREENSHOTS

pytestmark = BROWSER_TESTS

# The gap between a row's numbers and the nearer end of its interval (or its dot), the numbers' box, the chart's.
GAPS = """() => {
  const svg = document.querySelector('svg.forest');
  const chart = svg.getBoundingClientRect();
  return [...svg.querySelectorAll('a.forest-row')].map(row => {
    const value = row.querySelector('.forest-value').getBoundingClientRect();
    const mark = (row.querySelector('line') || row.querySelector('circle')).getBoundingClientRect();
    const gap = value.left >= mark.right ? value.left - mark.right : mark.left - value.right;
    return {gap, left: value.left - chart.left, right: chart.right - value.right};
  });
}"""
# Written as a person reads the chart: far from its interval means more than 20 px of white between them.
BESIDE_PX = 20


@pytest.fixture
def site(demo_site: str) -> str:
    return demo_site


@pytest.mark.parametrize(("viewport", "name"), [(DESKTOP, "desktop"), (PHONE, "phone")])
def test_each_rows_numbers_sit_beside_its_interval(site: str, browser, viewport: dict[str, int], name: str) -> None:  # type: ignore[no-untyped-def]
    page = browser.new_page(viewport=viewport)
    for query in ("", "?sort=odds"):
        page.goto(f"{site}/{query}")
        rows = page.evaluate(GAPS)
        assert len(rows) >= 10
        far = [row for row in rows if row["gap"] > BESIDE_PX or row["left"] < 0 or row["right"] < -1]
        assert far == [], far
    page.locator("figure.forest").screenshot(path=str(SCREENSHOTS / f"forest-{name}.png"))
    page.close()


def test_a_row_of_the_chart_opens_its_pairing(site: str, browser) -> None:  # type: ignore[no-untyped-def]
    page = browser.new_page(viewport=DESKTOP)
    page.goto(f"{site}/?sort=contributors")
    first_in_table = page.locator("table.rankings tbody tr").nth(0).locator("th.label a").inner_text()
    assert "in the table's order" in page.locator(".forest-what").inner_text()
    page.locator("svg.forest a.forest-row").nth(0).click()
    page.wait_for_url("**/pairing/**")
    assert page.locator("h1").inner_text().strip() == first_in_table
    page.close()
