"""Reads: who dealt each coup, and each dealer's figures over a range of gaming days."""

from __future__ import annotations

import bisect
import datetime as dt
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from decimal import Decimal

from django.conf import settings
from django.db.models import OuterRef, Subquery
from django.utils import timezone

from pit.compliance.models import RuleViolation
from pit.core.gaming_day import gaming_day_bounds
from pit.core.money import from_minor
from pit.dealers.errors import CODE_FAULT
from pit.dealers.models import Dealer, DealerRotation, Fault, ViolationFault
from pit.shoes.models import Coup, Wager

# Violations the pit does not charge to the dealer once a pit boss said so.
NOT_THE_DEALER = (Fault.DEVICE, Fault.OTHER)
MISPAY = "payout_mismatch"


def shift_length() -> dt.timedelta:
    """The longest a rotation runs (PIT_DEALER_SHIFT_HOURS): past it nobody recorded coming in, the
    rotation is a finding (`dealer_rotation_overdue`) and its dealer is charged with no later coup."""
    return dt.timedelta(hours=settings.PIT_DEALER_SHIFT_HOURS)


def fault_of(code: str, attributed: str | None) -> str:
    """Whose a violation is: the pit boss's attribution if there is one, else its code's class."""
    return attributed or CODE_FAULT.get(code, Fault.OTHER)


class _Rotations:
    """Every rotation of some tables, sorted, to find who dealt at a moment by bisection. A rotation
    ends at the table's next one, or a shift after it began, whichever comes first."""

    def __init__(self, table_ids, until: dt.datetime):
        self.shift = shift_length()
        self.starts: dict[int, list[dt.datetime]] = defaultdict(list)
        self.dealers: dict[int, list[int | None]] = defaultdict(list)
        for table_id, started_at, dealer_id in (
            DealerRotation.objects.filter(table_id__in=set(table_ids), started_at__lte=until)
            .order_by("table_id", "started_at")
            .values_list("table_id", "started_at", "dealer_id")
        ):
            self.starts[table_id].append(started_at)
            self.dealers[table_id].append(dealer_id)

    def dealer_at(self, table_id: int, moment: dt.datetime) -> int | None:
        index = bisect.bisect_right(self.starts.get(table_id, ()), moment) - 1
        if index < 0 or moment >= self.starts[table_id][index] + self.shift:
            return None
        return self.dealers[table_id][index]

    def shifts(self, start: dt.datetime, end: dt.datetime):
        """(dealer_id, seconds) of every rotation's overlap with [start, end)."""
        for table_id, starts in self.starts.items():
            for index, begun in enumerate(starts):
                dealer_id = self.dealers[table_id][index]
                finished = min(starts[index + 1] if index + 1 < len(starts) else end, begun + self.shift)
                overlap = (min(finished, end) - max(begun, start)).total_seconds()
                if dealer_id is not None and overlap > 0:
                    yield dealer_id, overlap


def coup_dealers(coups) -> dict[int, int | None]:
    """Coup id -> the id of the dealer dealing at its table when it was dealt (None: no rotation)."""
    rows = list(coups.values_list("pk", "shoe__table_id", "dealt_at"))
    if not rows:
        return {}
    rotations = _Rotations({table_id for _, table_id, _ in rows}, max(dealt for _, _, dealt in rows))
    return {pk: rotations.dealer_at(table_id, dealt) for pk, table_id, dealt in rows}


def dealer_at(*, table, moment: dt.datetime) -> Dealer | None:
    """Who dealt at `table` at `moment`: the latest rotation begun by then, unless its shift had run out."""
    rotation = DealerRotation.objects.filter(table=table, started_at__lte=moment).order_by("-started_at").first()
    if rotation is None or moment >= rotation.started_at + shift_length():
        return None
    return rotation.dealer


def _latest_fault() -> Subquery:
    """The fault of a violation's latest attribution (None when no pit boss said whose it was)."""
    return Subquery(
        ViolationFault.objects.filter(violation=OuterRef("pk")).order_by("-decided_at", "-id").values("fault")[:1]
    )


@dataclass
class DealerFigures:
    dealer: Dealer
    coups: int = 0
    seconds: float = 0.0
    errors: Counter = field(default_factory=Counter)  # code -> dealer errors charged to the dealer
    # Violations of their coups that are not the dealer's: a machine's or neither's by their code
    # (`pit.dealers.errors`), or put down to a device or neither by a pit boss.
    device_faults: int = 0
    mispays: int = 0
    mispaid: dict[str, Decimal] = field(default_factory=dict)  # currency -> money paid wrong (over + under)

    @property
    def hours(self) -> Decimal:
        return (Decimal(self.seconds) / 3600).quantize(Decimal("0.01"))

    @property
    def coups_per_hour(self) -> Decimal | None:
        return (Decimal(self.coups) * 3600 / Decimal(self.seconds)).quantize(Decimal("0.1")) if self.seconds else None

    @property
    def errors_per_1000_coups(self) -> dict[str, Decimal]:
        if not self.coups:
            return {}
        return {
            code: (Decimal(count) * 1000 / self.coups).quantize(Decimal("0.01"))
            for code, count in sorted(self.errors.items())
        }


def dealer_statistics(*, first_day: dt.date, last_day: dt.date) -> list[DealerFigures]:
    """Per dealer over these gaming days: coups dealt, hours on a table, coups per hour, the dealer
    errors of their coups (per 1,000 coups, by code; a machine fault, a violation that is neither's,
    and one a pit boss put down to a device or to neither are left out and counted apart), mispays
    and their money. A rotation counts for a shift at most (`shift_length`)."""
    start, end = gaming_day_bounds(first_day)[0], gaming_day_bounds(last_day)[1]
    end = min(end, max(start, timezone.now()))
    coups = Coup.objects.filter(gaming_day__gte=first_day, gaming_day__lte=last_day)
    rows = list(coups.values_list("pk", "shoe__table_id", "dealt_at"))
    rotations = _Rotations(
        {table_id for _, table_id, _ in rows}
        | set(DealerRotation.objects.filter(started_at__lt=end).values_list("table_id", flat=True).distinct()),
        end,
    )
    dealt_by = {pk: rotations.dealer_at(table_id, dealt) for pk, table_id, dealt in rows}
    figures = {dealer.pk: DealerFigures(dealer) for dealer in Dealer.objects.all()}
    for dealer_id in dealt_by.values():
        if dealer_id is not None:
            figures[dealer_id].coups += 1
    for dealer_id, seconds in rotations.shifts(start, end):
        figures[dealer_id].seconds += seconds
    mispaid_by: dict[int, int] = {}  # wager id -> the dealer it is charged to
    for coup_id, code, fault, wager_id in (
        RuleViolation.objects.filter(coup__in=coups, cleared_at__isnull=True)
        .annotate(fault=_latest_fault())
        .values_list("coup_id", "code", "fault", "wager_id")
    ):
        dealer_id = dealt_by.get(coup_id)
        if dealer_id is None:
            continue
        if fault_of(code, fault) in NOT_THE_DEALER:
            figures[dealer_id].device_faults += 1
            continue
        figures[dealer_id].errors[code] += 1
        if code == MISPAY and wager_id is not None:
            figures[dealer_id].mispays += 1
            mispaid_by[wager_id] = dealer_id
    mispaid = Wager.objects.filter(pk__in=mispaid_by, paid_minor__isnull=False)
    for wager_id, currency, paid, payout in mispaid.values_list("pk", "currency", "paid_minor", "payout_minor"):
        money = figures[mispaid_by[wager_id]].mispaid
        money[currency] = money.get(currency, Decimal(0)) + from_minor(abs(paid - payout), currency)
    return [figures[pk] for pk in sorted(figures, key=lambda pk: figures[pk].dealer.code)]


@dataclass
class DealerDay:
    """One dealer's gaming day: coups dealt and the violations of those coups charged to them."""

    dealer: Dealer
    coups: int = 0
    errors: list[tuple[dt.datetime, int, int, str]] = field(default_factory=list)  # (dealt at, coup, table, code)


def dealer_days(*, day: dt.date, codes) -> list[DealerDay]:
    """Per dealer who dealt on the gaming day: their coups, and the holding violations of those coups
    with one of `codes` that are charged to them (not put down to a device or to neither by a pit
    boss), in dealt order. Dealers ordered by code."""
    coups = Coup.objects.filter(gaming_day=day)
    dealt_by = coup_dealers(coups)
    days: dict[int, DealerDay] = {}
    dealers = Dealer.objects.in_bulk({dealer_id for dealer_id in dealt_by.values() if dealer_id is not None})
    for dealer_id in dealt_by.values():
        if dealer_id is not None:
            days.setdefault(dealer_id, DealerDay(dealers[dealer_id])).coups += 1
    for coup_id, code, fault, dealt_at, table_id in (
        RuleViolation.objects.filter(coup__in=coups, code__in=list(codes), cleared_at__isnull=True)
        .annotate(fault=_latest_fault())
        .values_list("coup_id", "code", "fault", "coup__dealt_at", "table_id")
    ):
        dealer_id = dealt_by.get(coup_id)
        if dealer_id is not None and fault_of(code, fault) not in NOT_THE_DEALER:
            days[dealer_id].errors.append((dealt_at, coup_id, table_id, code))
    for figures in days.values():
        figures.errors.sort()
    return sorted(days.values(), key=lambda figures: figures.dealer.code)
