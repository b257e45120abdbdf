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
from django.utils import timezone

from pit.accounting import services
from pit.accounting.models import CountKind, InventoryCount, Slip, SlipBook, SlipVoid
from pit.core.actors import SYSTEM
from pit.core.gaming_day import gaming_day_for
from pit.core.jurisdictions import jurisdiction
from pit.core.money import format_money, to_minor
from pit.floor.simulator import InjectedFault
from pit.notices.models import NotificationKind, SurveillanceNotification
from pit.notices.services import drop_notify, notices_gather, surveillance_acknowledge, surveillance_late_check
from pit.rollups.results import TableDays, table_result_rows
from pit.shoes.models import Coup, Shoe, ShoeStatus
from pit.tables.models import Table

ACCOUNTING_FAULT_CODES = {"short_fill": "slip_amount_mismatch", "miscounted_drop": "win_reconciliation_variance"}
# The internal controls' lapses (with `controls`): a slip form skipped in the series, a drop
# notification surveillance did not acknowledge in time.
CONTROL_FAULT_CODES = {"skipped_slip": "slip_number_gap", "late_acknowledgement": "surveillance_unacknowledged"}
# The chips of a tray, largest first, in minor units (down to the cent: commission comes in quarters).
DENOMINATIONS = (100000, 50000, 10000, 2500, 500, 100, 25, 1)
OPENING_TRAY = 500000  # $5,000: a small tray, so the simulated floor needs fills and credits
HUNDRED = 10000
# The share of slip forms spoiled as they are written, each voided before a witness (honest: the
# number is accounted for, no gap).
SPOILED_FORMS = 0.05


def chips_for(amount: int) -> dict[str, int]:
    """An amount in minor units as tray chips, largest first."""
    chips = {}
    for denomination in DENOMINATIONS:
        pieces, amount = divmod(amount, denomination)
        if pieces:
            chips[str(denomination)] = pieces
    return dict(sorted(chips.items(), key=lambda item: int(item[0])))


def _person(username: str):
    user, created = get_user_model().objects.get_or_create(username=username, defaults={"is_active": True})
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user


def _signers():
    return [_person(username) for username in ("sim_dealer", "sim_pit_boss")]


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
    *, coup_ids: Iterable[int], seed: int = 0, faults: dict[str, float] | None = None, controls: bool = False
) -> list[InjectedFault]:
    """Record the table accounting of every table-day the given coups were dealt on (a table-day that
    already has counts is left as it is; one whose shoe is still dealing gets only its opener).

    With `controls`, the pit keeps its internal controls as a well-run pit does: slips numbered from
    a slip book in order (a spoiled form voided before a witness), the drop notified to
    surveillance, and surveillance acknowledging every notification at once; `faults` may then
    inject the lapses of CONTROL_FAULT_CODES too."""
    rates = {**dict.fromkeys(ACCOUNTING_FAULT_CODES, 0.0), **dict.fromkeys(CONTROL_FAULT_CODES, 0.0), **(faults or {})}
    dealer, pit_boss = _signers()
    if controls and not SlipBook.objects.exists():
        services.slip_book_record(first=1, last=99999, actor=SYSTEM, note="simulated floor")
    played = sorted(set(Coup.objects.filter(pk__in=list(coup_ids)).values_list("shoe__table__code", "gaming_day")))
    injected: list[InjectedFault] = []
    for code, day in played:
        table = Table.objects.get(code=code)
        if InventoryCount.objects.filter(table=table, gaming_day=day).exists():
            continue
        rng = random.Random(f"pit-accounting:{seed}:{code}:{day}")
        injected += _table_day(table, day, rng, rates, dealer, pit_boss, controls)
    if controls:
        injected += _surveillance_acknowledges(rates, seed)
        services.slip_series_check()
    return injected


def _next_number(rng, rates, table, day, faults, witness) -> str:
    """The next form of the slip book, after the last used or voided; a spoiled form (a share
    SPOILED_FORMS of them, chosen by number) is voided before a witness and the next one taken; a
    form skipped (a lapse) leaves a gap."""
    used = [int(number) for number in Slip.objects.filter(number__regex=r"^[0-9]+$").values_list("number", flat=True)]
    number = max([*used, *SlipVoid.objects.values_list("number", flat=True)], default=0) + 1
    if random.Random(f"pit-slip-form:{number}").random() < SPOILED_FORMS:
        services.slip_number_void(number=number, reason="form spoiled", witness=witness, actor=SYSTEM)
        number += 1
    if rng.random() < rates["skipped_slip"]:
        faults.append(
            InjectedFault(
                "skipped_slip",
                "slip_number_gap",
                table.code,
                0,
                detail=f"slip form {number} skipped",
                gaming_day=day,
            )
        )
        number += 1
    return str(number)


def _surveillance_acknowledges(rates, seed) -> list[InjectedFault]:
    """Surveillance acknowledges what the pit told it, within a minute; a lapse leaves one unseen.
    The minute's gather runs first (large fills, live alarms) and again past the acknowledgement time."""
    watcher = _person("sim_surveillance")
    rng = random.Random(f"pit-surveillance:{seed}")
    now = timezone.now()
    notices_gather(now=now)
    faults = []
    pending = SurveillanceNotification.objects.filter(acknowledgement__isnull=True).select_related("table")
    for notification in pending.order_by("pk"):
        if notification.kind == NotificationKind.DROP and rng.random() < rates["late_acknowledgement"]:
            faults.append(
                InjectedFault(
                    "late_acknowledgement",
                    "surveillance_unacknowledged",
                    notification.table.code,
                    0,
                    detail=f"{notification} not acknowledged",
                    gaming_day=gaming_day_for(notification.notified_at),
                )
            )
            continue
        surveillance_acknowledge(notification=notification, user=watcher, at=notification.notified_at)
    ack_time = dt.timedelta(minutes=jurisdiction().surveillance_ack_minutes)
    surveillance_late_check(now=now + ack_time + dt.timedelta(minutes=1))
    return faults


def _house_win(table: Table, day: dt.date) -> int:
    rows = table_result_rows(TableDays(date_from=day, date_to=day, tables=(table.code,)))
    return to_minor(sum((row["house_win"] for row in rows), Decimal(0)), table.currency)


def _table_day(table, day, rng, rates, dealer, pit_boss, controls=False) -> list[InjectedFault]:
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
            number=_next_number(rng, rates, table, day, faults, pit_boss) if controls else f"F-{number}",
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
            number=_next_number(rng, rates, table, day, faults, pit_boss) if controls else f"C-{number}",
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
    if controls:
        drop_notify(table=table, gaming_day=day, actor=SYSTEM)
    services.drop_record(table=table, gaming_day=day, cash={str(HUNDRED): counted // HUNDRED}, actor=SYSTEM)
    return faults
