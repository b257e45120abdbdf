"""Every changelist of the back-office in a fixed number of queries (several rows of each model are
present, so an N+1 would add queries), and the table list's floor figures exactly."""

import pytest
from django.urls import reverse

from pit.accounts.services import device_create
from pit.tables.admin import tables_for_floor
from tests.facts import rewrite

# (admin URL name, rows in the pit fixture, queries for a superuser's request). The queries: the
# session, the user, the page's count, its rows, and per list filter or date hierarchy that lists
# values from the database one more (a fixed number whatever the number of rows).
CHANGELISTS = [
    ("tables_table", 3, 4),
    ("shoes_shoe", 3, 7),
    ("shoes_coup", 15, 7),
    ("compliance_ruleviolation", 9, 9),
    ("ledger_commissionentry", 5, 9),
    ("ledger_boxcount", 2, 9),
    ("ledger_reconciliation", 1, 8),
    ("paytables_paytableconfiguration", 2, 8),
    ("accounts_device", 3, 7),
]


@pytest.fixture
def devices(pit):
    return [
        device_create(table=table, name=f"reader {n}")[0]
        for n, table in enumerate([pit.bb1, pit.bb1, pit.mb1])
    ]


@pytest.mark.parametrize(("name", "rows", "queries"), CHANGELISTS, ids=[c[0] for c in CHANGELISTS])
def test_changelist_queries_are_fixed(
    admin_client, pit, devices, django_assert_num_queries, name, rows, queries
):
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
    assert bb1.commission_variance_minor == -200
    assert (mb1.current_shoe_sequence, mb1.current_shoe_coups, mb1.coups_today, mb1.open_violations) == (
        1,
        7,
        7,
        7,
    )
    assert mb1.commission_variance_minor is None
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
        "commission_variance",
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


def test_commission_variance_falls_back_to_the_last_reconciled_shoe(pit):
    import datetime as dt

    from django.utils import timezone

    from pit.ledger.models import Reconciliation

    rewrite(Reconciliation.objects.all(), reconciled_at=timezone.now() - dt.timedelta(days=3))
    figures = {table.code: table.commission_variance_minor for table in tables_for_floor()}
    assert figures == {"BB1": -200, "MB1": None, "MB2": None}
