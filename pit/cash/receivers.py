"""A seat's cash buy-in is a cash transaction: whichever way a buy-in is recorded (the floor's API,
the admin, the simulator), the cash app records its transaction in the same database transaction,
so the table's cash is never typed twice and never missed. Cash at the seat is a chip purchase
(cash in); a marker at the seat is a credit advance (cash out, 31 CFR 1021.313). Chips brought from
elsewhere are no cash."""

from django.db.models.signals import post_save
from django.dispatch import receiver

from pit.cash import services
from pit.cash.models import CashKind, CashTransaction
from pit.core.actors import Actor
from pit.core.money import from_minor
from pit.players import selectors as seats
from pit.players.models import BuyIn, BuyInKind

KINDS: dict[str, str] = {BuyInKind.CASH: CashKind.CHIP_PURCHASE, BuyInKind.MARKER: CashKind.MARKER_ISSUANCE}


def reference(buy_in: BuyIn) -> str:
    return f"buy-in:{buy_in.pk}"


@receiver(post_save, sender=BuyIn, dispatch_uid="cash.buy_in_recorded")
def buy_in_recorded(sender, instance: BuyIn, created: bool, raw: bool = False, **kwargs) -> None:
    if not created or raw or instance.kind not in KINDS:
        return
    actor = Actor(user=instance.recorded_by_user, device=instance.recorded_by_device)
    if instance.reverses_id is not None:
        reversed_ = CashTransaction.objects.get(buy_in_id=instance.reverses_id)
        services.transaction_reverse(
            reversed_=reversed_, reason=instance.reason, reference=reference(instance), actor=actor
        )
        return
    session = instance.session
    patron = seats.session_patron(session)
    cash = services.transaction_record(
        cash=services.CashInput(
            reference=reference(instance),
            kind=KINDS[instance.kind],
            at=instance.at,
            currency=instance.currency,
            amount=from_minor(instance.amount_minor, instance.currency),
            table=session.table,
            patron=patron,
            description="" if patron is not None else session.description,
            session=session,
            buy_in=instance,
        ),
        actor=actor,
    )
    services.threshold_near_check(cash=cash)
