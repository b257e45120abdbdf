"""What a progressive meter stands at, computed from the recorded wagers, and the liability of every meter.

The meter = base + contributions + carried + resets − payouts, where contributions are the rate in
force at each coup's deal times the standing stakes on the meter's bet at the bank's tables, and
carried is the contribution of stakes a later correction or void withdrew: it stays on the meter
(the meter never goes down except by a recorded payout). Exact in minor units (a Decimal of six
places); the meter shows the whole minor units below it. Design: docs/design/progressives.md.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass
from decimal import ROUND_FLOOR, Decimal

from django.db.models import Count, Max, Sum
from django.db.models.functions import Coalesce
from django.utils import timezone

from pit.core.gaming_day import gaming_day_for
from pit.shoes.models import CoupCorrection, Wager

from .models import Meter, MeterConfiguration, MeterPayout, MeterReading


@dataclass(frozen=True)
class Window:
    """A configuration in force: its tables, its rate, from its start until the next version's."""

    configuration: MeterConfiguration
    table_ids: frozenset[int]
    start: dt.datetime
    end: dt.datetime | None


@dataclass(frozen=True)
class MeterFigures:
    """A meter as it stands. Money in minor units of `currency`; `exact` with the fractions."""

    meter: Meter
    configuration: MeterConfiguration  # the version in force now (or the first, before it starts)
    table_ids: frozenset[int]  # its bank
    base_minor: int
    stakes_minor: int  # the standing stakes that fed it
    withdrawn_minor: int  # stakes a correction or void withdrew, whose contribution is carried
    contributions: Decimal
    carried: Decimal
    resets_minor: int  # the reset amounts of its payouts
    paid_minor: int  # what its payouts paid
    payouts: int
    exact: Decimal

    @property
    def currency(self) -> str:
        return self.meter.currency

    @property
    def amount_minor(self) -> int:
        """What the meter shows: the whole minor units of the exact figure (never rounded up)."""
        return int(self.exact.to_integral_value(rounding=ROUND_FLOOR))


def meter_windows(meter: Meter) -> list[Window]:
    """The meter's configurations as windows of coup deal times, oldest first."""
    configurations = list(meter.configurations.order_by("version").prefetch_related("bank"))
    windows = []
    for index, configuration in enumerate(configurations):
        following = configurations[index + 1] if index + 1 < len(configurations) else None
        windows.append(
            Window(
                configuration=configuration,
                table_ids=frozenset(row.table_id for row in configuration.bank.all()),
                start=configuration.effective_from,
                end=following.effective_from if following else None,
            )
        )
    return windows


def _window_wagers(meter: Meter, window: Window):
    # The gaming day of a coup is never before its deal's (a day starts at the casino's hour), so
    # the partitions before the window's first day are pruned on PostgreSQL.
    wagers = Wager.objects.filter(
        bet=meter.bet,
        currency=meter.currency,
        gaming_day__gte=gaming_day_for(window.start) - dt.timedelta(days=1),
        coup__shoe__table_id__in=window.table_ids,
        coup__dealt_at__gte=window.start,
    )
    return wagers.filter(coup__dealt_at__lt=window.end) if window.end else wagers


def _window_stakes(meter: Meter, window: Window) -> tuple[int, int]:
    """(standing, withdrawn) stakes on the meter's bet of the window's coups at its bank.

    Standing: the original wagers' stakes (one SUM, no per-row check), with each corrected coup's
    original stake replaced by its latest version's (a void: none). Withdrawn: per corrected coup,
    its highest version's stake (what fed the meter once) less what stands now."""
    wagers = _window_wagers(meter, window)
    original = wagers.filter(correction__isnull=True).aggregate(s=Coalesce(Sum("amount_minor"), 0))["s"]
    corrections = CoupCorrection.objects.filter(
        coup__shoe__table_id__in=window.table_ids, coup__dealt_at__gte=window.start
    )
    if window.end:
        corrections = corrections.filter(coup__dealt_at__lt=window.end)
    versions: dict[int, dict[int | None, int]] = defaultdict(dict)
    latest: dict[int, int] = {}
    for correction_id, coup_id in corrections.order_by("coup_id", "sequence").values_list("pk", "coup_id"):
        versions[coup_id][correction_id] = 0  # a void writes no wagers: nothing stands
        latest[coup_id] = correction_id
    if not versions:
        return original, 0
    sums = (
        Wager.objects.filter(coup_id__in=list(versions), bet=meter.bet, currency=meter.currency)
        .values("coup_id", "correction_id")
        .order_by()
        .annotate(stake=Sum("amount_minor"))
    )
    for row in sums:
        versions[row["coup_id"]][row["correction_id"]] = row["stake"]
    standing, withdrawn = original, 0
    for coup_id, stakes in versions.items():
        now = stakes[latest[coup_id]]
        standing += now - stakes.get(None, 0)
        withdrawn += max(stakes.values()) - now
    return standing, withdrawn


def meter_figures(meter: Meter, *, now: dt.datetime | None = None) -> MeterFigures:
    """The meter as it stands, from its configurations, the recorded wagers and its payouts."""
    windows = meter_windows(meter)
    if not windows:
        raise MeterConfiguration.DoesNotExist(f"meter {meter.code} has no configuration")
    moment = now or timezone.now()
    current = next((w for w in reversed(windows) if w.start <= moment), windows[0])
    stakes = withdrawn = 0
    contributions = carried = Decimal(0)
    for window in windows:
        standing, taken = _window_stakes(meter, window)
        stakes += standing
        withdrawn += taken
        contributions += window.configuration.rate * standing
        carried += window.configuration.rate * taken
    paid = MeterPayout.objects.filter(meter=meter).aggregate(
        paid=Coalesce(Sum("amount_minor"), 0), resets=Coalesce(Sum("reset_minor"), 0), n=Count("id")
    )
    base = windows[0].configuration.base_minor
    return MeterFigures(
        meter=meter,
        configuration=current.configuration,
        table_ids=current.table_ids,
        base_minor=base,
        stakes_minor=stakes,
        withdrawn_minor=withdrawn,
        contributions=contributions,
        carried=carried,
        resets_minor=paid["resets"],
        paid_minor=paid["paid"],
        payouts=paid["n"],
        exact=base + contributions + carried + paid["resets"] - paid["paid"],
    )


def meter_last_reading(meter: Meter) -> MeterReading | None:
    return MeterReading.objects.filter(meter=meter).order_by("-id").first()


def meters_liability(*, currency: str | None = None) -> list[MeterFigures]:
    """Every meter as it stands (the house owes it to the next hit), by code."""
    meters = Meter.objects.order_by("code")
    if currency:
        meters = meters.filter(currency=currency)
    return [meter_figures(meter) for meter in meters if meter.configurations.exists()]


def meters_at_table(table_id: int) -> list[Meter]:
    """The meters whose bank held this table in any of their configurations."""
    return list(Meter.objects.filter(configurations__bank__table_id=table_id).distinct().order_by("code"))


def meter_hits_latest() -> dict[int, dt.datetime]:
    """meter id -> when its last payout was recorded."""
    rows = MeterPayout.objects.values("meter_id").order_by().annotate(at=Max("recorded_at"))
    return {row["meter_id"]: row["at"] for row in rows}
