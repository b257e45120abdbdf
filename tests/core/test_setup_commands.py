"""Setting up a pit without a Python shell: create_paytable, create_table, create_user."""

from decimal import Decimal
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError

from pit.paytables.models import PaytableConfiguration
from pit.tables.models import Table, TableStatus

pytestmark = pytest.mark.django_db


def run(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out, stderr=StringIO())
    return out.getvalue().strip()


def test_create_paytable_from_a_preset_prints_its_code():
    assert run("create_paytable", "--preset", "commission_box") == "commission-box"

    paytable = PaytableConfiguration.objects.get()
    assert (paytable.code, paytable.version, paytable.preset) == ("commission-box", 1, "commission_box")
    assert paytable.house_edges["banker"]


def test_create_paytable_names_the_presets_when_the_preset_is_unknown():
    with pytest.raises(CommandError, match=r"^preset: 'punto' is not a preset; choose one of .*commission_19_20, "):
        run("create_paytable", "--preset", "punto")
    assert not PaytableConfiguration.objects.exists()


def test_create_table_with_seats_limits_and_open():
    run("create_paytable", "--preset", "commission_box")

    code = run(
        "create_table",
        "--code",
        "MB1",
        "--game",
        "midi",
        "--paytable",
        "commission-box",
        "--seats",
        "1,2,3,5",
        "--limit",
        "banker=25:5000",
        "--limit",
        "player=25:5000",
        "--open",
    )

    table = Table.objects.get(code=code)
    assert (table.game, table.seats, table.status) == ("midi", [1, 2, 3, 5], TableStatus.OPEN)
    assert table.paytable.code == "commission-box"
    assert {(limit.bet, limit.minimum_minor, limit.maximum_minor) for limit in table.limits.all()} == {
        ("banker", 2500, 500000),
        ("player", 2500, 500000),
    }


def test_create_table_uses_the_current_version_of_the_paytable():
    run("create_paytable", "--preset", "no_commission", "--code", "house")
    first = PaytableConfiguration.objects.get()
    second = PaytableConfiguration.objects.create(
        code="house", version=2, name="House v2", rules=first.rules, supersedes=first
    )

    run("create_table", "--code", "MN1", "--game", "mini", "--paytable", "house")

    assert Table.objects.get(code="MN1").paytable == second


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--paytable", "nope"], r"^--paytable: there is no paytable 'nope' \(known: commission-box\)\.$"),
        (["--seats", "1,x"], r"^Error: argument --seats: '1,x' is not a list of seat numbers"),
        (["--seats", "1,٣"], r"^Error: argument --seats: '1,٣' is not a list of seat numbers"),
        (["--limit", "banker=²:5"], r"^Error: argument --limit: 'banker=²:5' is not BET=MIN:MAX"),
        (["--limit", "banker=25"], r"^Error: argument --limit: 'banker=25' is not BET=MIN:MAX"),
        (["--limit", "dragon_7=1:2"], r"^limits: 'dragon_7' is not a bet of the paytable "),
        (["--limit", "banker=50:25"], r"^limits: banker: the minimum must be positive and at most the maximum\.$"),
    ],
)
def test_create_table_refuses_bad_input_in_one_line_and_writes_nothing(args, message):
    run("create_paytable", "--preset", "commission_box")
    base = {"--code": "BB1", "--game": "big", "--paytable": "commission-box"}
    for flag in args[::2]:
        base.pop(flag, None)
    argv = [item for pair in base.items() for item in pair] + args

    with pytest.raises(CommandError, match=message):
        run("create_table", *argv)
    assert not Table.objects.exists()


def test_create_table_refuses_a_second_table_with_the_same_code():
    run("create_paytable", "--preset", "commission_box")
    run("create_table", "--code", "BB1", "--game", "big", "--paytable", "commission-box")

    with pytest.raises(CommandError, match=r"^code: Table with this Code already exists\.$"):
        run("create_table", "--code", "BB1", "--game", "mini", "--paytable", "commission-box")
    assert Table.objects.get().game == "big"


def test_create_user_with_a_role_reads_the_password_from_the_environment(monkeypatch):
    monkeypatch.setenv("PIT_NEW_USER_PASSWORD", "a-long-pass-phrase-for-the-floor")

    assert run("create_user", "--username", "maria", "--role", "pit boss") == "maria"

    user = get_user_model().objects.get(username="maria")
    assert user.is_staff and not user.is_superuser
    assert list(user.groups.values_list("name", flat=True)) == ["pit boss"]
    assert user.check_password("a-long-pass-phrase-for-the-floor")


def test_create_user_refuses_a_weak_password_and_an_existing_user(monkeypatch):
    monkeypatch.setenv("PIT_NEW_USER_PASSWORD", "12345678")
    with pytest.raises(CommandError, match=r"This password is too common\."):
        run("create_user", "--username", "maria", "--role", "accountant")
    assert not get_user_model().objects.exists()

    monkeypatch.setenv("PIT_NEW_USER_PASSWORD", "a-long-pass-phrase-for-the-floor")
    run("create_user", "--username", "maria", "--role", "accountant")
    with pytest.raises(CommandError, match=r"^--username: a user 'maria' exists already\.$"):
        run("create_user", "--username", "maria", "--role", "auditor")


def test_create_user_without_a_terminal_or_password_says_how(monkeypatch):
    monkeypatch.delenv("PIT_NEW_USER_PASSWORD", raising=False)
    monkeypatch.setattr("sys.stdin", StringIO(""))

    with pytest.raises(CommandError, match=r"^No password: run it at a terminal to be asked, or set PIT_NEW_USER_"):
        run("create_user", "--username", "maria", "--role", "auditor")
    assert not get_user_model().objects.exists()


def test_create_user_refuses_the_floor_device_role():
    with pytest.raises(CommandError, match=r"invalid choice: 'floor device'"):
        run("create_user", "--username", "reader", "--role", "floor device")


def test_decimal_limits_keep_cents():
    run("create_paytable", "--preset", "commission_box")
    run("create_table", "--code", "BB2", "--game", "big", "--paytable", "commission-box", "--limit", "tie=12.50:500")
    limit = Table.objects.get(code="BB2").limits.get()
    assert (limit.minimum_minor, Decimal(limit.maximum_minor)) == (1250, Decimal(50000))
