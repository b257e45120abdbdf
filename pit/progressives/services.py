"""Progressive meters: filing a meter and its configurations, recording a payout (two signers) and
the readings the database holds to never going down. Design: docs/design/progressives.md."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterable, Mapping
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from pit.core.actors import SYSTEM, Actor
from pit.core.daylock import day_write, days_ensure_open
from pit.core.money import MoneyError, to_minor
from pit.core.signatures import signature_check
from pit.paytables.selectors import engine_paytable
from pit.shoes.models import Coup, Wager, WagerResult
from pit.shoes.selectors import wagers_standing

from .models import RATE_PLACES, BankTable, Meter, MeterConfiguration, MeterPayout, MeterReading
from .selectors import meter_figures, meter_last_reading, meter_windows, meters_at_table

logger = logging.getLogger(__name__)

PAY = "progressives.pay_meterpayout"
WITNESS = "progressives.witness_meterpayout"


def _amount_minor(value: Decimal, currency: str, field: str) -> int:
    try:
        minor = to_minor(value, currency)
    except MoneyError as error:
        raise ValidationError({field: str(error)}) from error
    if minor <= 0:
        raise ValidationError({field: gettext("An amount above zero.")})
    return minor


def _rate(rate: Decimal) -> Decimal:
    if not isinstance(rate, Decimal) or not rate.is_finite() or not Decimal(0) < rate < Decimal(1):
        raise ValidationError({"rate": gettext("A share of each stake above 0 and below 1 (0.05 is 5%).")})
    if rate != rate.quantize(Decimal(1).scaleb(-RATE_PLACES)):
        raise ValidationError({"rate": gettext("At most %(places)d decimal places.") % {"places": RATE_PLACES}})
    return rate


def _bank(tables: Iterable, *, bet: str, currency: str) -> list:
    """The bank's tables: each deals the bet in the meter's currency under its paytable in force."""
    bank = sorted(set(tables), key=lambda table: table.code)
    if not bank:
        raise ValidationError({"tables": gettext("A meter covers at least one table.")})
    for table in bank:
        if table.currency != currency:
            raise ValidationError(
                {
                    "tables": gettext("%(table)s plays in %(currency)s.")
                    % {"table": table.code, "currency": table.currency}
                }
            )
        if bet not in engine_paytable(table.paytable.rules).bets:
            raise ValidationError(
                {"tables": gettext("%(table)s's paytable has no bet %(bet)s.") % {"table": table.code, "bet": bet}}
            )
    return bank


def _configuration_write(
    *,
    meter: Meter,
    version: int,
    effective_from: dt.datetime,
    base_minor: int,
    reset_minor: int,
    rate: Decimal,
    tables: list,
    filing_reference: str,
    actor: Actor,
) -> MeterConfiguration:
    if not filing_reference.strip():
        raise ValidationError({"filing_reference": gettext("Name the regulator's filing.")})
    configuration = MeterConfiguration(
        meter=meter,
        version=version,
        effective_from=effective_from,
        base_minor=base_minor,
        reset_minor=reset_minor,
        rate=rate,
        filing_reference=filing_reference.strip(),
        **actor.recorded_fields(),
    )
    configuration.full_clean(exclude=["meter"])
    configuration.save()
    BankTable.objects.bulk_create([BankTable(configuration=configuration, table=table) for table in tables])
    return configuration


@transaction.atomic
def meter_file(
    *,
    code: str,
    name: str,
    bet: str,
    currency: str,
    effective_from: dt.datetime,
    base: Decimal,
    reset: Decimal,
    rate: Decimal,
    tables: Iterable,
    filing_reference: str,
    actor: Actor = SYSTEM,
) -> Meter:
    """A new meter and its first configuration (version 1): from `effective_from`, the wagers on
    `bet` at `tables` feed it at `rate`, from `base`; each hit resets it to `reset`."""
    bank = _bank(tables, bet=bet, currency=currency)
    meter = Meter(code=code.strip(), name=name.strip(), bet=bet, currency=currency, **actor.recorded_fields())
    meter.full_clean()
    meter.save()
    _configuration_write(
        meter=meter,
        version=1,
        effective_from=effective_from,
        base_minor=_amount_minor(base, currency, "base"),
        reset_minor=_amount_minor(reset, currency, "reset"),
        rate=_rate(rate),
        tables=bank,
        filing_reference=filing_reference,
        actor=actor,
    )
    return meter


@transaction.atomic
def meter_configuration_file(
    *,
    meter: Meter,
    effective_from: dt.datetime,
    reset: Decimal,
    rate: Decimal,
    tables: Iterable,
    filing_reference: str,
    actor: Actor = SYSTEM,
) -> MeterConfiguration:
    """Supersede a meter's configuration from `effective_from` on (never before now: a configuration
    filed after the fact would re-price contributions already on the meter). The base stays the
    first version's: it is where the meter started."""
    meter = Meter.objects.select_for_update().get(pk=meter.pk)
    windows = meter_windows(meter)
    last = windows[-1].configuration
    if effective_from < timezone.now() or effective_from <= last.effective_from:
        raise ValidationError(
            {"effective_from": gettext("A configuration takes effect from now on, after the one it supersedes.")}
        )
    return _configuration_write(
        meter=meter,
        version=last.version + 1,
        effective_from=effective_from,
        base_minor=windows[0].configuration.base_minor,
        reset_minor=_amount_minor(reset, meter.currency, "reset"),
        rate=_rate(rate),
        tables=_bank(tables, bet=meter.bet, currency=meter.currency),
        filing_reference=filing_reference,
        actor=actor,
    )


def _signers_check(*, paid_by, witnessed_by, actor: Actor, secrets: Mapping[str, str]) -> None:
    errors: dict[str, str] = {}
    if paid_by is None:
        errors["paid_by"] = gettext("The pit boss who pays the hit signs.")
    elif not paid_by.is_active or not paid_by.has_perm(PAY):
        errors["paid_by"] = gettext("%(user)s may not pay a progressive as the pit boss.") % {"user": paid_by}
    if witnessed_by is None:
        errors["witnessed_by"] = gettext("A second person signs the payout.")
    elif paid_by is not None and witnessed_by.pk == paid_by.pk:
        errors["witnessed_by"] = gettext("Two people sign a progressive payout: the second signer is not the pit boss.")
    elif not witnessed_by.is_active or not witnessed_by.has_perm(WITNESS):
        errors["witnessed_by"] = gettext("%(user)s may not sign a progressive payout.") % {"user": witnessed_by}
    if errors:
        raise ValidationError(errors)
    signature_check(field="paid_by", signer=paid_by, role=gettext("pit boss"), actor=actor, secrets=secrets)
    signature_check(
        field="witnessed_by", signer=witnessed_by, role=gettext("second signer"), actor=actor, secrets=secrets
    )


def _reading_write(
    meter: Meter, figures, *, amount_minor: int, payout: MeterPayout | None, actor: Actor
) -> MeterReading:
    return MeterReading.objects.create(
        meter=meter,
        amount_minor=amount_minor,
        contributions=figures.contributions,
        carried=figures.carried,
        payout=payout,
        **actor.recorded_fields(),
    )


@day_write(
    writes=("progressives.MeterPayout", "progressives.MeterReading"),
    day_of="the winning coup's gaming day",
)
@transaction.atomic
def meter_payout_record(
    *,
    meter: Meter,
    coup: Coup,
    seat: int,
    paid_by,
    witnessed_by,
    note: str = "",
    actor: Actor = SYSTEM,
    secrets: Mapping[str, str] | None = None,
) -> MeterPayout:
    """Pay a hit: the meter's amount as it stands to the standing winning wager on its bet at `seat`
    of `coup`, a coup of a bank table; signed by the pit boss (`paid_by`) and a second person
    (`witnessed_by`); then the meter resets to the filed reset amount. The readings before and after
    are recorded with it (the database refuses a payout of other than the last reading)."""
    days_ensure_open([coup.gaming_day])
    meter = Meter.objects.select_for_update().get(pk=meter.pk)
    _signers_check(paid_by=paid_by, witnessed_by=witnessed_by, actor=actor, secrets=secrets or {})
    table_id = coup.shoe.table_id
    window = next((w for w in reversed(meter_windows(meter)) if w.start <= coup.dealt_at), None)
    if window is None or table_id not in window.table_ids:
        raise ValidationError(
            {
                "coup": gettext("Coup %(coup)s was not dealt at a table of meter %(meter)s's bank.")
                % {"coup": coup, "meter": meter.code}
            }
        )
    won = wagers_standing(
        Wager.objects.filter(coup=coup, seat=seat, bet=meter.bet, currency=meter.currency, result=WagerResult.WIN)
    ).exists()
    if not won:
        raise ValidationError(
            {
                "seat": gettext("Seat %(seat)s of coup %(coup)s has no standing winning %(bet)s wager.")
                % {"seat": seat, "coup": coup, "bet": meter.bet}
            }
        )
    if MeterPayout.objects.filter(meter=meter, coup=coup, seat=seat).exists():
        raise ValidationError({"seat": gettext("This hit is paid already.")})
    figures = meter_figures(meter)
    amount = figures.amount_minor
    last = meter_last_reading(meter)
    if last is None or last.amount_minor != amount or last.payout_id is not None:
        _reading_write(meter, figures, amount_minor=amount, payout=None, actor=actor)
    payout = MeterPayout.objects.create(
        meter=meter,
        coup=coup,
        table_id=table_id,
        seat=seat,
        amount_minor=amount,
        reset_minor=figures.configuration.reset_minor,
        paid_by=paid_by,
        witnessed_by=witnessed_by,
        note=note.strip(),
        **actor.recorded_fields(),
    )
    _reading_write(meter, meter_figures(meter), amount_minor=payout.reset_minor, payout=payout, actor=actor)
    return payout


def meters_read(*, meters: Iterable[Meter] | None = None, actor: Actor = SYSTEM) -> list[MeterReading]:
    """Record each meter's reading where it moved since its last (the re-check after a correction or
    void, and at the close of a gaming day). A meter computed below its last reading is not recorded
    (the database would refuse it) but logged as an error: its figures need an explanation."""
    written = []
    for meter in meters if meters is not None else Meter.objects.order_by("code"):
        with transaction.atomic():
            meter = Meter.objects.select_for_update().get(pk=meter.pk)
            if not meter.configurations.exists():
                continue
            figures = meter_figures(meter)
            last = meter_last_reading(meter)
            if (
                last is not None
                and last.amount_minor == figures.amount_minor
                and (
                    last.contributions,
                    last.carried,
                )
                == (figures.contributions, figures.carried)
            ):
                continue
            if last is not None and figures.amount_minor < last.amount_minor:
                logger.error(
                    "progressive meter %s computes %s below its last reading %s; not recorded",
                    meter.code,
                    figures.amount_minor,
                    last.amount_minor,
                )
                continue
            written.append(_reading_write(meter, figures, amount_minor=figures.amount_minor, payout=None, actor=actor))
    return written


def meters_read_for_table(*, table_id: int, actor: Actor = SYSTEM) -> list[MeterReading]:
    """`meters_read` of the meters whose bank holds the table (a correction or void of one of its coups)."""
    return meters_read(meters=meters_at_table(table_id), actor=actor)
