"""The pit boss's dashboard: its reads (exact figures, a fixed number of queries) and its pages."""

import json
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from pit.compliance.models import RuleViolation
from pit.core.gaming_day import current_gaming_day
from pit.dashboard.selectors import pit_overview
from pit.paytables.models import PaytableConfiguration
from tests import factories


def _user(username: str, role: str | None = None, **extra):
    user = get_user_model().objects.create_user(username=username, password="pw-for-tests-1", is_staff=True, **extra)
    if role:
        user.groups.add(Group.objects.get(name=role))
    return user


@pytest.fixture
def two_coups(db):
    """BB1 (commission in the box): Player wins a natural 9, then Banker wins a natural 8."""
    table = factories.table("BB1")
    shoe = factories.shoe(table)
    factories.coup(
        shoe,
        1,
        ["9H", "KD"],
        ["5C", "2S"],
        [
            factories.wager(1, "player", "100", paid="100"),
            factories.wager(2, "banker", "200", paid="0"),
        ],
    )
    factories.coup(
        shoe,
        2,
        ["3H", "4D"],
        ["8C", "KS"],
        [
            factories.wager(1, "banker", "100", paid="100"),
            factories.wager(2, "tie", "25", paid="0"),
        ],
    )
    return table, shoe


def test_overview_of_a_table_gives_its_shoe_scoreboards_and_todays_hold(two_coups):
    table, shoe = two_coups
    overview = pit_overview()

    assert overview["gaming_day"] == current_gaming_day().isoformat()
    (tile,) = overview["tables"]
    assert {k: tile[k] for k in ("code", "status", "open_violations", "currency")} == {
        "code": "BB1",
        "status": "open",
        "open_violations": 0,
        "currency": "USD",
    }
    assert tile["shoe"]["id"] == shoe.pk
    assert tile["shoe"]["coups"] == 2
    assert tile["shoe"]["cards_dealt"] == 8
    assert tile["shoe"]["cards_left_before_cut"] == 380 - 8
    assert tile["shoe"]["tally"] == {"player": 1, "banker": 1, "tie": 0}
    assert tile["shoe"]["bead_plate"] == [
        {"col": 0, "row": 0, "winner": "player", "pp": False, "bp": False},
        {"col": 0, "row": 1, "winner": "banker", "pp": False, "bp": False},
    ]
    assert tile["shoe"]["big_road"] == [
        {"col": 0, "row": 0, "winner": "player", "ties": 0},
        {"col": 1, "row": 0, "winner": "banker", "ties": 0},
    ]
    # Two columns of one: too short for any derived road yet.
    assert (tile["shoe"]["big_eye_boy"], tile["shoe"]["small_road"], tile["shoe"]["cockroach_pig"]) == ([], [], [])
    # Handle 425; the house won 200 + 25 lost, paid 100 + 100, and 5 commission is owed: 30.
    edges = PaytableConfiguration.objects.get(pk=table.paytable_id).house_edges
    theoretical = sum(
        Decimal(stake) * Decimal(edges[bet]["house_edge"])
        for bet, stake in (("player", 100), ("banker", 300), ("tie", 25))
    ).quantize(Decimal("0.01"))
    assert tile["today"] == {
        "handle": "425.00",
        "win": "30.00",
        "hold_percent": "7.06",
        "theoretical_win": str(theoretical),
        "theoretical_hold_percent": str((theoretical * 100 / 425).quantize(Decimal("0.01"))),
        "handle_display": "$425.00",
        "win_display": "$30.00",
        "theoretical_win_display": f"${theoretical}",
    }
    (series,) = overview["hold_chart"]
    assert series["table"] == "BB1"
    assert [point["hold"] for point in series["points"] if point["hold"] is not None][-1] == "7.06"


def test_open_violations_are_counted_per_table_and_cleared_or_reviewed_ones_are_not(two_coups):
    table, shoe = two_coups
    other = factories.table("MN1", game="mini")
    factories.coup(shoe, 3, ["9H", "KD"], ["5C", "2S"], reported_winner="banker")  # misreported: a violation
    from pit.compliance.checks import coups_check

    coups_check(coup_ids=list(shoe.coups.values_list("pk", flat=True)))
    assert RuleViolation.objects.filter(table=table).count() == 1
    tiles = {tile["code"]: tile for tile in pit_overview()["tables"]}
    assert (tiles["BB1"]["open_violations"], tiles["MN1"]["open_violations"]) == (1, 0)
    assert tiles["MN1"]["shoe"] is None
    assert tiles["MN1"]["today"]["hold_percent"] is None
    assert other.pk == tiles["MN1"]["id"]


def test_the_overview_takes_nine_queries_however_many_tables(two_coups, django_assert_num_queries):
    for code in ("BB2", "MN1", "MN2"):
        table = factories.table(code)
        shoe = factories.shoe(table)
        factories.coup(shoe, 1, ["9H", "KD"], ["5C", "2S"], [factories.wager(3, "player", "50", paid="50")])
    with django_assert_num_queries(9):  # the ninth: the tables anyone sits at (nobody here)
        overview = pit_overview()
    assert [tile["code"] for tile in overview["tables"]] == ["BB1", "BB2", "MN1", "MN2"]


# ------------------------------------------------------------------------------ pages


def test_the_dashboard_asks_for_a_login(client, db):
    response = client.get("/admin/pit/dashboard/")
    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/?next=/admin/pit/dashboard/")
    # The page polls this: a signed-out poll gets JSON saying so (the page shows "Signed out" and
    # offers the login), never the login page's HTML ("Unexpected token '<'").
    response = client.get("/admin/pit/dashboard/data/")
    assert response.status_code == 401 and response["Content-Type"] == "application/json"
    assert response.json() == {
        "signed_out": True,
        "login_url": "/admin/login/?next=/admin/pit/dashboard/",
    }


def test_staff_without_the_table_view_permission_are_refused(client, db):
    client.force_login(_user("temp"))
    assert client.get("/admin/pit/dashboard/").status_code == 403
    assert client.get("/admin/pit/dashboard/data/").status_code == 403


def test_accountants_do_not_get_the_dashboard_as_the_readme_says(client, db):
    client.force_login(_user("counter", "accountant"))
    assert client.get("/admin/pit/dashboard/").status_code == 403
    assert client.get("/admin/pit/dashboard/data/").status_code == 403


@pytest.mark.parametrize("role", ["pit boss", "auditor"])
def test_pit_bosses_and_auditors_see_the_dashboard_in_the_admin(client, two_coups, role):
    client.force_login(_user("someone", role))
    response = client.get("/admin/pit/dashboard/")
    assert response.status_code == 200
    html = response.content.decode()
    assert '<div id="pit-dashboard"' in html
    assert 'data-url="/admin/pit/dashboard/data/"' in html
    assert "dashboard/dashboard.js" in html
    assert 'id="site-name"' in html  # the admin's header: the page is inside the admin's look
    assert 'id="pit-overview" type="application/json"' in html
    embedded = html.split('id="pit-overview" type="application/json">', 1)[1].split("</script>", 1)[0]
    assert [tile["code"] for tile in json.loads(embedded)["tables"]] == ["BB1"]


def test_the_data_endpoint_returns_the_overview_as_json(client, two_coups):
    client.force_login(_user("boss", "pit boss"))
    response = client.get("/admin/pit/dashboard/data/")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert "no-store" in response["Cache-Control"] or "no-cache" in response["Cache-Control"]
    data = response.json()
    assert data["tables"][0]["today"]["handle"] == "425.00"
    assert data["tables"][0]["shoe"]["coups"] == 2


def test_a_superuser_sees_the_dashboard(client, two_coups):
    client.force_login(_user("root", is_superuser=True))
    assert client.get("/admin/pit/dashboard/").status_code == 200


def test_todays_figures_are_the_wagers_that_stand(two_coups):
    """A void returns coup 2's stakes (no win, no commission); a correction of coup 1 stands in its place."""
    from pit.shoes.services import coup_correct, coup_void

    table, shoe = two_coups
    coup_void(coup=shoe.coups.get(number=2), reason="Misdeal")
    coup_correct(
        coup=shoe.coups.get(number=1),
        wagers=(factories.wager(1, "player", "150", paid="150"),),
        reason="Seat 2 never bet; seat 1 was 150",
    )
    (tile,) = pit_overview()["tables"]
    assert (tile["today"]["handle"], tile["today"]["win"]) == ("150.00", "-150.00")
