"""A pit boss's round in a real browser: log in, open a table, read a shoe (cards and bead plate),
open a violation and acknowledge it with a note; the database then says who did it and why."""

import re

import pytest

from pit.accounts.models import Role
from pit.accounts.services import user_create_with_role
from pit.compliance.models import RuleViolation, ViolationStatus
from tests import factories as f

pytestmark = [pytest.mark.browser]

PASSWORD = "a-long-test-password-0123"
NOTE = "Dealer drew on a banker natural; re-trained at the break."


@pytest.fixture
def floor(role_groups, django_capture_on_commit_callbacks):
    """A mini table under a no-commission paytable (no ledger rows: SQLite's flush could not
    delete them), one shoe of four coups, the last with a banker card drawn on a natural."""
    table = f.table("MB7", game="mini", preset="no_commission")
    shoe = f.shoe(table, cut_card_position=300)
    f.coup(shoe, 1, ["9S", "KH"], ["5D", "2C"], wagers=[f.wager(1, "player", "25")])  # P natural, wins
    f.coup(shoe, 2, ["2H", "3D", "KC"], ["7S", "KD"], wagers=[f.wager(1, "banker", "25")])  # B wins
    f.coup(shoe, 3, ["4H", "4S"], ["2D", "2C"])  # P wins, both pairs
    f.coup(shoe, 4, ["9C", "KS"], ["5H", "2S", "3H"])  # the banker drew on a natural: a violation
    violation = RuleViolation.objects.get(coup__shoe=shoe, coup__number=4, code__isnull=False)
    boss = user_create_with_role(username="boss", password=PASSWORD, role=Role.PIT_BOSS)
    return table, shoe, violation, boss


def test_pit_boss_reviews_a_violation(browser_page, admin_login, floor):
    table, shoe, violation, boss = floor
    page = browser_page
    admin_login(page, "boss", PASSWORD)

    # The floor: the table list, then the table's page.
    page.click("nav.pit-nav >> text=Tables")
    row = page.locator("#result_list tbody tr", has_text="MB7")
    assert "Open" in row.locator("td.field-status_badge").inner_text()
    assert row.locator("td.field-open_violations").inner_text().strip() == "1 · 0"  # today · earlier
    row.locator("th.field-code a").click()
    page.wait_for_url(re.compile(rf"/admin/tables/table/{table.pk}/change/"))
    assert page.locator("div.field-recent_shoes").is_visible()

    # The shoe: its coups with the cards as cards, and the bead plate.
    page.click(f"div.field-recent_shoes >> text=shoe {shoe.sequence}")
    page.wait_for_url(re.compile(rf"/admin/shoes/shoe/{shoe.pk}/change/"))
    first = page.locator("tr.pit-coup-row[data-coup='1']")
    assert first.locator(".pit-card").all_inner_texts() == ["9♠", "K♥", "5♦", "2♣"]
    assert first.locator(".pit-card-red").all_inner_texts() == ["K♥", "5♦"]
    beads = page.locator("table.pit-bead-plate .pit-bead")
    assert [text.strip() for text in beads.all_inner_texts()] == ["P", "B", "P", "P"]
    assert page.locator("table.pit-bead-plate tr").count() == 6
    assert page.locator("table.pit-bead-plate .pit-bead").nth(2).locator(".pit-dot").count() == 2

    # The violation, from the queue of open ones; acknowledged with a note.
    page.click("nav.pit-nav >> text=Open violations")
    page.locator("#result_list tbody tr", has_text="MB7").locator("th.field-id a").click()
    page.wait_for_url(re.compile(rf"/admin/compliance/ruleviolation/{violation.pk}/change/"))
    page.fill("#id_review_note", NOTE)
    with page.expect_navigation():
        page.click("button.pit-review-acknowledge")
    assert re.search(rf"/admin/compliance/ruleviolation/{violation.pk}/change/", page.url)
    assert "acknowledged" in page.locator("ul.messagelist li.success").inner_text()

    violation.refresh_from_db()
    assert violation.status == ViolationStatus.ACKNOWLEDGED
    assert violation.status_note == NOTE
    assert violation.status_changed_by == boss
    assert violation.status_changed_at is not None
