"""The pages a pit boss reads: the shoe with its cards and bead plate, a coup with its wagers, a
table, paytables (created from a preset, edited only while unsettled) and floor devices."""

import re
from types import SimpleNamespace

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.messages import get_messages
from django.urls import reverse

from pit.accounts.models import Device
from pit.core.admin_site import bead_plate, card_html, cards_html
from pit.paytables.models import PaytableConfiguration
from pit.tables.models import Table


def messages_of(response):
    return [(m.level_tag, m.message) for m in get_messages(response.wsgi_request)]


def test_cards_are_shown_as_cards_red_for_hearts_and_diamonds():
    assert card_html("5H") == '<span class="pit-card pit-card-red" title="5H">5♥</span>'
    assert card_html("TD") == '<span class="pit-card pit-card-red" title="TD">10♦</span>'
    assert card_html("KS") == '<span class="pit-card pit-card-black" title="KS">K♠</span>'
    assert card_html("<b>") == '<span class="pit-card pit-card-bad" title="not a card code">&lt;b&gt;</span>'
    assert re.findall(r">([^<]+)</span>", cards_html(["5H", "KD", "2C"])) == ["5♥", "K♦", "2♣"]


def test_bead_plate_fills_six_rows_top_to_bottom_then_left_to_right():
    winners = ["player", "banker", "tie", "banker", "banker", "player", "player", "tie"]
    coups = [
        SimpleNamespace(number=n, winner=w, player_pair=n == 2, banker_pair=n == 7) for n, w in enumerate(winners, 1)
    ]
    grid = bead_plate(coups)
    letters = [[cell["letter"] if cell else "" for cell in row] for row in grid]
    assert letters == [["P", "P"], ["B", "T"], ["T", ""], ["B", ""], ["B", ""], ["P", ""]]
    assert (grid[1][0]["player_pair"], grid[0][1]["banker_pair"], grid[0][0]["player_pair"]) == (
        True,
        True,
        False,
    )
    assert bead_plate([]) == [[None]] * 6


def test_shoe_page_shows_coups_with_cards_and_the_bead_plate(admin_client, pit):
    response = admin_client.get(reverse("admin:shoes_shoe_change", args=[pit.shoe2.pk]))
    assert response.status_code == 200
    rows = response.context["coup_rows"]
    assert [row["coup"].number for row in rows] == [1, 2, 3, 4, 5]
    assert [row["coup"].violations_count for row in rows] == [0, 0, 0, 0, 1]
    assert re.findall(r">([^<]+)</span>", rows[1]["player"]) == ["2♥", "3♦", "K♣"]
    assert 'class="pit-card pit-card-red" title="2H"' in rows[1]["player"]
    plate = response.context["bead_plate"]
    assert [[cell["letter"] if cell else None for cell in row] for row in plate] == [
        ["P"],
        ["B"],
        ["T"],
        ["P"],
        ["P"],
        [None],
    ]
    assert response.context["result_totals"] == {
        "player": 3,
        "banker": 1,
        "tie": 1,
        "player_pair": 1,
        "banker_pair": 1,
        "natural": 4,
    }
    # P B T P P: the big road P | B (a tie on it) | P P; big eye boy red then blue; small road blue.
    roads = {road["key"]: road["grid"] for road in response.context["roads"]}
    assert [[(cell["winner"], cell["ties"]) if cell else None for cell in row] for row in roads["big_road"][:2]] == [
        [("player", 0), ("banker", 1), ("player", 0)],
        [None, None, ("player", 0)],
    ]
    assert [cell["colour"] for cell in roads["big_eye_boy"][0] if cell] == ["red", "blue"]
    assert [cell["colour"] for row in roads["small_road"] for cell in row if cell] == ["blue"]
    assert not any(cell for row in roads["cockroach_pig"] for cell in row)
    html = response.content.decode()
    assert 'data-road="big_eye_boy"' in html and html.count('class="pit-road-cell pit-road-') == 4 + 2 + 1
    assert html.count('class="pit-bead pit-bead-') == 5
    assert html.count('<i class="pit-dot pit-dot-') == 2
    assert "View shoe" in html  # read-only for a superuser too
    assert 'name="_save"' not in html


def test_shoe_and_coup_are_read_only_for_everyone(admin_client, pit):
    for name, obj in (("shoes_shoe", pit.shoe2), ("shoes_coup", pit.shoe2.coups.first())):
        response = admin_client.post(reverse(f"admin:{name}_change", args=[obj.pk]), {})
        assert response.status_code == 403
        assert admin_client.get(reverse(f"admin:{name}_add")).status_code == 403
        assert admin_client.get(reverse(f"admin:{name}_delete", args=[obj.pk])).status_code == 403


def test_coup_page_shows_wagers_with_money_and_its_violations(admin_client, pit):
    coup = pit.shoe1.coups.get(number=2)
    response = admin_client.get(reverse("admin:shoes_coup_change", args=[coup.pk]))
    html = response.content.decode()
    assert response.status_code == 200
    inline = response.context["inline_admin_formsets"][0]
    assert [(w.seat, w.bet, w.result) for w in inline.formset.queryset] == [
        (1, "banker", "win"),
        (3, "banker", "win"),
    ]
    assert '<span class="pit-money">$100.00</span>' in html
    assert '<span class="pit-money">$5.00</span>' in html  # seat 1's commission
    assert '<span class="pit-money">$2.00</span>' in html  # seat 3's commission
    flagged = pit.shoe2.coups.get(number=5)
    response = admin_client.get(reverse("admin:shoes_coup_change", args=[flagged.pk]))
    violation = flagged.violations.get()
    assert reverse("admin:compliance_ruleviolation_change", args=[violation.pk]) in response.content.decode()


def test_table_page_limits_read_only_for_a_pit_boss(client, pit, pit_boss):
    client.force_login(pit_boss)
    response = client.get(reverse("admin:tables_table_change", args=[pit.bb1.pk]))
    html = response.content.decode()
    assert response.status_code == 200
    assert 'name="limits-0-minimum_minor"' not in html
    assert '<span class="pit-money">$25.00</span>' in html
    assert '<span class="pit-money">$10,000.00</span>' in html
    assert reverse("admin:shoes_shoe_change", args=[pit.shoe1.pk]) in html
    assert 'name="name"' not in html  # renamed by a superuser only
    # Nothing here is the pit boss's to edit: no Save button, and a POST of the form is refused
    # (it once said "changed successfully" having changed nothing).
    assert 'name="_save"' not in html and 'name="_continue"' not in html
    post = client.post(reverse("admin:tables_table_change", args=[pit.bb1.pk]), {"name": "Renamed"})
    assert post.status_code == 403
    pit.bb1.refresh_from_db()
    assert pit.bb1.name == "Table BB1"
    violation = pit.shoe2.coups.get(number=5).violations.first()
    page = client.get(reverse("admin:compliance_ruleviolation_change", args=[violation.pk])).content.decode()
    assert 'name="_save"' not in page


def test_table_page_links_the_limits_page_for_a_superuser(admin_client, pit):
    html = admin_client.get(reverse("admin:tables_table_change", args=[pit.bb1.pk])).content.decode()
    assert reverse("admin:tables_table_limits", args=[pit.bb1.pk]) in html
    assert 'name="limits-0-minimum_minor"' not in html  # never typed in minor units


def test_superuser_adds_a_table_through_the_service(admin_client, pit):
    data = {
        "code": "MD1",
        "name": "Midi 1",
        "game": "midi",
        "paytable": pit.mb1.paytable_id,
        "seats": "[1, 2, 3, 5]",
        "currency": "USD",
        "limits-TOTAL_FORMS": "0",
        "limits-INITIAL_FORMS": "0",
    }
    response = admin_client.post(reverse("admin:tables_table_add"), data)
    assert response.status_code == 302
    table = Table.objects.get(code="MD1")
    assert (table.seats, table.status, table.game) == ([1, 2, 3, 5], "closed", "midi")


def test_index_links_the_pit_pages(client, pit_boss):
    client.force_login(pit_boss)
    html = client.get(reverse("admin:index")).content.decode()
    assert 'href="/admin/pit/dashboard/"' in html
    assert 'href="/admin/pit/reports/"' in html
    assert "Pit back-office" in html


# ---------------------------------------------------------------------------------------- paytables


def test_paytable_list_shows_house_edges_as_percentages(admin_client, pit):
    response = admin_client.get(reverse("admin:paytables_paytableconfiguration_changelist"))
    html = response.content.decode()
    box = PaytableConfiguration.objects.get(preset="commission_box")
    banker_edge = f"{float(box.house_edges['banker']['house_edge']) * 100:.4f}%"
    assert banker_edge == "1.0579%"
    assert banker_edge in html
    assert "box 5%" in html


def test_paytable_from_a_preset(admin_client, pit):
    response = admin_client.post(
        reverse("admin:paytables_paytableconfiguration_add"), {"preset": "tie_9_to_1", "code": "", "name": ""}
    )
    assert response.status_code == 302
    created = PaytableConfiguration.objects.get(preset="tie_9_to_1")
    assert (created.code, created.version, bool(created.house_edges)) == ("tie-9-to-1", 1, True)


def test_paytable_from_a_preset_refuses_a_taken_code(admin_client, pit):
    response = admin_client.post(
        reverse("admin:paytables_paytableconfiguration_add"),
        {"preset": "no_commission", "code": "commission-box", "name": ""},
    )
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["code"] == [
        "The paytable family 'commission-box' exists already; supersede its current version."
    ]
    assert PaytableConfiguration.objects.count() == 2


def test_settled_paytable_is_read_only_with_a_pointer_to_supersede(admin_client, pit):
    box = PaytableConfiguration.objects.get(preset="commission_box")
    url = reverse("admin:paytables_paytableconfiguration_change", args=[box.pk])
    response = admin_client.get(url)
    assert 'name="rules"' not in response.content.decode()
    assert "supersede it with a new version" in messages_of(response)[0][1]
    admin_client.post(url, {"name": "Renamed", "rules": "{}", "override_reason": ""})
    box.refresh_from_db()
    assert box.name != "Renamed"


def test_unsettled_paytable_is_edited_through_the_service(admin_client, pit):
    import json

    from tests import factories as f

    fresh = f.paytable("tie_9_to_1")
    url = reverse("admin:paytables_paytableconfiguration_change", args=[fresh.pk])
    rules = dict(fresh.rules)
    rules["bets"] = {
        **rules["bets"],
        "tie": {"rules": [{"when": ["tie"], "result": "win", "odds": "8:1", "commission": False}]},
    }
    response = admin_client.post(url, {"name": "Tie back to 8", "rules": json.dumps(rules), "override_reason": ""})
    assert response.status_code == 302
    fresh.refresh_from_db()
    assert (fresh.name, fresh.rules["bets"]["tie"]["rules"][0]["odds"]) == ("Tie back to 8", "8:1")
    assert fresh.house_edges["tie"]["house_edge"].startswith("0.1435")

    # A player-favoured configuration is refused by the service: a message, nothing saved, no 500.
    rules["bets"]["tie"]["rules"][0]["odds"] = "20:1"
    response = admin_client.post(url, {"name": "Generous", "rules": json.dumps(rules), "override_reason": ""})
    assert response.status_code == 302
    level, message = messages_of(response)[-1]
    assert level == "error"
    assert message.startswith("Not saved: These bets give the player the edge: tie (house edge -99.8275%)")
    fresh.refresh_from_db()
    assert fresh.name == "Tie back to 8"


# ---------------------------------------------------------------------------------------- devices


def test_device_list_never_shows_a_key_and_revokes(admin_client, device):
    url = reverse("admin:accounts_device_changelist")
    html = admin_client.get(url).content.decode()
    assert device.key_prefix in html
    assert device.key_hash not in html
    response = admin_client.post(url, {"action": "revoke", ACTION_CHECKBOX_NAME: [device.pk]})
    assert messages_of(response) == [("success", "1 device key revoked.")]
    device.refresh_from_db()
    assert device.revoked_at is not None
    # A superuser creates devices from the admin (the key shown once: tests/accounts/test_two_factor.py).
    assert admin_client.get(reverse("admin:accounts_device_add")).status_code == 200


@pytest.mark.parametrize("username", ["pit_boss", "accountant"])
def test_device_admin_is_not_for_pit_bosses_or_accountants(client, device, username, request):
    client.force_login(request.getfixturevalue(username))
    assert client.get(reverse("admin:accounts_device_changelist")).status_code == 403
    assert Device.objects.get().revoked_at is None


def test_dates_read_the_same_on_every_page(admin_client, pit):
    """One date format everywhere (ISO, as the reports and the API write them), not "Nov. 30, 2026"."""
    from pit.core.gaming_day import current_gaming_day

    today = current_gaming_day().isoformat()
    html = admin_client.get(reverse("admin:compliance_ruleviolation_changelist")).content.decode()
    assert f'<td class="field-gaming_day nowrap">{today}</td>' in html
    assert not re.search(r"\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.? \d{1,2}, \d{4}", html)


def test_limits_are_versioned_and_a_coup_is_judged_by_the_limits_of_its_time(
    admin_client, pit, django_capture_on_commit_callbacks
):
    """A 8,000 Banker wager dealt when the maximum was 10,000 stays legal after the maximum drops
    to 5,000 (the sweep judges it by the limits in force when it was dealt); one dealt after the
    change is over the maximum. The table page shows the history."""
    import datetime as dt
    from decimal import Decimal

    from django.utils import timezone

    from pit.compliance.checks import coups_check
    from pit.compliance.models import RuleViolation
    from pit.tables.models import TableLimitVersion
    from pit.tables.services import table_limits_set
    from tests import factories as f
    from tests.admin.conftest import BANKER_WINS, deal

    table = f.table("LV1")
    shoe = f.shoe(table)
    before = deal(shoe, 1, BANKER_WINS, wagers=[f.wager(1, "banker", "8000")])
    changed = timezone.now() + dt.timedelta(seconds=1)
    limits = {
        "player": (Decimal(25), Decimal(5000)),
        "banker": (Decimal(25), Decimal(5000)),
        "tie": (Decimal(5), Decimal(1000)),
    }
    table_limits_set(table=table, limits=limits, effective_from=changed)
    later = changed + dt.timedelta(minutes=1)
    after = deal(shoe, 2, BANKER_WINS, wagers=[f.wager(1, "banker", "8000")], dealt_at=later)
    coups_check(coup_ids=[before.pk, after.pk])  # the sweep's path, both coups at once
    over = RuleViolation.objects.filter(table=table, code="wager_over_maximum")
    assert list(over.values_list("coup__number", flat=True)) == [2]
    assert TableLimitVersion.objects.filter(table=table).values("effective_from").distinct().count() == 2

    html = admin_client.get(reverse("admin:tables_table_change", args=[table.pk])).content.decode()
    assert "Limit history" in html or "limit history" in html
    assert html.count('<span class="pit-money">$10,000.00</span>') >= 2  # the first set, in the history
    assert '<span class="pit-money">$5,000.00</span>' in html
