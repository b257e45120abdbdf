"""The screens in Traditional Chinese at 1,366 x 768, in headless Chromium: the dashboard, the
violation list and a violation's page, a report and the table-accounting screens (the cage, a tray
count, the day close), each read by a user whose language is zh-hant (their own choice, kept on
them). On each: no English word left in the visible text (apart from names, codes, card codes and
the currencies' codes, allowed by pattern below), nothing clipped (no key box scrolls sideways, the
page does not), and the screenshot the documentation shows (docs/screenshots/zh-hant-*.png).

Every page is read before the test fails, so one run names every page with English left on it."""

import re
import subprocess
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import timezone

from pit.accounts.language import language_prefer
from pit.accounts.services import user_create_with_role
from pit.compliance.models import RuleViolation
from pit.core.gaming_day import current_gaming_day
from pit.floor.clients import ServicesFloorClient
from pit.floor.demo import DEMO_TABLES
from pit.floor.simulator import simulate
from pit.paytables.services import paytable_create_from_preset
from pit.tables.models import Table
from pit.tables.services import table_create
from tests.browser.conftest import _unavailable

pytestmark = pytest.mark.browser

SCREENSHOTS = Path(settings.BASE_DIR) / "docs" / "screenshots"
WIDTH, HEIGHT = 1366, 768
PASSWORD = "a-long-test-password-0123"

# What may stay in Latin letters on a Chinese page: codes (a table's BB2, a card's KD, a violation's
# banker_missed_draw, a slip's F-100), currency codes and the acronyms staff read as such, the
# units of time the clock shows, and the names of things and people (collected from the database).
ALLOWED = re.compile(
    r"^(?:"
    r"[A-Z]{1,5}"  # codes and acronyms: HKD, USD, CSV, XLSX, PDF, API, ID, UTC, TOTP, COMAR; card codes KD
    r"|[A-Z]+(?:_[A-Z0-9]+)+"  # the settings a sentence names: PIT_CONTROLS_DECK_MAX_HOURS
    r"|(?:[A-Z]\.)+[A-Z]?"  # the rules' cited codes: N.J.A.C. 13:69E-1.18
    r"|[A-Z0-9]+(?:[-.:][A-Z0-9]+)+"  # and their sections: 69E-1.18, III.2717
    r"|[A-Z0-9]*[0-9][A-Z0-9]*"  # table codes BB2, dealer codes D042, versions v1
    r"|v[0-9]+"
    r"|[a-z]+(?:_[a-z0-9]+)+"  # machine codes: banker_missed_draw, table-results
    r"|[a-z]+(?:-[a-z0-9]+)+"
    r"|[AJQKT2-9][SHDC]"
    r"|(?:am|pm|x)"
    r")$"
)
WORD = re.compile(r"[A-Za-z][A-Za-z0-9_'’.-]*")

# Every box whose content must fit: none scrolls sideways.
KEY_BOXES = "#content, #content-main, .module, .results, #result_list, #pit-dashboard, .pit-panel, table"
SCROLL_ON_PURPOSE = ".pit-bead-plate-wrap, .pit-scroll, #report-rows"
FITS = f"""
() => {{
  const cut = [];
  for (const box of document.querySelectorAll('{KEY_BOXES}')) {{
    if (box.closest('{SCROLL_ON_PURPOSE}')) continue;
    if (box.scrollWidth > box.clientWidth + 1)
      cut.push((box.id || box.className || box.tagName) + ': ' + box.scrollWidth + ' > ' + box.clientWidth);
  }}
  return cut;
}}
"""


@pytest.fixture
def chinese_pit(role_groups):
    """Three demo tables (no commission box: SQLite's flush cannot delete ledger rows) dealing with
    faults injected, so that violations are there; staff of each role, reading zh-hant."""
    for code, name, game_kind, preset, limits in DEMO_TABLES:
        if preset in ("commission_box", "mini_commission_box"):
            continue
        table_create(
            code=code, name=name, game=game_kind, paytable=paytable_create_from_preset(preset=preset), limits=limits
        )
    simulate(
        ServicesFloorClient(),
        tables=["BB2", "MD1", "MN2"],
        shoes_per_day=0,
        leave_open=True,
        seed=21,
        now=timezone.now(),
        faults={"wrong_payout": 0.08, "misreported_winner": 0.05},
    )
    for username, role in (("boss", "pit boss"), ("counter", "accountant"), ("cashier", "cage")):
        language_prefer(user=user_create_with_role(username=username, password=PASSWORD, role=role), language="zh-hant")


def _names() -> set[str]:
    """Words of the names of things and people on the pages: tables, usernames."""
    words = {"boss", "counter", "cashier"}
    for table in Table.objects.all():
        words.update(WORD.findall(table.name))
    return words


def english_left(text: str, names: set[str]) -> list[str]:
    known = {name.lower() for name in names}
    return sorted(
        {w for w in WORD.findall(text) if not ALLOWED.match(w.strip(".-'’")) and w.strip(".-'’").lower() not in known}
    )


def _login(page, username: str):
    page.context.clear_cookies()
    page.goto("/admin/login/?next=/admin/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url("**/admin/")


def _read(page, name: str, names: set[str], problems: dict[str, list[str]]) -> None:
    page.wait_for_load_state("networkidle")
    page.screenshot(path=str(SCREENSHOTS / f"zh-hant-{name}.png"), full_page=True)
    assert page.evaluate("document.documentElement.lang") == "zh-hant", name
    found = []
    left = english_left(page.evaluate("document.body.innerText"), names)
    if left:
        found.append(f"English left: {left}")
    cut = page.evaluate(FITS)
    if cut:
        found.append(f"clipped: {cut}")
    if page.evaluate("document.documentElement.scrollWidth") > WIDTH:
        found.append("the page scrolls sideways")
    if found:
        problems[name] = found


def test_the_screens_in_traditional_chinese_at_1366_by_768(browser_page, chinese_pit):
    # Without a font that has Chinese, the screenshots show empty boxes (the text checks still hold).
    fonts = subprocess.run(["fc-list", ":lang=zh"], capture_output=True, text=True, check=False).stdout
    if not fonts.strip():
        _unavailable("no Chinese font for Chromium: apt-get install -y fonts-wqy-microhei")
    page = browser_page
    page.set_viewport_size({"width": WIDTH, "height": HEIGHT})
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    names = _names()
    problems: dict[str, list[str]] = {}
    day = current_gaming_day().isoformat()

    _login(page, "boss")
    page.goto("/admin/pit/dashboard/")
    page.wait_for_selector("#pit-dashboard")
    _read(page, "dashboard", names, problems)
    page.goto("/admin/compliance/ruleviolation/")
    assert page.locator("#result_list tbody tr").count() > 0
    _read(page, "violations", names, problems)
    violation = RuleViolation.objects.order_by("pk").first()
    page.goto(f"/admin/compliance/ruleviolation/{violation.pk}/change/")
    _read(page, "violation", names, problems)
    page.goto("/admin/tables/table/")
    _read(page, "tables", names, problems)
    page.goto("/admin/accounting/inventorycount/add/")
    _read(page, "tray-count", names, problems)

    _login(page, "counter")
    page.goto(f"/admin/pit/reports/?report=table-results&from={day}&to={day}")
    _read(page, "report", names, problems)
    page.goto(f"/admin/pit/day-close/?gaming_day={day}")
    _read(page, "day-close", names, problems)

    _login(page, "cashier")
    page.goto("/admin/pit/cage/")
    _read(page, "cage", names, problems)

    assert problems == {}, "\n".join(f"{page}: {'; '.join(found)}" for page, found in problems.items())


@pytest.mark.parametrize(
    ("text", "left"),
    [
        ("賭台 BB2 牌靴 3,局 41:KD 5H,HK$1,250.00 banker_missed_draw", []),
        ("今日投注額 Handle today 盈利 Win", ["Handle", "Win", "today"]),
        ("荷官 Big baccarat 2 (MOP)", []),
        ("（N.J.A.C. 13:69E-1.18；COMAR 36.05.03.21；LAC 42:III.2717）PIT_CONTROLS_DECK_MAX_HOURS", []),
    ],
)
def test_what_counts_as_english(text, left):
    assert english_left(text, {"Big", "baccarat"}) == left
