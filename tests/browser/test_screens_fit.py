"""The screens at 1,366 x 768, in headless Chromium: no money cell is clipped on the table list, the
violation list and the reports; the screenshots the documentation shows are taken here (docs/screenshots/).

Tables with no commission box only: the live server's database is flushed after the test, and
SQLite's flush cannot delete the append-only ledger's rows."""

from pathlib import Path

import pytest
from django.conf import settings
from django.utils import timezone

from pit.accounts.services import user_create_with_role
from pit.core.gaming_day import current_gaming_day
from pit.floor.clients import ServicesFloorClient
from pit.floor.demo import DEMO_TABLES
from pit.floor.simulator import simulate
from pit.paytables.services import paytable_create_from_preset
from pit.tables.services import table_create

pytestmark = pytest.mark.browser

SCREENSHOTS = Path(settings.BASE_DIR) / "docs" / "screenshots"
WIDTH, HEIGHT = 1366, 768
PASSWORD = "a-pit-boss-password-1"

# Every cell that carries money, and whether it (or anything that holds it) cuts its text off:
# the text wider than the cell, or the cell outside a box that hides what overflows it.
CLIPPED_MONEY = """
(selector) => {
  const clipped = [];
  for (const cell of document.querySelectorAll(selector)) {
    const text = cell.textContent.trim();
    if (!text || text === "\\u2014") continue;
    const box = cell.getBoundingClientRect();
    if (cell.scrollWidth > cell.clientWidth + 1) { clipped.push(text + " (cut inside its cell)"); continue; }
    for (let up = cell.parentElement; up; up = up.parentElement) {
      const style = getComputedStyle(up);
      if (style.overflowX === "visible") continue;
      const frame = up.getBoundingClientRect();
      if (up.scrollWidth > up.clientWidth + 1 && (box.right > frame.right + 1 || box.left < frame.left - 1)) {
        clipped.push(text + " (hidden by a scrolling box)");
        break;
      }
    }
  }
  return clipped;
}
"""

# An admin list whose columns all fit: none hidden behind its sideways scroll.
LIST_FITS = "(() => { const r = document.querySelector('.results'); return r.scrollWidth <= r.clientWidth + 1; })()"


DEALING = ("BB2", "MD1", "MN2")  # no commission box among them


@pytest.fixture
def busy_pit(role_groups):
    """Three demo tables without a commission box, a shoe dealing at each with faults injected
    (payouts wrong, winners misreported), so that lists carry large and negative amounts."""
    for code, name, game_kind, preset, limits in DEMO_TABLES:
        if code not in DEALING:
            continue
        table_create(
            code=code, name=name, game=game_kind, paytable=paytable_create_from_preset(preset=preset), limits=limits
        )
    simulate(
        ServicesFloorClient(),
        tables=list(DEALING),
        shoes_per_day=0,
        leave_open=True,
        seed=21,
        now=timezone.now(),
        faults={"wrong_payout": 0.08, "misreported_winner": 0.05},
    )
    user_create_with_role(username="boss", password=PASSWORD, role="pit boss")


@pytest.fixture
def screen(browser_page):
    browser_page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return browser_page


def _fits(page, money_selector: str, name: str) -> None:
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)
    assert page.locator(money_selector).count() > 0, f"{name}: no money cell to check"
    assert page.evaluate(CLIPPED_MONEY, money_selector) == [], name
    # The page itself never scrolls sideways: nothing is off the right edge of the screen.
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH, name


def test_no_money_cell_is_clipped_at_1366_by_768(screen, admin_login, busy_pit):
    page = screen
    admin_login(page, "boss", PASSWORD)

    page.goto("/admin/tables/table/")
    _fits(page, "#result_list td .pit-money, #result_list td.field-box_over, #result_list td.field-box_short", "tables")
    # The list fits the screen: no column hidden behind a sideways scroll.
    assert page.evaluate(LIST_FITS)

    page.goto("/admin/compliance/ruleviolation/")
    assert page.locator("#result_list tbody tr").count() > 0
    _fits(page, "#result_list td.field-short_message, #result_list td.field-gaming_day", "violations")
    assert page.evaluate(LIST_FITS)
    message = page.locator("#result_list td.field-short_message").first.bounding_box()
    assert message["width"] >= 200  # read, not squeezed to 75 px

    day = current_gaming_day().isoformat()
    page.goto(f"/admin/pit/reports/?report=table-results&from={day}&to={day}")
    assert page.locator("#report-rows tbody tr").count() >= 3
    # Totals and rows: no amount cut inside its cell; the wide rows table scrolls in its own box.
    assert page.evaluate(CLIPPED_MONEY, "#report-summary td.number") == []
    cut = page.evaluate(
        """() => [...document.querySelectorAll('#report-rows td.number')]
              .filter(c => c.scrollWidth > c.clientWidth + 1).map(c => c.textContent)"""
    )
    assert cut == []
    page.locator("#report-summary").scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "reports.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH
