"""Every changelist of the back-office in a fixed number of queries (several rows of each model are
present, so an N+1 would add queries), and the table list's floor figures exactly."""

import re
from decimal import Decimal

import pytest
from django.urls import reverse

from pit.accounts.services import device_create
from pit.shoes.services import shoe_close
from pit.tables.admin import tables_for_floor
from tests import factories as f
from tests.facts import rewrite

# (admin URL name, rows in the pit fixture, queries for a superuser's request). The queries: the
# session, the user, the page's count, its rows, and per list filter or date hierarchy that lists
# values from the database one more (a fixed number whatever the number of rows); the violations'
# page also reads its rows' tables, shoes and coups (one query each) and their money at stake; the
# commission entries' page reads its rows' wagers (one query).
CHANGELISTS = [
    ("tables_table", 3, 4),
    ("shoes_shoe", 3, 7),
    ("shoes_coup", 15, 7),
    ("compliance_ruleviolation", 9, 13),
    ("ledger_commissionentry", 5, 10),
    ("ledger_boxcount", 2, 9),
    ("ledger_reconciliation", 1, 8),
    ("paytables_paytableconfiguration", 2, 8),
    ("accounts_device", 3, 7),
]


@pytest.fixture
def devices(pit):
    return [device_create(table=table, name=f"reader {n}")[0] for n, table in enumerate([pit.bb1, pit.bb1, pit.mb1])]


@pytest.mark.parametrize(("name", "rows", "queries"), CHANGELISTS, ids=[c[0] for c in CHANGELISTS])
def test_changelist_queries_are_fixed(admin_client, pit, devices, django_assert_num_queries, name, rows, queries):
    url = reverse(f"admin:{name}_changelist")
    with django_assert_num_queries(queries):
        response = admin_client.get(url)
    assert response.status_code == 200
    assert response.context["cl"].result_count == rows


@pytest.mark.parametrize(("name", "rows", "queries"), CHANGELISTS, ids=[c[0] for c in CHANGELISTS])
def test_changelist_queries_do_not_grow_with_rows(
    admin_client,
    pit,
    devices,
    django_capture_on_commit_callbacks,
    django_assert_num_queries,
    name,
    rows,
    queries,
):
    """Twice the rows, the same queries."""
    from tests.admin.conftest import build_more

    build_more(django_capture_on_commit_callbacks)
    with django_assert_num_queries(queries):
        response = admin_client.get(reverse(f"admin:{name}_changelist"))
    assert response.context["cl"].result_count > rows


def test_table_list_shows_the_floor(admin_client, pit):
    response = admin_client.get(reverse("admin:tables_table_changelist"))
    rows = {table.code: table for table in response.context["cl"].result_list}
    bb1, mb1, mb2 = rows["BB1"], rows["MB1"], rows["MB2"]
    assert (bb1.current_shoe_id, bb1.current_shoe_sequence, bb1.current_shoe_coups) == (pit.shoe2.pk, 2, 5)
    assert (bb1.current_shoe_cut - bb1.current_shoe_cards_dealt, bb1.coups_today, bb1.open_violations) == (
        358,
        8,
        2,
    )
    assert (bb1.box_over_minor, bb1.box_short_minor) == (None, -200)
    assert (mb1.current_shoe_sequence, mb1.current_shoe_coups, mb1.coups_today, mb1.open_violations) == (
        1,
        7,
        7,
        7,
    )
    assert (mb1.box_over_minor, mb1.box_short_minor) == (None, None)
    assert (mb2.current_shoe_id, mb2.coups_today, mb2.open_violations) == (None, 0, 0)
    html = response.content.decode()
    assert '5 coups · <span title="cards left before the cut card">358 to the cut</span>' in html
    assert "-$2.00" in html
    assert reverse("admin:shoes_shoe_change", args=[pit.shoe2.pk]) in html


def test_table_list_counts_only_the_current_gaming_day(pit):
    from pit.shoes.models import Coup

    rewrite(Coup.objects.filter(shoe=pit.shoe1), gaming_day="2020-01-01")
    assert tables_for_floor().get(code="BB1").coups_today == 5


@pytest.mark.parametrize(
    ("column", "first"), [("-coups_today", "BB1"), ("coups_today", "MB2"), ("-open_violations", "MB1")]
)
def test_table_list_sorts_by_the_floor_figures(admin_client, pit, column, first):
    index = [
        "code",
        "name",
        "status_badge",
        "game",
        "paytable",
        "current_shoe",
        "shoe_progress",
        "coups_today",
        "open_violations",
        "box_over",
        "box_short",
    ].index(column.lstrip("-")) + 1
    order = f"-{index}" if column.startswith("-") else str(index)
    response = admin_client.get(reverse("admin:tables_table_changelist"), {"o": order})
    assert response.context["cl"].result_list[0].code == first


def test_violation_queue_lists_open_first(admin_client, pit, pit_boss):
    from pit.compliance.models import RuleViolation
    from pit.compliance.services import violation_dismiss

    newest = RuleViolation.objects.order_by("-found_at", "-id").first()
    violation_dismiss(violation=newest, user=pit_boss, note="a test")
    response = admin_client.get(reverse("admin:compliance_ruleviolation_changelist"))
    statuses = [violation.status for violation in response.context["cl"].result_list]
    assert statuses == ["open"] * 8 + ["dismissed"]


@pytest.mark.parametrize(
    ("name", "query", "rows"),
    [
        ("shoes_coup", {"winner__exact": "tie"}, 3),
        ("shoes_coup", {"q": "MB1"}, 7),
        ("compliance_ruleviolation", {"code": "banker_extra_card"}, 1),
        ("compliance_ruleviolation", {"cleared": "yes"}, 0),
        ("ledger_commissionentry", {"kind__exact": "accrued"}, 3),
        ("ledger_commissionentry", {"seat": "1"}, 3),
        ("tables_table", {"status__exact": "closed"}, 1),
        ("tables_table", {"q": "MB"}, 2),
    ],
)
def test_filters_and_search(admin_client, pit, name, query, rows):
    response = admin_client.get(reverse(f"admin:{name}_changelist"), query)
    assert response.status_code == 200
    assert response.context["cl"].result_count == rows


def test_gaming_day_filter(admin_client, pit):
    from pit.core.gaming_day import current_gaming_day

    today = current_gaming_day().isoformat()
    for name, rows in (
        ("shoes_coup", 15),
        ("compliance_ruleviolation", 9),
        ("ledger_reconciliation", 1),
        ("ledger_boxcount", 2),
    ):
        response = admin_client.get(reverse(f"admin:{name}_changelist"), {"gaming_day": today})
        assert response.context["cl"].result_count == rows, name
        response = admin_client.get(reverse(f"admin:{name}_changelist"), {"gaming_day": "2020-01-01"})
        assert response.context["cl"].result_count == 0, name
    response = admin_client.get(reverse("admin:shoes_coup_changelist"), {"gaming_day": "not-a-day"})
    assert response.status_code == 200
    assert response.context["cl"].result_count == 0


def test_bulk_delete_is_off_everywhere(admin_client, pit):
    for name, _, _ in CHANGELISTS:
        response = admin_client.get(reverse(f"admin:{name}_changelist"))
        form = response.context["action_form"]
        actions = [choice for choice, _ in form.fields["action"].choices] if form is not None else []
        assert "delete_selected" not in actions, name


def test_boxes_over_and_short_apart_by_the_shoes_gaming_day(admin_client, pit, django_capture_on_commit_callbacks):
    """+2.50 at one seat and -2.50 at another are shown as such, not as 0.00; a shoe whose coups
    were dealt on an earlier gaming day is not today's, even when reconciled today; a table with
    no commission box shows "—", not $0.00."""
    import datetime as dt

    from django.utils import timezone

    from tests.admin.conftest import BANKER_WINS, deal

    table = f.table("BX1")
    with django_capture_on_commit_callbacks(execute=True):
        today = f.shoe(table)
        deal(today, 1, BANKER_WINS, wagers=[f.wager(1, "banker", "50"), f.wager(2, "banker", "50")])
        shoe_close(shoe=today, box_counts=[(1, Decimal("5.00")), (2, Decimal("0"))])
    yesterday = timezone.now() - dt.timedelta(days=1)
    with django_capture_on_commit_callbacks(execute=True):
        older = f.shoe(f.table("BX2"), shuffled_at=yesterday - dt.timedelta(minutes=5))
        deal(older, 1, BANKER_WINS, wagers=[f.wager(1, "banker", "50")], dealt_at=yesterday)
        shoe_close(shoe=older, box_counts=[(1, Decimal("9.00"))])
    figures = {row.code: (row.box_over_minor, row.box_short_minor) for row in tables_for_floor()}
    assert figures["BX1"] == (250, -250)
    assert figures["BX2"] == (None, None)
    response = admin_client.get(reverse("admin:tables_table_changelist"))
    html = response.content.decode()
    assert "box over, today&#x27;s shoes" in html.lower() and "box short, today&#x27;s shoes" in html.lower()
    rows = re.findall(r"<tr>.*?</tr>", html, re.S)
    bx1 = next(row for row in rows if ">BX1<" in row)
    assert "$2.50" in bx1 and "-$2.50" in bx1
    mb1 = next(row for row in rows if ">MB1<" in row)
    assert mb1.count('<span title="no commission box at this table">—</span>') == 2


def test_open_violations_agree_on_the_dashboard_the_table_list_and_the_violation_list(admin_client, pit):
    """A violation a re-check cleared is not open anywhere; today's and earlier ones apart."""
    from django.utils import timezone

    from pit.compliance.models import RuleViolation
    from pit.compliance.selectors import OPEN_LIST_QUERY
    from pit.dashboard.selectors import pit_overview

    cleared = RuleViolation.objects.filter(table=pit.mb1, status="open").order_by("pk").first()
    RuleViolation.objects.filter(pk=cleared.pk).update(cleared_at=timezone.now())
    floor = tables_for_floor().get(code="MB1")
    tile = next(tile for tile in pit_overview()["tables"] if tile["code"] == "MB1")
    listed = (
        admin_client.get(
            reverse("admin:compliance_ruleviolation_changelist"), {"table__id__exact": pit.mb1.pk, **OPEN_LIST_QUERY}
        )
        .context["cl"]
        .result_count
    )
    assert floor.open_violations == tile["open_violations"] == listed == 6
    assert floor.open_violations_today == tile["open_violations_today"] == 6


def test_commission_entry_page_does_not_join_the_wagers(admin_client, pit):
    """The page's SELECT joins no wager partition and sorts by the recorded_at index (newest first);
    the wagers are read for the page's rows alone, by their ids."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from pit.ledger.models import CommissionEntry

    with CaptureQueriesContext(connection) as captured:
        response = admin_client.get(reverse("admin:ledger_commissionentry_changelist"))
    assert response.status_code == 200
    page = [q["sql"] for q in captured.captured_queries if q["sql"].startswith('SELECT "ledger_commissionentry"."id"')]
    assert len(page) == 1
    assert "shoes_wager" not in page[0]
    assert 'ORDER BY "ledger_commissionentry"."recorded_at" DESC, "ledger_commissionentry"."id" DESC' in page[0]
    wagers = [q["sql"] for q in captured.captured_queries if q["sql"].startswith('SELECT "shoes_wager"')]
    assert len(wagers) == 1
    rows = response.context["cl"].result_list
    expected = list(CommissionEntry.objects.order_by("-recorded_at", "-id").values_list("pk", flat=True))
    assert [row.pk for row in rows] == expected
    assert len(rows) == 5
