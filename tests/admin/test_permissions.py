"""Who may do what in the back-office: role x page x action, default deny.

Every admin page (changelist, change, add, delete) of the pit's models and of users and groups is
requested by each role; what is not listed in ALLOWED must be refused (403 for staff, a redirect
to the login page for an anonymous visitor). Actions likewise: each role sees and runs exactly
the actions listed in ACTIONS. The roles are `pit.accounts.roles` (Django groups).
"""

from decimal import Decimal

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.urls import reverse

from pit.accounting.models import (
    Adjustment,
    DeviceGrant,
    DropCount,
    GamingDayEvent,
    HoldFinding,
    HoldFlag,
    InventoryCount,
    Slip,
    SlipStep,
)
from pit.accounting.services import adjustment_record, drop_record, inventory_record, slip_issue, slip_request
from pit.accounts.models import Device, Role
from pit.accounts.services import device_create
from pit.compliance.models import RuleViolation
from pit.core.actors import Actor
from pit.dealers.models import Dealer, DealerRotation, ViolationFault
from pit.dealers.services import dealer_create, dealer_rotate, violation_attribute
from pit.ledger.models import BoxCount, CommissionEntry, Reconciliation
from pit.paytables.models import PaytableConfiguration
from pit.shoes.models import Coup, CoupCorrection, Shoe
from pit.shoes.services import shoe_close
from pit.tables.models import Table
from tests import factories as f
from tests.admin.conftest import BANKER_WINS, make_user

ANONYMOUS = "anonymous"
ROLES = [
    Role.PIT_BOSS.value,
    Role.ACCOUNTANT.value,
    Role.AUDITOR.value,
    Role.CAGE.value,
    Role.FLOOR_DEVICE.value,
    ANONYMOUS,
]
PAGES = ("changelist", "change", "add", "delete")
MODELS = {
    "tables_table": Table,
    "shoes_shoe": Shoe,
    "shoes_coup": Coup,
    "compliance_ruleviolation": RuleViolation,
    "ledger_commissionentry": CommissionEntry,
    "ledger_boxcount": BoxCount,
    "ledger_reconciliation": Reconciliation,
    "paytables_paytableconfiguration": PaytableConfiguration,
    "accounts_device": Device,
    "accounting_inventorycount": InventoryCount,
    "accounting_slip": Slip,
    "accounting_slipstep": SlipStep,
    "accounting_dropcount": DropCount,
    "accounting_devicegrant": DeviceGrant,
    "dealers_dealer": Dealer,
    "dealers_dealerrotation": DealerRotation,
    "dealers_violationfault": ViolationFault,
    "accounting_holdflag": HoldFlag,
    "accounting_holdfinding": HoldFinding,
    "accounting_gamingdayevent": GamingDayEvent,
    "accounting_adjustment": Adjustment,
    "auth_user": get_user_model(),
    "auth_group": Group,
}
_DEALERS = {"dealers_dealer", "dealers_dealerrotation", "dealers_violationfault"}
_FLOOR_AND_LEDGER = {
    "tables_table",
    "shoes_shoe",
    "shoes_coup",
    "compliance_ruleviolation",
    "ledger_commissionentry",
    "ledger_boxcount",
    "ledger_reconciliation",
    "paytables_paytableconfiguration",
}
_ACCOUNTING = {
    "accounting_inventorycount",
    "accounting_slip",
    "accounting_slipstep",
    "accounting_dropcount",
    "accounting_holdflag",
    "accounting_holdfinding",
    "accounting_gamingdayevent",
    "accounting_adjustment",
}
# (role, admin page) -> allowed; everything else is denied. Nobody but a superuser adds or deletes,
# except table accounting's facts, whose "add" page records one through its service.
ALLOWED = {
    (role, model, page)
    for role, models in {
        Role.PIT_BOSS.value: _FLOOR_AND_LEDGER | _ACCOUNTING | _DEALERS,
        Role.ACCOUNTANT.value: _FLOOR_AND_LEDGER | _ACCOUNTING,
        Role.AUDITOR.value: _FLOOR_AND_LEDGER | _ACCOUNTING | _DEALERS | {"accounts_device", "accounting_devicegrant"},
        Role.CAGE.value: {"tables_table", "accounting_slip", "accounting_slipstep"},
    }.items()
    for model in models
    for page in ("changelist", "change")
} | {
    (role, model, "add")
    for role, models in {
        Role.PIT_BOSS.value: {"accounting_inventorycount", "accounting_slip", "accounting_slipstep"}
        # Pit bosses record who comes in at a table and whose fault a violation was (through the services).
        | {"dealers_dealerrotation", "dealers_violationfault"},
        Role.ACCOUNTANT.value: {
            "accounting_dropcount",
            "accounting_holdfinding",
            "accounting_gamingdayevent",
            "accounting_adjustment",
        },
        Role.CAGE.value: {"accounting_slipstep"},
    }.items()
    for model in models
}
# (admin page, action) -> the roles that may run it.
ACTIONS = {
    ("tables_table", "open_tables"): {Role.PIT_BOSS.value},
    ("tables_table", "close_tables"): {Role.PIT_BOSS.value},
    ("compliance_ruleviolation", "acknowledge_with_note"): {Role.PIT_BOSS.value},
    ("compliance_ruleviolation", "resolve_with_note"): {Role.PIT_BOSS.value},
    ("compliance_ruleviolation", "dismiss_with_note"): {Role.PIT_BOSS.value},
    ("ledger_reconciliation", "explain_variance_with_note"): {Role.ACCOUNTANT.value},
    ("shoes_coup", "correct_wagers"): {Role.PIT_BOSS.value},
    ("shoes_coup", "void_with_note"): {Role.PIT_BOSS.value},
    ("accounts_device", "revoke"): set(),
}


@pytest.fixture
def floor(db, django_capture_on_commit_callbacks):
    """One row of every model: a shoe closed with a short box (a reconciliation and a violation)."""
    with django_capture_on_commit_callbacks(execute=True):
        table = f.table("BB1")
        shoe = f.shoe(table)
        f.coup(shoe, 1, *BANKER_WINS, wagers=[f.wager(1, "banker", "100")])
        shoe_close(shoe=shoe, box_counts=[(1, Decimal("4.00"))])
        device, _ = device_create(table=table, name="shoe reader")
        DeviceGrant.objects.create(device=device, scope="cage")
        signers = [make_user(Role.PIT_BOSS.value, username=name) for name in ("signer_a", "signer_b")]
        day = shoe.coups.first().gaming_day
        inventory_record(
            table=table,
            gaming_day=day,
            kind="opener",
            chips={"2500": 4},
            dealer=signers[0],
            pit_boss=signers[1],
            actor=Actor(),
        )
        slip = slip_request(
            kind="fill", number="F-1", table=table, gaming_day=day, reason="low", chips={"2500": 4}, actor=Actor()
        )
        slip_issue(slip=slip, chips={"2500": 4}, actor=Actor())
        drop_record(table=table, gaming_day=day, cash={"10000": 2}, actor=Actor())
        flag = HoldFlag.objects.create(
            table=table,
            gaming_day=day,
            rule="points 3",
            win_minor=1,
            drop_minor=2,
            hold_percent=50,
            low_percent=10,
            high_percent=20,
            currency="USD",
        )
        HoldFinding.objects.create(flag=flag, text="recounted", written_by=signers[0])
        dealer = dealer_create(code="D042", name="Ana Lima")
        dealer_rotate(table=table, dealer=dealer, started_at=shoe.shuffled_at)  # before its day closes
        GamingDayEvent.objects.create(gaming_day=day, action="closed", by=signers[0])
        adjustment_record(
            table=table, gaming_day=day, figure="drop", amount_minor=500, reason="late box", actor=Actor()
        )
    violation_attribute(
        violation=RuleViolation.objects.get(),
        fault="device",
        note="reader misread the box",
        user=get_user_model().objects.create_superuser(username="boss", password="a-long-password-0123"),
    )
    get_user_model().objects.create_user(username="clerk", password="a-long-password-0123", is_staff=True)
    assert RuleViolation.objects.count() == 1 and Reconciliation.objects.count() == 1
    return {name: model.objects.order_by("pk").first() for name, model in MODELS.items()}


def login_as(client, role):
    if role != ANONYMOUS:
        client.force_login(make_user(role, username=f"the {role}".replace(" ", "_")))


def page_url(name, page, obj):
    if page in ("changelist", "add"):
        return reverse(f"admin:{name}_{page}")
    return reverse(f"admin:{name}_{page}", args=[obj.pk])


def expected_status(role, name, page):
    if role == ANONYMOUS:
        return 302
    return 200 if (role, name, page) in ALLOWED else 403


@pytest.mark.parametrize("role", ROLES)
def test_pages_by_role(client, floor, role):
    login_as(client, role)
    actual, expected = {}, {}
    for name in MODELS:
        for page in PAGES:
            response = client.get(page_url(name, page, floor[name]))
            actual[name, page] = response.status_code
            expected[name, page] = expected_status(role, name, page)
            if response.status_code == 302:
                assert response["Location"].startswith(reverse("admin:login")), (name, page)
    assert actual == expected


@pytest.mark.parametrize("role", ROLES)
def test_index_by_role(client, db, role):
    login_as(client, role)
    response = client.get(reverse("admin:index"))
    assert response.status_code == (302 if role == ANONYMOUS else 200)


@pytest.mark.parametrize("role", ROLES)
def test_actions_offered_by_role(client, floor, role):
    login_as(client, role)
    offered, expected = {}, {}
    for (name, action), roles in ACTIONS.items():
        response = client.get(reverse(f"admin:{name}_changelist"))
        form = response.context["action_form"] if response.status_code == 200 else None
        choices = {choice for choice, _ in form.fields["action"].choices} if form is not None else set()
        offered[name, action] = action in choices
        expected[name, action] = role in roles
    assert offered == expected


@pytest.mark.parametrize("role", ROLES)
def test_actions_refused_change_nothing(client, floor, role):
    """Running every action a role may not run leaves every row as it was."""
    login_as(client, role)
    before = _state()
    for (name, action), roles in ACTIONS.items():
        if role in roles:
            continue
        client.post(
            reverse(f"admin:{name}_changelist"),
            {
                "action": action,
                ACTION_CHECKBOX_NAME: [floor[name].pk],
                "post": "yes",
                "note": "a note",
                "reason": "a reason",
                "wagers": "1 banker 200.00",
            },
        )
    assert _state() == before


@pytest.mark.parametrize("role", ROLES)
def test_violation_review_form_by_role(client, floor, role):
    login_as(client, role)
    violation = floor["compliance_ruleviolation"]
    url = reverse("admin:compliance_ruleviolation_review", args=[violation.pk])
    response = client.post(url, {"decision": "acknowledge", "note": "seen"})
    violation.refresh_from_db()
    if role == Role.PIT_BOSS.value:
        assert (response.status_code, violation.status) == (302, "acknowledged")
    else:
        assert response.status_code == (302 if role == ANONYMOUS else 403)
        assert violation.status == "open"


@pytest.mark.parametrize("role", ROLES)
def test_reconciliation_explanation_form_by_role(client, floor, role):
    login_as(client, role)
    reconciliation = floor["ledger_reconciliation"]
    url = reverse("admin:ledger_reconciliation_explain", args=[reconciliation.pk])
    response = client.post(url, {"note": "recounted"})
    reconciliation.refresh_from_db()
    if role == Role.ACCOUNTANT.value:
        assert (response.status_code, reconciliation.status) == (302, "explained")
    else:
        assert response.status_code == (302 if role == ANONYMOUS else 403)
        assert reconciliation.status == "variance"


def _state():
    return (
        sorted(Table.objects.values_list("code", "status")),
        sorted(RuleViolation.objects.values_list("pk", "status", "status_note")),
        sorted(Reconciliation.objects.values_list("pk", "status", "explanation")),
        sorted(Device.objects.values_list("pk", "revoked_at")),
        sorted(CoupCorrection.objects.values_list("pk", flat=True)),
    )
