"""The simulated floor's progressive meter: a bank of the simulated tables with a progressive side bet,
filed before the first coup, and its first hit paid (two signers) and reset after the play."""

from __future__ import annotations

import datetime as dt
import secrets
from collections.abc import Iterable
from decimal import Decimal

from django.contrib.auth import get_user_model

from pit.accounts.models import Role
from pit.accounts.services import user_create_with_role
from pit.progressives.models import Meter, MeterPayout
from pit.progressives.services import meter_file, meter_payout_record
from pit.shoes.models import Coup, Wager, WagerResult
from pit.shoes.selectors import wagers_standing
from pit.tables.models import Table

METER_CODE = "SIM-PP"


def progressive_bank_file(
    *, tables: Iterable[str], bet: str, start: dt.datetime, rate: Decimal = Decimal("0.05")
) -> Meter:
    """The simulated bank's meter on `bet` (its code METER_CODE), filed from `start` if not yet filed."""
    existing = Meter.objects.filter(code=METER_CODE).first()
    if existing is not None:
        return existing
    bank = list(Table.objects.filter(code__in=list(tables)).order_by("code"))
    return meter_file(
        code=METER_CODE,
        name=f"Simulated {bet} jackpot",
        bet=bet,
        currency=bank[0].currency,
        effective_from=start,
        base=Decimal("5000"),
        reset=Decimal("5000"),
        rate=rate,
        tables=bank,
        filing_reference="SIMULATED",
    )


def _signer(role: str, username: str):
    """A staff user of `role` to sign the simulated payout (made once, with a password nobody knows)."""
    user = get_user_model().objects.filter(groups__name=role, is_active=True).order_by("pk").first()
    return user or user_create_with_role(username=username, password=secrets.token_urlsafe(24), role=role)


def progressive_hit_pay(*, meter: Meter, coup_ids: Iterable[int]) -> MeterPayout | None:
    """Pay the first hit among these coups (a standing winning wager on the meter's bet at its bank),
    signed by a pit boss and the cage; None when the play had no hit."""
    hit = (
        wagers_standing(Wager.objects.filter(coup_id__in=list(coup_ids), bet=meter.bet, result=WagerResult.WIN))
        .exclude(coup_id__in=MeterPayout.objects.filter(meter=meter).values("coup_id"))
        .order_by("coup__dealt_at", "coup_id", "seat")
        .values_list("coup_id", "seat")
        .first()
    )
    if hit is None:
        return None
    coup = Coup.objects.select_related("shoe").get(pk=hit[0])
    return meter_payout_record(
        meter=meter,
        coup=coup,
        seat=hit[1],
        paid_by=_signer(Role.PIT_BOSS.value, "floor-pit-boss"),
        witnessed_by=_signer(Role.CAGE.value, "floor-cashier"),
        note="Simulated floor: the first hit of the play.",
    )
