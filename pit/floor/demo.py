"""The demo pit `make run` opens on: staff logins, tables under every kind of paytable, and a few
gaming days of play (with a few faults to review), all made through the services."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.db import transaction

from pit import game
from pit.accounts.services import device_create, user_create_with_role
from pit.cash.services import cash_check_day
from pit.core.gaming_day import gaming_day_for
from pit.floor.accounting import simulate_accounting
from pit.floor.clients import ServicesFloorClient
from pit.floor.simulator import simulate
from pit.paytables.models import PaytableConfiguration
from pit.paytables.services import paytable_create_from_preset
from pit.tables.models import Table
from pit.tables.services import table_create

DEMO_PASSWORD_SUFFIX = "-demo-pit"


@dataclass(frozen=True)
class Login:
    username: str
    password: str
    role: str


LOGINS: tuple[Login, ...] = (
    Login("admin", "admin" + DEMO_PASSWORD_SUFFIX, "superuser"),
    Login("pitboss", "pitboss" + DEMO_PASSWORD_SUFFIX, "pit boss"),
    Login("accountant", "accountant" + DEMO_PASSWORD_SUFFIX, "accountant"),
    Login("auditor", "auditor" + DEMO_PASSWORD_SUFFIX, "auditor"),
    Login("cage", "cage" + DEMO_PASSWORD_SUFFIX, "cage"),
)

D = Decimal
# code, name, game, paytable preset, limits per bet (minimum, maximum)
DEMO_TABLES: tuple[tuple[str, str, str, str, dict[str, tuple[Decimal, Decimal]]], ...] = (
    (
        "BB1",
        "Big baccarat 1",
        "big",
        "commission_box",
        {
            "player": (D(100), D(50000)),
            "banker": (D(100), D(50000)),
            "tie": (D(25), D(5000)),
            "player_pair": (D(25), D(2500)),
            "banker_pair": (D(25), D(2500)),
        },
    ),
    (
        "BB2",
        "Big baccarat 2",
        "big",
        "commission_deducted",
        {
            "player": (D(100), D(25000)),
            "banker": (D(100), D(25000)),
            "tie": (D(25), D(2500)),
            "player_pair": (D(25), D(1000)),
            "banker_pair": (D(25), D(1000)),
        },
    ),
    (
        "MD1",
        "Midi baccarat",
        "midi",
        "no_commission",
        {
            "player": (D(50), D(10000)),
            "banker": (D(50), D(10000)),
            "tie": (D(10), D(1000)),
            "player_pair": (D(10), D(500)),
            "banker_pair": (D(10), D(500)),
        },
    ),
    (
        "MN1",
        "Mini baccarat 1",
        "mini",
        "mini_commission_box",
        {
            "player": (D(25), D(5000)),
            "banker": (D(25), D(5000)),
            "tie": (D(5), D(500)),
            "player_pair": (D(5), D(500)),
            "banker_pair": (D(5), D(500)),
        },
    ),
    (
        "MN2",
        "Mini baccarat EZ",
        "mini",
        "ez_baccarat",
        {
            "player": (D(25), D(5000)),
            "banker": (D(25), D(5000)),
            "tie": (D(5), D(500)),
            "dragon_7": (D(5), D(250)),
            "panda_8": (D(5), D(250)),
        },
    ),
    (
        "LD1",
        "Live side bets",
        "mini",
        "live_side_bets",
        {
            "player": (D(25), D(5000)),
            "banker": (D(25), D(5000)),
            "tie": (D(5), D(500)),
            **{
                bet: (D(5), D(250))
                for bet in game.PRESETS["live_side_bets"].bets
                if bet not in ("player", "banker", "tie")
            },
        },
    ),
    (
        "TG1",
        "Tiger baccarat",
        "mini",
        "tiger",
        {
            "player": (D(25), D(5000)),
            "banker": (D(25), D(5000)),
            "tie": (D(5), D(500)),
            **{bet: (D(5), D(250)) for bet in game.PRESETS["tiger"].bets if bet not in ("player", "banker", "tie")},
        },
    ),
)
# Low fault rates, but a miscounted box often enough that a variance shows up to explain.
DEMO_FAULTS = {
    "wrong_draw": 0.004,
    "misreported_winner": 0.002,
    "wrong_payout": 0.002,
    "miscounted_box": 0.25,
    "foreign_card": 0.002,
}
# Table accounting's mistakes in the demo: a short fill and a miscounted drop now and then.
DEMO_ACCOUNTING_FAULTS = {"short_fill": 0.3, "miscounted_drop": 0.15}
DEMO_DAYS = 3
DEMO_SHOES_PER_DAY = 2
DEMO_SEED = 2026


def demo_pit_exists() -> bool:
    return Table.objects.exists()


def _user_create(login: Login):
    if login.role == "superuser":
        return get_user_model().objects.create_superuser(username=login.username, password=login.password)
    return user_create_with_role(username=login.username, password=login.password, role=login.role)


@transaction.atomic
def demo_pit_setup() -> dict[str, str]:
    """The staff, paytables, tables (with limits) and a device per table; nothing is dealt yet.
    Returns each table's device API key (shown this once: only its hash is kept)."""
    User = get_user_model()
    for login in LOGINS:
        if not User.objects.filter(username=login.username).exists():
            _user_create(login)
    keys = {}
    for code, name, game_kind, preset, limits in DEMO_TABLES:
        paytable = PaytableConfiguration.objects.filter(preset=preset, superseded_by__isnull=True).first()
        if paytable is None:
            paytable = paytable_create_from_preset(preset=preset)
        table = table_create(code=code, name=name, game=game_kind, paytable=paytable, limits=limits)
        _, keys[code] = device_create(table=table, name=f"shoe reader {code}")
    return keys


# The player club of the demo pit: rated patrons who change tables, one excluded, one lending a card,
# two high rollers, one structuring at the cage and one playing minimally (pit.floor.cash).
DEMO_PATRONS = 40


def demo_pit_play(
    *,
    now: dt.datetime | None = None,
    days: int = DEMO_DAYS,
    shoes_per_day: int = DEMO_SHOES_PER_DAY,
    on_coup=None,
):
    """A few gaming days of play at every table, ending now with a shoe dealing at each."""
    result = simulate(
        ServicesFloorClient(),
        tables=[code for code, *_ in DEMO_TABLES],
        days=days,
        shoes_per_day=shoes_per_day,
        seats=5,
        faults=DEMO_FAULTS,
        seed=DEMO_SEED,
        now=now,
        leave_open=True,
        batch_size=40,
        on_coup=on_coup,
        patrons=DEMO_PATRONS,
    )
    # The chip trays, fills, credits and drops that go with that play (see pit.floor.accounting).
    result.faults += simulate_accounting(coup_ids=result.coup_ids, seed=DEMO_SEED, faults=DEMO_ACCOUNTING_FAULTS)
    # The days' cash checked (as the beat does every 5 minutes): the high rollers' CTR worksheets,
    # the structurer's and the minimal gamer's findings (pit.floor.cash) wait for compliance.
    last = gaming_day_for(now or dt.datetime.now(dt.UTC))
    for back in range(days - 1, -1, -1):
        cash_check_day(day=last - dt.timedelta(days=back))
    return result
