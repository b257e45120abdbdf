"""Roles are Django groups holding exactly the permissions of pit.accounts.roles (least privilege)."""

import importlib

import pytest
from django.apps import apps
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.db.migrations.loader import MigrationLoader

from pit.accounts.models import Role
from pit.accounts.roles import ROLES, RUN_REPORTS, roles_frozen
from pit.accounts.services import user_create_with_role

pytestmark = pytest.mark.django_db


def group_permissions(name: str) -> set[str]:
    return {
        f"{app_label}.{codename}"
        for app_label, codename in Group.objects.get(name=name).permissions.values_list(
            "content_type__app_label", "codename"
        )
    }


@pytest.mark.parametrize("role", Role.values)
def test_each_group_holds_exactly_its_role(role):
    assert group_permissions(role) == set(ROLES[role])


def test_the_groups_are_the_roles():
    assert set(Group.objects.values_list("name", flat=True)) >= set(Role.values)
    assert set(ROLES) == set(Role.values)


def test_floor_devices_hold_no_admin_permission():
    assert group_permissions(Role.FLOOR_DEVICE) == set()


def test_the_latest_roles_migration_matches_roles_py():
    """A change to roles.py needs a new data migration with its frozen copy."""
    loader = MigrationLoader(None, ignore_no_migrations=True)
    names = sorted(name for app, name in loader.disk_migrations if app == "accounts" and "roles" in name)
    latest = importlib.import_module(f"pit.accounts.migrations.{names[-1]}")
    assert roles_frozen() == latest.ROLES


def test_nobody_adds_or_deletes_and_auditors_only_view():
    for role, permissions in ROLES.items():
        assert not {p for p in permissions if p.split(".")[1].startswith(("add_", "delete_"))}, role
    assert {p for p in ROLES[Role.AUDITOR] if not p.split(".")[1].startswith("view_")} == {RUN_REPORTS}


def test_what_pit_bosses_and_accountants_may_change():
    changes = {role: {p for p in perms if ".change_" in p} for role, perms in ROLES.items()}
    assert changes == {
        Role.PIT_BOSS: {"tables.change_table", "compliance.change_ruleviolation"},
        Role.ACCOUNTANT: {"ledger.change_reconciliation"},
        Role.AUDITOR: set(),
        Role.CAGE: set(),
        Role.HOST: set(),
        Role.COMPLIANCE: set(),
        Role.SURVEILLANCE: set(),
        Role.FLOOR_DEVICE: set(),
    }
    assert RUN_REPORTS in ROLES[Role.ACCOUNTANT]
    assert RUN_REPORTS not in ROLES[Role.PIT_BOSS]
    # Corrections and voids of coups: pit bosses only (and floor devices, over the API, by key).
    assert {role for role, perms in ROLES.items() if "shoes.correct_coup" in perms} == {Role.PIT_BOSS}


def test_only_auditors_see_the_audit_trail_and_devices():
    for role in (Role.PIT_BOSS, Role.ACCOUNTANT):
        assert not {p for p in ROLES[role] if "auditevent" in p or p.startswith("pghistory.")}, role
        assert "accounts.view_device" not in ROLES[role]


def test_auditors_view_every_model_of_the_pit():
    """Every model of a pit app with a view permission (a new model needs a roles migration)."""
    expected = {
        f"{model._meta.app_label}.view_{model._meta.model_name}"
        for model in apps.get_models()
        if model.__module__.startswith("pit.")
        and "view" in model._meta.default_permissions
        and model._meta.label != "accounts.AuditedUser"  # the users table itself: its changes are UserAuditEvent
    }
    assert expected - set(ROLES[Role.AUDITOR]) == set()


def test_personal_data_of_patrons_only_to_the_roles_that_deal_with_the_person():
    personal = "players.view_patron_personal"
    assert {role for role, perms in ROLES.items() if personal in perms} == {Role.PIT_BOSS, Role.HOST, Role.COMPLIANCE}
    assert "players.view_patron" in ROLES[Role.AUDITOR]  # card numbers only
    host = ROLES[Role.HOST]
    assert {"players.record_patron", "players.view_seatsession"} <= host
    assert not {p for p in host if p.split(".")[0] in ("ledger", "accounting", "shoes")}
    assert {role for role, perms in ROLES.items() if "players.record_exclusion" in perms} == {Role.PIT_BOSS}


def test_cash_findings_are_compliances_and_the_cage_records_the_cages_cash():
    assert {role for role, perms in ROLES.items() if "cash.review_cashfinding" in perms} == {Role.COMPLIANCE}
    assert {role for role, perms in ROLES.items() if "cash.record_cashtransaction" in perms} == {Role.CAGE}
    assert {role for role, perms in ROLES.items() if "cash.record_cashrules" in perms} == {Role.COMPLIANCE}
    assert "players.view_patron_personal" not in ROLES[Role.CAGE]


def test_user_create_with_role(django_user_model):
    user = user_create_with_role(username="maria", password="a-long-pass-phrase", role="accountant", email="m@x.io")
    user = django_user_model.objects.get(pk=user.pk)
    assert (user.username, user.email, user.is_staff, user.is_superuser) == ("maria", "m@x.io", True, False)
    assert user.check_password("a-long-pass-phrase")
    assert list(user.groups.values_list("name", flat=True)) == ["accountant"]
    assert user.has_perm("ledger.change_reconciliation")
    assert user.has_perm(RUN_REPORTS)
    assert not user.has_perm("tables.change_table")
    assert user.get_all_permissions() == set(ROLES[Role.ACCOUNTANT])


def test_pit_boss_user_permissions():
    user = user_create_with_role(username="boss", password="a-long-pass-phrase", role=Role.PIT_BOSS)
    assert user.has_perm("tables.change_table")
    assert user.has_perm("compliance.change_ruleviolation")
    assert not user.has_perm("tables.add_table")
    assert not user.has_perm("compliance.delete_ruleviolation")
    assert not user.has_perm("ledger.change_reconciliation")
    assert not user.has_perm(RUN_REPORTS)


@pytest.mark.parametrize(
    ("username", "role", "field"),
    [
        ("sam", "croupier", "role"),
        ("sam", "floor device", "role"),
        ("", "auditor", "username"),
        ("bad name!", "auditor", "username"),
    ],
)
def test_user_create_with_role_refuses_bad_input(django_user_model, username, role, field):
    with pytest.raises(ValidationError) as caught:
        user_create_with_role(username=username, password="a-long-pass-phrase", role=role)
    assert field in caught.value.message_dict
    assert django_user_model.objects.count() == 0


def test_user_create_with_role_refuses_a_taken_username(django_user_model):
    user_create_with_role(username="sam", password="a-long-pass-phrase", role="auditor")
    with pytest.raises(ValidationError) as caught:
        user_create_with_role(username="sam", password="another-long-phrase", role="pit boss")
    assert list(caught.value.message_dict) == ["username"]
    assert django_user_model.objects.get().groups.get().name == "auditor"


def test_surveillance_sees_the_floor_and_acknowledges_only():
    """Surveillance: the floor as it happens and what the pit tells it; no ledger, staff or accounts."""
    perms = ROLES[Role.SURVEILLANCE]
    assert {p for p in perms if not p.split(".")[1].startswith("view_")} == {
        "notices.acknowledge_surveillancenotification"
    }
    assert not {p for p in perms if p.startswith(("ledger.", "accounts.", "pghistory.", "dealers."))}
    assert "notices.view_regulatornotice" not in perms
    assert "notices.acknowledge_surveillancenotification" not in ROLES[Role.PIT_BOSS]
