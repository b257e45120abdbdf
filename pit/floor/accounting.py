"""Table accounting for a simulated floor: the chip tray, fills, credits and the drop that go with
the play the dealer recorded, so that the statutory win equals the wagers' house win, and the
closer of each day is the next day's opener.

Players buy chips with cash at the table (the cash goes to the drop box, the chips come out of the
tray), lost wagers and commission come into the tray, payouts go out of it, and players leave with
their chips (cashed at the cage). So closer = opener + fills - credits - drop + house win, and
drop + closer + credits - opener - fills = house win. A fill is requested when the tray would run
below half its opening value, a credit when it would hold more than half as much again.

Faults, at set rates, each found by a check: `short_fill` (the table receives one $100 chip fewer
than the cage issued: slip_amount_mismatch) and `miscounted_drop` (the count team records $100
more or less than the box held: win_reconciliation_variance).
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Iterable
from decimal import Decimal

from django.contrib.auth import get_user_model

from pit.accounting import services
from pit.accounting.models import CountKind, InventoryCount
from pit.core.actors import SYSTEM
from pit.core.money import format_money, to_minor
from pit.floor.simulator import InjectedFault
from pit.rollups.results import TableDays, table_result_rows
from pit.shoes.models import Coup, Shoe, ShoeStatus
from pit.tables.models import Table

ACCOUNTING_FAULT_CODES = {"short_fill": "slip_amount_mismatch", "miscounted_drop": "win_reconciliation_variance"}
# The chips of a tray, largest first, in minor units (down to the cent: commission comes in quarters).
DENOMINATIONS = (100000, 50000, 10000, 2500, 500, 100, 25, 1)
OPENING_TRAY = 500000  # $5,000: a small tray, so the simulated floor needs fills and credits
HUNDRED = 10000


def chips_for(amount: int) -> dict[str, int]:
    """An amount in minor units as tray chips, largest first."""
    chips = {}
    for denomination in DENOMINATIONS:
        pieces, amount = divmod(amount, denomination)
        if pieces:
            chips[str(denomination)] = pieces
    return dict(sorted(chips.items(), key=lambda item: int(item[0])))


def _signers():
    User = get_user_model()
    signers = []
    for username in ("sim_dealer", "sim_pit_boss"):
        user, created = User.objects.get_or_create(username=username, defaults={"is_active": True})
        if created:
            user.set_unusable_password()
            user.save(update_fields=["password"])
        signers.append(user)
    return signers


def parse_accounting_faults(text: str | None) -> dict[str, float]:
    """'short_fill=0.2,miscounted_drop=0.1' or a bare rate for both; ValueError naming the problem."""
    rates = dict.fromkeys(ACCOUNTING_FAULT_CODES, 0.0)
    for part in (piece.strip() for piece in (text or "").split(",") if piece.strip()):
        name, sep, value = part.partition("=")
        names = tuple(rates) if not sep else (name.strip(),)
        for kind in names:
            if kind not in rates:
                raise ValueError(f"{kind!r} is not an accounting fault ({', '.join(rates)})")
        try:
            rate = float(value if sep else name)
        except ValueError:
            raise ValueError(f"{value if sep else name!r} is not a rate between 0 and 1") from None
        if not 0 <= rate <= 1:
            raise ValueError(f"a fault rate is between 0 and 1, not {rate}")
        for kind in names:
            rates[kind] = rate
    return rates


def simulate_accounting(
    *, coup_ids: Iterable[int], seed: int = 0, faults: dict[str, float] | None = None
) -> list[InjectedFault]:
    """Record the table accounting of every table-day the given coups were dealt on (a table-day that
    already has counts is left as it is; one whose shoe is still dealing gets only its opener)."""
    rates = {**dict.fromkeys(ACCOUNTING_FAULT_CODES, 0.0), **(faults or {})}
    dealer, pit_boss = _signers()
    played = sorted(set(Coup.objects.filter(pk__in=list(coup_ids)).values_list("shoe__table__code", "gaming_day")))
    injected: list[InjectedFault] = []
    for code, day in played:
        table = Table.objects.get(code=code)
        if InventoryCount.objects.filter(table=table, gaming_day=day).exists():
            continue
        rng = random.Random(f"pit-accounting:{seed}:{code}:{day}")
        injected += _table_day(table, day, rng, rates, dealer, pit_boss)
    return injected


def _house_win(table: Table, day: dt.date) -> int:
    rows = table_result_rows(TableDays(date_from=day, date_to=day, tables=(table.code,)))
    return to_minor(sum((row["house_win"] for row in rows), Decimal(0)), table.currency)


def _table_day(table, day, rng, rates, dealer, pit_boss) -> list[InjectedFault]:
    faults: list[InjectedFault] = []
    previous = (
        InventoryCount.objects.filter(table=table, kind=CountKind.CLOSER, gaming_day__lt=day)
        .order_by("-gaming_day", "-shift")
        .first()
    )
    opener = previous.chips if previous else chips_for(OPENING_TRAY)
    opener_total = sum(int(key) * pieces for key, pieces in opener.items())

    def count(kind, chips):
        services.inventory_record(
            table=table, gaming_day=day, kind=kind, chips=chips, dealer=dealer, pit_boss=pit_boss, actor=SYSTEM
        )

    count(CountKind.OPENER, opener)
    if Shoe.objects.filter(table=table, status=ShoeStatus.DEALING, coups__gaming_day=day).exists():
        return faults  # the table is still playing this gaming day: no closer, no drop yet
    win = _house_win(table, day)
    # Buy-ins: a win-to-drop between 25 % and 67 % on a winning day, a few thousand otherwise.
    drop = max(1, win * rng.randint(150, 400) // (100 * HUNDRED)) * HUNDRED if win > 0 else rng.randint(5, 40) * HUNDRED
    tray = opener_total - drop + win
    number = f"{table.code}-{day:%Y%m%d}"
    if tray < opener_total // 2:
        amount = -(-(opener_total - tray) // 100000) * 100000  # up to the opening tray, in $1,000s
        received = {"10000": amount // HUNDRED}
        slip = services.slip_request(
            kind="fill",
            number=f"F-{number}",
            table=table,
            gaming_day=day,
            reason="tray low",
            chips=received,
            actor=SYSTEM,
        )
        services.slip_issue(slip=slip, chips=received, actor=SYSTEM)
        if rng.random() < rates["short_fill"]:
            received = {"10000": amount // HUNDRED - 1}
            faults.append(
                InjectedFault(
                    "short_fill",
                    "slip_amount_mismatch",
                    table.code,
                    0,
                    detail=f"fill {slip.number} received one $100 chip short",
                )
            )
        services.slip_receive(slip=slip, chips=received, actor=SYSTEM)
        tray += sum(int(key) * pieces for key, pieces in received.items())
    elif tray > opener_total * 3 // 2:
        amount = (tray - opener_total) // 100000 * 100000
        slip = services.slip_request(
            kind="credit",
            number=f"C-{number}",
            table=table,
            gaming_day=day,
            reason="tray full",
            chips={"10000": amount // HUNDRED},
            actor=SYSTEM,
        )
        services.slip_issue(slip=slip, chips={"10000": amount // HUNDRED}, actor=SYSTEM)
        services.slip_receive(slip=slip, chips={"10000": amount // HUNDRED}, actor=SYSTEM)
        tray -= amount
    count(CountKind.CLOSER, chips_for(tray))
    counted = drop
    if rng.random() < rates["miscounted_drop"]:
        counted = drop + rng.choice((-HUNDRED, HUNDRED))
        faults.append(
            InjectedFault(
                "miscounted_drop",
                "win_reconciliation_variance",
                table.code,
                0,
                detail=f"drop of {day} counted {format_money(counted, table.currency)} "
                f"against {format_money(drop, table.currency)}",
            )
        )
    services.drop_record(table=table, gaming_day=day, cash={str(HUNDRED): counted // HUNDRED}, actor=SYSTEM)
    return faults
