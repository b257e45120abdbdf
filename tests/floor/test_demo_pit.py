"""`manage.py demo_pit`: a demo pit with staff, seven tables and a few gaming days of play, once."""

from io import StringIO

from django.contrib.auth import authenticate
from django.core.management import call_command

from pit.accounting.models import DropCount, InventoryCount
from pit.accounts.models import Device
from pit.accounts.services import device_authenticate
from pit.cash.models import CashFinding, CashTransaction
from pit.compliance.models import RuleViolation
from pit.core.gaming_day import current_gaming_day
from pit.floor.demo import LOGINS
from pit.ledger.models import Reconciliation, ReconciliationStatus
from pit.players.models import SeatSession
from pit.shoes.models import Coup, Shoe, ShoeStatus
from pit.tables.models import Table, TableStatus

PATTERNS = {"structuring", "minimal_gaming", "chip_walking", "cash_out_for_other"}


def test_demo_pit_sets_up_a_living_pit_once_and_prints_the_logins(db, django_capture_on_commit_callbacks):
    out = StringIO()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("demo_pit", "--port", "8765", stdout=out)
    text = out.getvalue()

    for login in LOGINS:
        assert f"{login.username} / {login.password}" in text
        user = authenticate(username=login.username, password=login.password)
        assert user is not None and user.is_staff
        assert user.is_superuser == (login.role == "superuser")
        if login.role != "superuser":
            assert list(user.groups.values_list("name", flat=True)) == [login.role]
    assert "http://127.0.0.1:8765/admin/" in text
    assert "http://127.0.0.1:8765/admin/pit/dashboard/" in text

    tables = Table.objects.order_by("code")
    assert [t.code for t in tables] == ["BB1", "BB2", "LD1", "MD1", "MN1", "MN2", "TG1"]
    assert {t.game for t in tables} == {"big", "midi", "mini"}
    assert {t.paytable.preset for t in tables} == {
        "commission_box",
        "commission_deducted",
        "no_commission",
        "mini_commission_box",
        "ez_baccarat",
        "live_side_bets",
        "tiger",
    }
    assert all(t.status == TableStatus.OPEN and t.limits.exists() for t in tables)
    assert Device.objects.count() == 7
    key = text.split("--key ", 1)[1].split()[0]
    assert device_authenticate(key=key).table.code == "BB1"
    # Three gaming days of play ending today, a shoe dealing at every table for the dashboard.
    days = sorted(set(Coup.objects.values_list("gaming_day", flat=True)))
    assert len(days) == 3 and days[-1] == current_gaming_day()
    assert Shoe.objects.filter(status=ShoeStatus.DEALING).count() == 7
    assert Shoe.objects.filter(status=ShoeStatus.CLOSED).count() == 42
    # Table accounting: both finished days counted at every table, today's opening trays only.
    assert InventoryCount.objects.filter(kind="closer").count() == 14
    assert InventoryCount.objects.filter(kind="opener").count() == 21
    assert DropCount.objects.count() == 14
    # A few violations to review and at least one commission variance to explain, no more.
    violations = RuleViolation.objects.count()
    assert 5 <= violations <= 80
    assert Reconciliation.objects.filter(status=ReconciliationStatus.VARIANCE).exists()
    assert Reconciliation.objects.filter(status=ReconciliationStatus.BALANCED).count() >= 20
    # The club's cash: the structurer and the minimal gamer found, the high rollers' CTR worksheets.
    findings = {
        (f.kind, f.patron.card_number)
        for f in CashFinding.objects.filter(patron__isnull=False).select_related("patron")
    }
    assert {("structuring", "P-00004"), ("minimal_gaming", "P-00005")} <= findings
    assert {card for kind, card in findings if kind in PATTERNS} == {"P-00004", "P-00005"}
    assert {"P-00002", "P-00003"} <= {card for kind, card in findings if kind == "ctr"}
    assert CashTransaction.objects.filter(kind="chip_redemption", table__isnull=True).exists()
    coups = Coup.objects.count()

    again = StringIO()
    call_command("demo_pit", stdout=again)
    assert "keeping its data" in again.getvalue()
    assert "pitboss / pitboss-demo-pit" in again.getvalue()
    assert Coup.objects.count() == coups
    assert RuleViolation.objects.count() == violations
    assert SeatSession.objects.filter(patron__isnull=False).exists()  # the player club is seated
