"""The pit boss's dashboard in headless Chromium: a tile per table with its scoreboards, redrawn
from the JSON endpoint without a page reload when a coup is recorded."""

from decimal import Decimal
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import timezone

from pit.accounts.services import user_create_with_role
from pit.floor.clients import ServicesFloorClient
from pit.floor.demo import DEMO_TABLES
from pit.floor.simulator import simulate
from pit.paytables.services import paytable_create_from_preset
from pit.shoes.models import Shoe, ShoeStatus
from pit.shoes.services import CoupInput, WagerInput, coup_record
from pit.tables.services import table_create

pytestmark = pytest.mark.browser

SCREENSHOT = Path(settings.BASE_DIR) / "var" / "screenshots" / "dashboard.png"


DEALING = ("BB2", "MD1", "MN2")


@pytest.fixture
def dealing_pit(role_groups):
    """Three tables of the demo pit, each with a shoe dealing (12 to 40 coups in), and a pit boss.

    Tables with no commission box only: the test database is flushed after a live-server test, and
    SQLite's flush cannot delete the append-only ledger's rows (nor should anything else)."""
    for code, name, game_kind, preset, limits in DEMO_TABLES:
        if code not in DEALING:
            continue
        table_create(
            code=code,
            name=name,
            game=game_kind,
            paytable=paytable_create_from_preset(preset=preset),
            limits=limits,
        )
    simulate(
        ServicesFloorClient(),
        tables=list(DEALING),
        shoes_per_day=0,
        leave_open=True,
        seed=9,
        now=timezone.now(),
        faults={"misreported_winner": 0.05},
    )
    user_create_with_role(username="boss", password="a-pit-boss-password-1", role="pit boss")


def test_the_dashboard_shows_every_table_and_redraws_when_a_coup_is_recorded(browser_page, admin_login, dealing_pit):
    page = browser_page
    admin_login(page, "boss", "a-pit-boss-password-1")
    page.goto("/admin/pit/dashboard/")
    page.wait_for_selector(".pd-tile .pd-bead")

    tiles = page.locator(".pd-tile")
    assert tiles.count() == 3
    assert [tiles.nth(i).get_attribute("data-table") for i in range(3)] == ["BB2", "MD1", "MN2"]
    for i in range(3):
        assert tiles.nth(i).locator(".pd-bead i.player, .pd-bead i.banker, .pd-bead i.tie").count() > 0
        assert tiles.nth(i).locator(".pd-road").count() == 1
    assert page.locator("#pit-hold-chart svg path").count() == 3
    shoe = Shoe.objects.get(table__code="BB2", status=ShoeStatus.DEALING)
    bb2 = page.locator('.pd-tile[data-table="BB2"]')
    assert bb2.get_attribute("data-coups") == str(shoe.coups_recorded)
    beads = int(bb2.locator(".pd-bead").get_attribute("data-cells"))
    assert beads == shoe.coups_recorded

    # A coup recorded after the page loaded shows up at the next refresh, with no reload.
    page.evaluate("window.__loadedOnce = true")
    coup_record(
        shoe=shoe,
        coup=CoupInput(
            number=shoe.coups_recorded + 1,
            player=["9S", "KH"],
            banker=["2D", "3C"],
            reported_winner="player",
            wagers=(WagerInput(seat=1, bet="player", amount=Decimal(100), paid=Decimal(100)),),
        ),
    )
    page.wait_for_selector(f'.pd-tile[data-table="BB2"][data-coups="{shoe.coups_recorded + 1}"]', timeout=15_000)
    assert page.evaluate("window.__loadedOnce") is True
    bb2 = page.locator('.pd-tile[data-table="BB2"]')
    assert int(bb2.locator(".pd-bead").get_attribute("data-cells")) == beads + 1
    assert bb2.locator(".pd-bead i").nth(beads).get_attribute("class") == "player"

    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOT), full_page=True)
