"""Each role's main pages in headless Chromium at 1,366 and 1,024 wide: every page of the role's
header opens without a JavaScript error, no link on it leads to a page the role may not open, the
violation list keeps its table/shoe/coup column in view at 1,024, and the documentation's
screenshots of each role's pages are taken here (docs/screenshots/)."""

import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.conf import settings

from pit.accounts.services import user_create_with_role
from tests.browser.test_screens_fit import busy_pit  # noqa: F401 (the fixture: a dealing pit with faults)

pytestmark = pytest.mark.browser

SCREENSHOTS = Path(settings.BASE_DIR) / "docs" / "screenshots"
PASSWORD = "a-role-password-123"
ROLES = {"pit boss": "boss2", "accountant": "acc", "cage": "cash", "auditor": "eve"}
# The pages whose screenshots the guides show: (role, header link key) -> file name.
SHOTS = {
    ("pit boss", "dashboard"): "pit-boss-dashboard",
    ("pit boss", "open_violations"): "pit-boss-open-violations",
    ("cage", "cage"): "cage",
    ("accountant", "day_close"): "accountant-day-close",
    ("auditor", "audit_trail"): "auditor-audit-trail",
    ("auditor", "verify_records"): "auditor-verify-records",
}
LINKS_ON_PAGE = """() => [...document.querySelectorAll('a[href^="/admin/"]')].map(a => a.getAttribute('href'))"""


def _shape(url: str) -> str:
    parts = urlsplit(url)
    names = ",".join(sorted({pair.split("=")[0] for pair in parts.query.split("&") if pair}))
    return re.sub(r"/\d+/", "/N/", parts.path) + "?" + names


@pytest.fixture
def staff(busy_pit):  # noqa: F811
    for role, username in ROLES.items():
        user_create_with_role(username=username, password=PASSWORD, role=role)


@pytest.mark.parametrize("width", [1366, 1024])
def test_each_roles_pages_open_and_link_only_what_the_role_may_open(width, browser_page, admin_login, staff):
    page = browser_page
    page.set_viewport_size({"width": width, "height": 800})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for role, username in ROLES.items():
        page.context.clear_cookies()
        admin_login(page, username, PASSWORD)
        header = page.eval_on_selector_all(
            "nav.pit-nav a[data-link]", "els => els.map(a => [a.dataset.link, a.getAttribute('href')])"
        )
        assert header, role
        checked: set[str] = set()
        for key, href in header:
            response = page.goto(href)
            assert response is not None and response.status == 200, (role, href)
            page.wait_for_load_state("networkidle")
            if width == 1366 and (role, key) in SHOTS:
                page.screenshot(path=str(SCREENSHOTS / f"{SHOTS[role, key]}.png"), full_page=True)
            for link in page.evaluate(LINKS_ON_PAGE):
                if link.startswith("/admin/logout/") or _shape(link) in checked:
                    continue
                checked.add(_shape(link))
                answer = page.request.get(link)
                assert answer.status == 200, (role, href, link, answer.status)
    assert errors == []


def test_the_violation_list_keeps_where_in_view_at_1024(browser_page, admin_login, staff):
    page = browser_page
    page.set_viewport_size({"width": 1024, "height": 768})
    admin_login(page, "boss2", PASSWORD)
    page.goto("/admin/compliance/ruleviolation/")
    cell = page.locator("#result_list td.field-where").first
    box = cell.bounding_box()
    assert box is not None and box["x"] + box["width"] <= 1024
    first = page.locator("#result_list tbody tr a[href*='/ruleviolation/']").first
    first.click()
    page.wait_for_load_state()
    assert page.locator("#pit-summary").is_visible()
    assert page.locator("#pit-in-context").bounding_box()["y"] < page.locator("details").first.bounding_box()["y"]
    page.screenshot(path=str(SCREENSHOTS / "pit-boss-violation-page.png"), full_page=True)
