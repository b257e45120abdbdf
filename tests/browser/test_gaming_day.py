"""One gaming day of table accounting in a real browser: the pit boss counts the opening tray and
asks for a fill, the cage issues it, the table signs for it, the pit boss counts the closer, the
accountant enters the soft count, reads the master game report and closes the day."""

import datetime as dt
import re

import pytest

from pit.accounting.models import DropCount, GamingDayEvent, InventoryCount, SlipStep
from pit.accounts.models import Role
from pit.accounts.services import user_create_with_role
from tests import factories as f

pytestmark = [pytest.mark.browser]

PASSWORD = "a-long-test-password-0123"
DAY = dt.date(2026, 11, 20)


@pytest.fixture
def staff(role_groups):
    """A table (no commission: no ledger rows, which SQLite's flush could not delete) and the staff."""
    f.table("MB7", game="mini", preset="no_commission")
    for username, role in (
        ("boss", Role.PIT_BOSS),
        ("dana", Role.PIT_BOSS),
        ("cashier", Role.CAGE),
        ("counter", Role.ACCOUNTANT),
    ):
        user_create_with_role(username=username, password=PASSWORD, role=role)


def record(page, model: str, fields: dict[str, str], submit: str = "Record"):
    page.goto(f"/admin/accounting/{model}/add/")
    for name, value in fields.items():
        selector = f"#id_{name}"
        if page.locator(selector).evaluate("element => element.tagName") == "SELECT":
            page.select_option(selector, value)
        else:
            page.fill(selector, value)
    page.click(f"input[type=submit][value='{submit}']")
    page.wait_for_url(re.compile(rf"/admin/accounting/{model}/\d+/change/"))
    return page.locator("ul.messagelist").inner_text()


def logout(page):
    page.context.clear_cookies()


def test_one_gaming_day_from_opening_tray_to_day_close(browser_page, admin_login, staff):
    page = browser_page
    day = DAY.isoformat()
    admin_login(page, "boss", PASSWORD)
    message = record(
        page,
        "inventorycount",
        {
            "table": "MB7",
            "gaming_day": day,
            "shift": "1",
            "kind": "opener",
            "chips": "25 x 40\n100 x 10",
            "dealer": "dana",
            "dealer_password": PASSWORD,  # the second signer authenticates at the same screen
            "pit_boss": "boss",
        },
    )
    assert "Recorded: MB7 2026-11-20 shift 1 opener" in message
    assert "$2,000.00" in page.locator("div.field-total").inner_text()
    record(
        page,
        "slip",
        {
            "kind": "fill",
            "number": "F-100",
            "table": "MB7",
            "gaming_day": day,
            "shift": "1",
            "reason": "tray low on $100",
            "chips": "100 x 5",
        },
        submit="Request",
    )
    logout(page)

    admin_login(page, "cashier", PASSWORD)
    page.goto("/admin/accounting/slipstep/add/")
    assert page.locator("#id_step option").all_inner_texts() == ["Issued by the cage"]
    page.select_option("#id_slip", label="Fill F-100 MB7")
    page.fill("#id_chips", "100 x 5")
    page.click("input[type=submit][value='Sign']")
    page.wait_for_url(re.compile(r"/admin/accounting/slipstep/\d+/change/"))
    logout(page)

    # Received by a third person: whoever requested or issued a slip does not also receive it.
    admin_login(page, "dana", PASSWORD)
    page.goto("/admin/accounting/slipstep/add/")
    page.select_option("#id_slip", label="Fill F-100 MB7")
    page.select_option("#id_step", "received")
    page.fill("#id_chips", "100 x 5")
    page.click("input[type=submit][value='Sign']")
    page.wait_for_url(re.compile(r"/admin/accounting/slipstep/\d+/change/"))
    logout(page)

    admin_login(page, "boss", PASSWORD)
    record(
        page,
        "inventorycount",
        {
            "table": "MB7",
            "gaming_day": day,
            "shift": "1",
            "kind": "closer",
            "chips": "25 x 40, 100 x 12",
            "dealer": "dana",
            "dealer_password": PASSWORD,  # the second signer authenticates at the same screen
            "pit_boss": "boss",
        },
    )
    page.goto("/admin/accounting/slip/")
    assert page.locator("#result_list tbody tr td.field-state").inner_text() == "received"
    logout(page)

    admin_login(page, "counter", PASSWORD)
    # Closing before the soft count is refused, naming what is missing.
    page.goto("/admin/accounting/gamingdayevent/add/")
    page.fill("#id_gaming_day", day)
    page.click("input[type=submit][value='Record']")
    assert "Table MB7 has no drop recorded for every shift." in page.locator("#record-form").inner_text()
    record(
        page,
        "dropcount",
        {"table": "MB7", "gaming_day": day, "shift": "1", "cash": "100 x 3", "chips": "0", "markers": "0"},
    )

    # The master game report for the day: drop 300 + closer 2,200 + credits 0 - opener 2,000 - fills 500 = 0,
    # as much as the (no) recorded wagers won.
    page.goto(f"/api/v1/reports/master-game/?from={day}&to={day}")
    assert '"win": "0.00"' in page.content()
    assert '"fills": "500.00"' in page.content()

    page.goto("/admin/accounting/gamingdayevent/add/")
    page.fill("#id_gaming_day", day)
    page.fill("#id_note", "all counted")
    page.click("input[type=submit][value='Record']")
    page.wait_for_url(re.compile(r"/admin/accounting/gamingdayevent/\d+/change/"))

    assert list(GamingDayEvent.objects.values_list("gaming_day", "action", "by__username")) == [
        (DAY, "closed", "counter"),
    ]
    assert sorted(InventoryCount.objects.values_list("kind", "total_minor", "recorded_by_user__username")) == [
        ("closer", 220000, "boss"),
        ("opener", 200000, "boss"),
    ]
    assert list(SlipStep.objects.order_by("id").values_list("step", "signed_by__username")) == [
        ("issued", "cashier"),
        ("received", "dana"),
    ]
    assert DropCount.objects.get().total_minor == 30000
